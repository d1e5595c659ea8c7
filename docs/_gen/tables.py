"""Table cells for the generated pages, as Python-Markdown's `tables` extension (MkDocs) reads them.

A `|` splits cells except inside a code span, where the extension leaves it alone: there it is
written as it is (`\\|` would show, backslash and all, because a code span keeps backslashes);
outside code spans it is escaped as `\\|`, which renders as `|`.
"""

from __future__ import annotations

import re

# A code span: a run of backticks, then the shortest text up to the same run (CommonMark's rule).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def code(text: str) -> str:
    """``text`` as one code span, whatever backticks it holds."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def cell(text: str) -> str:
    """``text`` (Markdown, maybe with code spans) as the content of one table cell, on one line."""
    out, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        out.append(_escaped(text[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(_escaped(text[last:]))
    return "".join(out).replace("\n", " ")


def _escaped(prose: str) -> str:
    return prose.replace("|", "\\|")

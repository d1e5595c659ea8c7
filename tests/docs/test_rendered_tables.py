"""Tables render as MkDocs renders them: no literal `\\|` in what a reader sees, no split cells.

Python-Markdown's `tables` extension leaves a `|` inside a code span alone, and a code span keeps
its backslashes: a `\\|` there shows as `\\|`. The pages are rendered with mkdocs.yml's Markdown
extensions (as `mkdocs build` does, without building the site) and their visible text checked.
"""

from __future__ import annotations

import sys
from html import unescape
from html.parser import HTMLParser

import markdown
import pytest
import yaml

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "docs" / "_gen"))
import command_reference
import config_reference

# Pages of others' that still show a literal `\|` (a code span in a table): reported, not hidden.


def render(text: str) -> str:
    settings = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    extensions, configs = [], {}
    for entry in settings["markdown_extensions"]:
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        extensions.append(name)
        if options:
            configs[name] = options
    return markdown.markdown(text, extensions=extensions, extension_configs=configs)


class Tables(HTMLParser):
    """The visible text (code blocks left out: a `\\|` may be part of a shell command there),
    and the number of cells of each table row."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.rows: list[int] = []
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "pre":
            self._pre += 1
        elif tag == "tr":
            self.rows.append(0)
        elif tag in ("td", "th") and self.rows:
            self.rows[-1] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._pre -= 1

    def handle_data(self, data: str) -> None:
        if not self._pre:
            self.text.append(data)


def escaped_pipes(tables: Tables) -> list[str]:
    """The visible lines that show a `\\|`."""
    return [line for line in unescape("".join(tables.text)).splitlines() if "\\|" in line]


def check(markdown_text: str) -> Tables:
    html = render(markdown_text)
    tables = Tables()
    tables.feed(html)
    return tables


GENERATED = {
    "reference/config.md": config_reference.markdown,
    "reference/commands.md": command_reference.markdown,
}


@pytest.mark.parametrize("uri", sorted(GENERATED))
def test_a_generated_reference_shows_no_escaped_pipe(uri: str, monkeypatch) -> None:
    monkeypatch.chdir(REPO)  # the examples are read from launch_configs/
    assert escaped_pipes(check(GENERATED[uri]())) == []


def test_the_config_reference_rows_keep_their_five_cells(monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    tables = check(config_reference.markdown())
    headers = len(config_reference.tables())  # one per table
    assert len(tables.rows) == len(config_reference.rows()) + headers
    assert set(tables.rows) == {5}
    assert ' | "' in "".join(tables.text)  # the types' unions (`"a" | "b"`), unescaped


def test_a_pipe_in_and_out_of_code_spans() -> None:
    """The generator's cell: escaped outside code spans, written as is inside them."""
    from tables import cell, code

    row = "| " + " | ".join([cell(code("a | b")), cell("x | y, `p|q`"), cell(code("t`u|v"))]) + " |"
    html = render("| 1 | 2 | 3 |\n|---|---|---|\n" + row + "\n")
    cells = ["<code>a | b</code>", "x | y, <code>p|q</code>", "<code>t`u|v</code>"]
    assert "".join(f"<td>{c}</td>\n" for c in cells) in html


PAGES = sorted(str(page.relative_to(REPO)) for page in (REPO / "docs").glob("**/*.md"))


@pytest.mark.parametrize("page", PAGES)
def test_a_page_shows_no_escaped_pipe(page: str) -> None:
    shown = escaped_pipes(check((REPO / page).read_text()))
    assert shown == [], f"{page}: in a table, write <code>a&#124;b</code> for a code span with a |"

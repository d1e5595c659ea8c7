"""Refuse YAML whose shape would exhaust the loader: alias bombs and runaway nesting.

A 1 KB file of anchors that alias each other ("billion laughs") expands to billions of values
once composed; 300 nested brackets overflow the composer's recursion. Both are found from
ruamel's event stream (a state machine: no recursion, aliases not expanded) before anything is
composed: each anchor's expanded size is counted once, each alias adds the size it stands for.
"""

from __future__ import annotations

from ruamel.yaml import YAML
from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    Event,
    ScalarEvent,
)

from sagelaunch.errors import ConfigError, Problem

# A launch config has a few hundred values and nests under ten levels; these leave room for any
# real one while keeping the composer, pydantic and the rules well inside their limits.
MAX_VALUES = 100_000
MAX_DEPTH = 100


def check_shape(text: str, label: str) -> None:
    """Raise a located ConfigError if ``text`` nests too deep or aliases expand too far."""
    open_starts: list[tuple[int, str | None]] = []  # per open collection: (values before, anchor)
    sizes: dict[str, int] = {}  # anchor -> values it expands to
    values = 0
    for event in YAML(typ="rt").parse(text):
        if isinstance(event, CollectionStartEvent):
            if len(open_starts) >= MAX_DEPTH:
                raise _refusal(label, event, f"nested more than {MAX_DEPTH} levels deep")
            open_starts.append((values, event.anchor))
            values += 1
        elif isinstance(event, CollectionEndEvent):
            before, anchor = open_starts.pop()
            if anchor:
                sizes[anchor] = values - before
        elif isinstance(event, ScalarEvent):
            values += 1
            if event.anchor:
                sizes[event.anchor] = 1
        elif isinstance(event, AliasEvent):
            values += sizes.get(event.anchor, 1)
            if values > MAX_VALUES:
                raise _refusal(label, event, _alias_message(event.anchor, sizes))


def _alias_message(anchor: str, sizes: dict[str, int]) -> str:
    return (
        f"aliases expand this document past {MAX_VALUES:,} values (*{anchor} alone stands for "
        f"{sizes.get(anchor, 1):,}): aliases of aliases multiply (a 'billion laughs' file); "
        "write the values out, or alias the anchor once"
    )


def _refusal(label: str, event: Event, message: str) -> ConfigError:
    mark = event.start_mark
    return ConfigError([Problem(label, mark.line + 1, mark.column + 1, "", message)])

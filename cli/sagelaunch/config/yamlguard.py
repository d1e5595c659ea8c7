"""Refuse YAML whose shape would exhaust the loader: alias bombs and runaway nesting.

A 1 KB file of anchors that alias each other ("billion laughs") expands to billions of values
once turned into plain data; 300 nested brackets overflow the composer's recursion. Both are
found from ruamel's event stream (a state machine: no recursion, aliases not expanded), each
event checked as the composer takes it (``ShapeGuard``; one read of the text, not a second pass
that would double the cost of a large file): each anchor's expanded size is counted once, each
alias adds the size it stands for, and the refusal comes before the composer goes a level too
deep or anything is expanded.
"""

from __future__ import annotations

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


class ShapeGuard:
    """Counts one document's events as they come: depth, and values with aliases expanded."""

    def __init__(self, label: str) -> None:
        self.label = label
        # per open collection: (values before it, its anchor)
        self.open_starts: list[tuple[int, str | None]] = []
        self.sizes: dict[str, int] = {}  # anchor -> values it expands to
        self.values = 0

    def see(self, event: Event) -> None:
        """Raise a located ConfigError when ``event`` nests too deep or expands too far."""
        if isinstance(event, CollectionStartEvent):
            if len(self.open_starts) >= MAX_DEPTH:
                raise _refusal(self.label, event, f"nested more than {MAX_DEPTH} levels deep")
            self.open_starts.append((self.values, event.anchor))
            self.values += 1
        elif isinstance(event, CollectionEndEvent):
            before, anchor = self.open_starts.pop()
            if anchor:
                self.sizes[anchor] = self.values - before
        elif isinstance(event, ScalarEvent):
            self.values += 1
            if event.anchor:
                self.sizes[event.anchor] = 1
        elif isinstance(event, AliasEvent):
            self.values += self.sizes.get(event.anchor, 1)
            if self.values > MAX_VALUES:
                raise _refusal(self.label, event, _alias_message(event.anchor, self.sizes))


def _alias_message(anchor: str, sizes: dict[str, int]) -> str:
    return (
        f"aliases expand this document past {MAX_VALUES:,} values (*{anchor} alone stands for "
        f"{sizes.get(anchor, 1):,}): aliases of aliases multiply (a 'billion laughs' file); "
        "write the values out, or alias the anchor once"
    )


def _refusal(label: str, event: Event, message: str) -> ConfigError:
    mark = event.start_mark
    return ConfigError([Problem(label, mark.line + 1, mark.column + 1, "", message)])

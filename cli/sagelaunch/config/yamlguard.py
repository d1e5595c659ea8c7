"""Refuse YAML whose shape would exhaust the loader (alias bombs, runaway nesting) or whose tags
ask for something a launch config cannot hold (Python objects, dates, bytes, sets).

A 1 KB file of anchors that alias each other ("billion laughs") expands to billions of values
once turned into plain data; 300 nested brackets overflow the composer's recursion. Both are
found from ruamel's event stream (a state machine: no recursion, aliases not expanded), each
event checked as the composer takes it (``ShapeGuard``; one read of the text, not a second pass
that would double the cost of a large file): each anchor's expanded size is counted once, each
alias adds the size it stands for, and the refusal comes before the composer goes a level too
deep or anything is expanded.

Tags are checked on the same events (``tag_refusal``), before anything is constructed: a launch
config holds plain values (strings, numbers, booleans, null, lists, mappings), so only the
core-schema tags that say one of those (``!!str 1`` is the string "1") are taken, each on a value
it fits; ``!!python/...``, a local ``!tag``, ``!!omap``, ``!!set``, ``!!binary``, ``!!timestamp``
and the rest are refused at the tag with the plain YAML to write instead.
"""

from __future__ import annotations

from collections.abc import Callable

from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    Event,
    MappingStartEvent,
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


# --- tags ----------------------------------------------------------------------------------------

CORE = "tag:yaml.org,2002:"
# The core-schema tags a plain value may carry, and the implicit types each one accepts.
_SCALAR_TAGS = {
    "str": None,  # any text
    "int": {"int"},
    "float": {"int", "float"},
    "bool": {"bool"},
    "null": {"null"},
}
_WRITTEN = {"map": "a mapping", "seq": "a list"}
_INSTEAD = {
    "omap": "write a plain mapping ({a: 1, b: 2}): its keys keep their order",
    "pairs": "write a plain mapping ({a: 1, b: 2})",
    "set": "write a list ([a, b])",
    "binary": "write the value as a quoted string (e.g. the base64 text in quotes)",
    "timestamp": "remove the tag (an unquoted date is passed as the text written, as a quoted "
    "'2024-01-01' is)",
}


def short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix(CORE) if tag.startswith(CORE) else tag


def tag_refusal(label: str, event: Event, resolve: Callable[[str], str]) -> ConfigError | None:
    """A located ConfigError when ``event`` carries a tag a launch config cannot take; ``resolve``
    gives the core-schema type a plain scalar's text would have (``"3"`` -> ``"int"``)."""
    tag = getattr(event, "tag", None)
    if tag is None or tag == "!":  # untagged, or the non-specific tag (a plain value)
        return None
    name = tag.removeprefix(CORE) if tag.startswith(CORE) else None
    shown = short_tag(tag)
    if isinstance(event, ScalarEvent) and name in _SCALAR_TAGS:
        accepted = _SCALAR_TAGS[name]
        if accepted is None or resolve(event.value) in accepted:
            return None
        message = f"{event.value!r} is not a valid {name} for the tag {shown}: fix the value or "
        message += "remove the tag"
    elif name in {*_SCALAR_TAGS, "map", "seq"}:
        kind = "map" if isinstance(event, MappingStartEvent) else "seq"
        if isinstance(event, CollectionStartEvent) and name == kind:
            return None
        written = "a single value" if isinstance(event, ScalarEvent) else _WRITTEN[kind]
        message = f"the tag {shown} does not fit {written}: remove the tag"
    elif name in _INSTEAD:
        message = f"YAML tag {shown} is not supported in a launch config: {_INSTEAD[name]}"
    elif name is not None and name.startswith("python/"):
        message = (
            f"YAML tag {shown} is refused: a launch config holds plain values and sagelaunch "
            "never constructs Python objects; remove the tag and write the value itself"
        )
    else:
        message = (
            f"unknown YAML tag {shown}: a launch config holds plain values (text, numbers, "
            "true/false, null, lists, mappings); remove the tag (quote the value to keep it "
            "as text)"
        )
    mark = event.start_mark
    return ConfigError([Problem(label, mark.line + 1, mark.column + 1, "", message)])

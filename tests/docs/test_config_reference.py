"""The generated config reference lists every key of the launch-config model, and only those;
each distribution strategy's keys on its own table, under its own heading.

The oracle walks the pydantic model's own fields (annotations), not the JSON schema the
generator reads, so a key the generator drops or invents fails here; the strategies are the
members of the `distribution` union (each with the tag the validator picks it by), and the page
is read as MkDocs renders it.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from html.parser import HTMLParser

import pytest
from pydantic import BaseModel

from sagelaunch.config.model import LaunchConfig
from tests.conftest import REPO
from tests.docs.test_rendered_tables import render

sys.path.insert(0, str(REPO / "docs" / "_gen"))
import config_reference


def _models_in(annotation: object) -> list[tuple[str, type[BaseModel]]]:
    """(suffix, model) for each model an annotation holds: directly, as list items, as values."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [("", annotation)]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, tuple, set, frozenset):
        return [("[]" + s, m) for arg in args for s, m in _models_in(arg)]
    if origin is dict:
        return [(".<name>" + s, m) for s, m in _models_in(args[-1])]
    if origin in (typing.Union, types.UnionType, typing.Annotated) or origin is not None:
        return [pair for arg in args for pair in _models_in(arg)]
    return []


def model_keys(model: type[BaseModel], prefix: str = "") -> set[str]:
    keys = set()
    for name, field in model.model_fields.items():
        path = f"{prefix}.{field.alias or name}".lstrip(".")
        keys.add(path)
        for suffix, child in _models_in(field.annotation):
            keys |= model_keys(child, path + suffix)
    return keys


def test_the_reference_lists_every_key_of_the_model() -> None:
    listed = {row["key"] for row in config_reference.rows()}
    assert listed == model_keys(LaunchConfig)


def test_every_key_has_its_description_on_the_page() -> None:
    page = config_reference.markdown()
    for row in config_reference.rows():
        assert f"| `{row['key']}` |" in page
        assert row["description"], f"{row['key']} has no description in the model"


def strategies() -> dict[str, type[BaseModel]]:
    """Each model of the `distribution` union, by the tag the validator picks it with."""
    union = LaunchConfig.model_fields["distribution"].annotation
    members = [typing.get_args(member) for member in typing.get_args(union)]
    return {tag.tag: model for model, tag in members}


@dataclasses.dataclass
class Cell:
    text: str = ""
    links: list[list[str]] = dataclasses.field(default_factory=list)  # [href, text]


class Sections(HTMLParser):
    """The rendered page's table rows (cells of <td>), by the id of the <h2> above them ("":
    before the first)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, list[list[Cell]]] = {"": []}
        self._section = ""
        self._cell: Cell | None = None
        self._link = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "h2":
            self._section = found["id"] or ""
            self.rows[self._section] = []
        elif tag == "tr":
            self.rows[self._section].append([])
        elif tag == "td":
            self._cell = Cell()
            self.rows[self._section][-1].append(self._cell)
        elif tag == "a" and self._cell is not None:
            self._cell.links.append([found["href"] or "", ""])
            self._link = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._cell = None
        elif tag == "a":
            self._link = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.text += data
            if self._link:
                self._cell.links[-1][1] += data

    def table(self, section: str) -> dict[str, list[Cell]]:
        """A section's rows by their key (the first cell)."""
        return {row[0].text: row for row in self.rows[section] if row}


@pytest.fixture(scope="module")
def page() -> Sections:
    sections = Sections()
    sections.feed(render(config_reference.markdown()))
    return sections


def test_distribution_links_each_strategy_to_its_own_table(page: Sections) -> None:
    main = page.table("")
    assert [key for key in main if key.startswith("distribution")] == ["distribution"]
    links = {text: href for href, text in main["distribution"][1].links}
    assert set(links) == set(strategies())
    for tag, href in links.items():
        assert href.startswith("#") and href[1:] in page.rows, f"{tag}: {href} leads nowhere"
        shown = page.table(href[1:])["distribution.strategy"][1].text
        assert shown == json.dumps(tag), f"{href} is the table of {shown}, not of {tag}"


@pytest.mark.parametrize("tag", sorted(strategies()))
def test_a_strategy_table_lists_its_own_keys_and_no_others(page: Sections, tag: str) -> None:
    href = next(h for h, text in page.table("")["distribution"][1].links if text == tag)
    listed = set(page.table(href[1:]))
    own = model_keys(strategies()[tag], "distribution")
    assert listed - own == set(), f"{tag}'s table lists keys of other strategies"
    assert own - listed == set(), f"{tag}'s table misses keys of its model"

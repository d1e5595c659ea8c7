"""The generated config reference lists every key of the launch-config model, and only those.

The oracle walks the pydantic model's own fields (annotations), not the JSON schema the
generator reads, so a key the generator drops or invents fails here.
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path

from pydantic import BaseModel

from sagelaunch.config.model import LaunchConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_gen"))
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

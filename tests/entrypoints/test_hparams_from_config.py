"""The entry points' option parsers are made from their config dataclasses, which own every
default and choice: parsing no arguments gives the dataclass's defaults, and a Literal's values
are exactly the choices the parser accepts."""

from __future__ import annotations

import dataclasses
import sys
import types
import typing

import pytest

from tests.conftest import REPO


@pytest.mark.parametrize(
    ("framework", "module", "config"),
    [("pytorch", "torch_hparams", "TrainConfig"), ("tensorflow", "tf_hparams", "TfConfig")],
)
def test_no_arguments_give_the_dataclass_defaults(framework, module, config, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "entrypoints" / framework))
    hparams, smenv = __import__(module), __import__("smenv")
    env = smenv.current()
    parsed = hparams.parse_args([], env)
    cls = type(parsed)
    assert cls.__name__ == config
    expected = {f.name: f.default for f in dataclasses.fields(cls)}
    assert dataclasses.asdict(parsed) == {**expected, "checkpoint_dir": env.checkpoint_dir}
    hints = typing.get_type_hints(cls)
    for action in hparams.build_parser(env)._actions:
        values = literal_values(hints.get(action.dest))
        if values is not None:
            assert tuple(action.choices) == values, action.dest
    sys.modules.pop(module, None)


def literal_values(hint: object) -> tuple[object, ...] | None:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):  # X | None
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    return typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else None

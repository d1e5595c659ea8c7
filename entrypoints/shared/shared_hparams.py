"""The hyperparameter vocabulary every entry point shares, read the way SageMaker passes it.

``--max_steps --epochs --batch_size --lr --seed --checkpoint_every`` mean the same in every script:
optimizer steps (0: run ``--epochs`` over the data), passes over the data, samples per replica per
step, learning rate, the seed for weights and data, steps between checkpoints (0: none).

SageMaker puts every hyperparameter on the command line as ``--key value``: booleans as ``True``,
strings sometimes JSON-quoted. The converters below decode all of these; bad values raise before
any work (argparse reports them through smenv.UsageError, which becomes the failure file).
``add_options`` builds a script's parser from its config dataclass, the one owner of each
option's default and choices. Standard library only (plus smenv).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import smenv


def text(raw: str) -> str:
    """A string, unwrapping SageMaker's JSON quoting ("\\"mlp\\"" -> mlp)."""
    value = smenv.decode_value(raw)
    return value if isinstance(value, str) else raw


def integer(raw: str) -> int:
    """An integer, also when SageMaker JSON-quoted it or wrote ``10.0``."""
    value = smenv.decode_value(text(raw))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(raw)  # argparse says: invalid integer value: '<raw>'
    return value


def number(raw: str) -> float:
    value = smenv.decode_value(text(raw))
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {raw!r}")
    return float(value)


def path(raw: str) -> Path:
    return Path(text(raw))


def flag(raw: str) -> bool:
    try:
        return smenv.parse_bool(text(raw))
    except smenv.UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# Help for the shared vocabulary; each script's config dataclass holds the defaults.
SHARED_HELP = {
    "max_steps": "steps (0: --epochs)",
    "epochs": "passes when --max_steps is 0",
    "batch_size": "per replica",
    "lr": "learning rate",
    "seed": "seed for weights and data",
    "checkpoint_every": "steps between checkpoints (0: none)",
}


def add_options(
    parser: argparse.ArgumentParser,
    config: type,
    help: Mapping[str, str],
    *,
    defaults: Mapping[str, object] | None = None,
    choices: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """One ``--option`` per field of the dataclass ``config``, which owns them: the field's type
    picks the decoder (a Literal's values are the choices, a bool is a flag), its default is the
    option's. ``defaults`` and ``choices`` are only for what is known at run time (a path from
    the environment, a registry of another module); ``help`` must describe every field."""
    hints = typing.get_type_hints(config)
    for field in dataclasses.fields(config):
        decode, literal = _decoder(hints[field.name])
        default = (defaults or {}).get(field.name, field.default)
        name, text_ = f"--{field.name}", {**SHARED_HELP, **help}[field.name]
        if decode is flag:  # bare `--flag` locally, `--flag True` from SageMaker
            parser.add_argument(name, type=flag, nargs="?", const=True, default=default, help=text_)
            continue
        allowed = (choices or {}).get(field.name, literal)
        parser.add_argument(name, type=decode, default=default, choices=allowed, help=text_)


def _decoder(hint: Any) -> tuple[Callable[[str], Any], tuple[str, ...] | None]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):  # X | None
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    if typing.get_origin(hint) is typing.Literal:
        return text, typing.get_args(hint)
    decoders: dict[Any, Callable[[str], Any]] = {
        bool: flag,
        int: integer,
        float: number,
        str: text,
        Path: path,
    }
    return decoders[hint], None


def check_shared(
    args: argparse.Namespace,
    *,
    at_least_one: Sequence[str] = (),
    non_negative: Sequence[str] = (),
) -> None:
    """Fail before any work on values argparse cannot judge alone: the shared ones, and the
    script's own options that must be at least 1 or must not be negative."""
    for name in ("epochs", "batch_size", *at_least_one):
        if getattr(args, name) < 1:
            raise smenv.UsageError(f"--{name} must be at least 1, got {getattr(args, name)}")
    for name in ("max_steps", "checkpoint_every", "seed", *non_negative):
        if getattr(args, name) < 0:
            raise smenv.UsageError(f"--{name} must not be negative, got {getattr(args, name)}")
    if args.lr <= 0:
        raise smenv.UsageError(f"--lr must be positive, got {args.lr}")


def parse_known(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> tuple[argparse.Namespace, list[str]]:
    """Parse, returning the unknown ``--keys`` (warned about, never fatal: SageMaker passes keys
    meant for other tools, such as the TensorFlow estimator's model_dir, alongside ours)."""
    args, unknown = parser.parse_known_args(list(argv))
    ignored = [item for item in unknown if item.startswith("--")]
    if ignored:
        print(f"warning: ignoring unknown hyperparameters: {' '.join(ignored)}", file=sys.stderr)
    return args, ignored

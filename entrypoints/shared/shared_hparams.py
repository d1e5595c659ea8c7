"""The hyperparameter vocabulary every entry point shares, read the way SageMaker passes it.

``--max_steps --epochs --batch_size --lr --seed --checkpoint_every`` mean the same in every script:
optimizer steps (0: run ``--epochs`` over the data), passes over the data, samples per replica per
step, learning rate, the seed for weights and data, steps between checkpoints (0: none).

SageMaker puts every hyperparameter on the command line as ``--key value``: booleans as ``True``,
strings sometimes JSON-quoted. The converters below decode all of these; bad values raise before
any work (argparse reports them through smenv.UsageError, which becomes the failure file).
``add_options`` builds a script's parser from its config dataclass, the one owner of each
option's default and choices. Standard library only (plus smenv).

The training toolkit writes each decoded value with ``str()`` (``mapping.to_cmd_args``): ``None``
as an empty argument (the option keeps its default: ``without_nulls``), a list as its Python
repr (``['auc', 'logloss']``), a dict as ``k=v,k=v`` with sorted keys and each value
``str()``-ed (``sm_activation_offloading=False``, nested dicts as reprs). That rendering loses
types, so a dict- or list-valued hyperparameter is read with ``structured``: the typed value from
``SM_HPS`` / ``SM_HP_<NAME>`` (JSON, exact) when the command line carries exactly its
rendering, else the command line decoded (``literal``, ``pairs``). Every entry point reads its
structured hyperparameters through it.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import math
import re
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


# ---------------------------------------------------- structured values: dicts, lists, reprs

_MISSING: Any = object()
_PYTHON_CONSTANTS = {"True": True, "False": False, "None": None}
# In a rendered dict, a comma outside brackets that precedes the next ``key=`` ends a value.
_NEXT_KEY = re.compile(r"\s*[^\s=,'\"()\[\]{}]+=")


def rendered(value: object) -> str:
    """``value`` as the toolkit's ``to_cmd_args`` writes it on the command line."""
    if value is None:
        return ""
    if isinstance(value, Mapping):
        return ",".join(f"{key}={item}" for key, item in sorted(value.items()))
    return str(value)


def literal(raw: str) -> object:
    """One rendered value: JSON (SageMaker's encoding), else the Python repr the toolkit's
    ``str()`` wrote (``True``, ``None``, ``['auc', 'logloss']``, ``{'stage': 3}``), else text."""
    try:
        return json.loads(raw)
    except ValueError:
        pass
    stripped = raw.strip()
    if stripped in _PYTHON_CONSTANTS:
        return _PYTHON_CONSTANTS[stripped]
    if stripped[:1] in ("[", "(", "{"):
        try:
            return ast.literal_eval(stripped)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
    return raw


def pairs(raw: str, name: str) -> dict[str, object]:
    """A dict as ``to_cmd_args`` renders it (``k=v,k=v``), each value decoded by ``literal``.
    Commas inside brackets or not followed by ``key=`` stay in the value; a string value that
    itself holds ``,key=`` cannot be told apart (the typed value in SM_HPS can)."""
    result: dict[str, object] = {}
    for piece in _split_pairs(raw):
        key, equals, value = piece.partition("=")
        if not equals or not key.strip():
            raise smenv.UsageError(f"--{name}: expected a JSON object or k=v,k=v, got {raw!r}")
        result[key.strip()] = literal(value)
    return result


def _split_pairs(raw: str) -> list[str]:
    pieces, start, depth, quote, escaped = [], 0, 0, "", False
    for i, char in enumerate(raw):
        if quote:  # inside a repr's quoted string: only its unescaped closing quote matters
            quote = "" if char == quote and not escaped else quote
            escaped = char == "\\" and not escaped
        elif depth and char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif char == "," and not depth and _NEXT_KEY.match(raw, i + 1):
            pieces.append(raw[start:i])
            start = i + 1
    return [*pieces, raw[start:]]


def from_environment(name: str, env: smenv.SageMakerEnv) -> Any:
    """A hyperparameter's typed value as the toolkit exports it (SM_HPS, else SM_HP_<NAME>, JSON
    for anything but a string); ``_MISSING`` when neither has it."""
    if name in env.hyperparameters:
        return env.hyperparameters[name]
    raw = env.hyperparameter_variable(name)
    return _MISSING if raw is None else smenv.decode_value(raw)


def structured(name: str, raw: str | None, env: smenv.SageMakerEnv) -> Any:
    """A hyperparameter that may hold a dict or list: the typed value from the environment when
    the command line carries exactly its rendering (or nothing), else the command line decoded
    (``literal``; ``pairs`` for ``k=v`` text). None when neither has it."""
    typed = from_environment(name, env)
    if raw is None or (typed is not _MISSING and rendered(typed) == raw):
        return None if typed is _MISSING else typed
    value = literal(raw)
    if isinstance(value, str) and _NEXT_KEY.match(value):
        return pairs(value, name)
    return value


def decode_structured(args: argparse.Namespace, config: type, env: smenv.SageMakerEnv) -> None:
    """Turn the text of ``config``'s dict-typed options into dicts (``structured``); a field
    typed ``str | dict`` keeps text that is no rendered dict as it came (a file name)."""
    hints = typing.get_type_hints(config)
    for field in dataclasses.fields(config):
        members = _members(hints[field.name])
        if dict not in members:
            continue
        raw = getattr(args, field.name)
        value = structured(field.name, raw, env)
        if value is not None and not isinstance(value, dict):
            if str not in members:
                raise smenv.UsageError(
                    f"--{field.name} must be a JSON object or k=v,k=v, got {raw!r}"
                )
            value = raw
        setattr(args, field.name, value)


def _members(hint: Any) -> tuple[Any, ...]:
    """The types a field may hold (``dict[str, Any] | None`` -> ``(dict,)``)."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    found = typing.get_args(hint) if union else (hint,)
    return tuple(typing.get_origin(t) or t for t in found if t is not type(None))


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
        decode, literal_values = _decoder(hints[field.name])
        default = (defaults or {}).get(field.name, field.default)
        name, text_ = f"--{field.name}", {**SHARED_HELP, **help}[field.name]
        if decode is flag:  # bare `--flag` locally, `--flag True` from SageMaker
            parser.add_argument(name, type=flag, nargs="?", const=True, default=default, help=text_)
            continue
        allowed = (choices or {}).get(field.name, literal_values)
        parser.add_argument(name, type=decode, default=default, choices=allowed, help=text_)


def _decoder(hint: Any) -> tuple[Callable[[str], Any], tuple[str, ...] | None]:
    if dict in _members(hint):
        return text, None  # the text, made a dict by decode_structured once the env is known
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


def without_nulls(argv: Sequence[str]) -> list[str]:
    """``argv`` less the options the toolkit wrote with an empty value: it renders a YAML null
    (and an empty string or dict) as ``--key ""``, which is to keep the option's default."""
    kept: list[str] = []
    for token in argv:
        if token == "" and kept and kept[-1].startswith("-"):
            kept.pop()
        else:
            kept.append(token)
    return kept


def parse_known(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> tuple[argparse.Namespace, list[str]]:
    """Parse, returning the unknown ``--keys`` (warned about, never fatal: SageMaker passes keys
    meant for other tools, such as the TensorFlow estimator's model_dir, alongside ours); an
    option with an empty value keeps its default (``without_nulls``)."""
    args, unknown = parser.parse_known_args(without_nulls(argv))
    ignored = [item for item in unknown if item.startswith("--")]
    if ignored:
        print(f"warning: ignoring unknown hyperparameters: {' '.join(ignored)}", file=sys.stderr)
    return args, ignored

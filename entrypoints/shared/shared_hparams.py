"""The hyperparameter vocabulary every entry point shares, read the way SageMaker passes it.

``--max_steps --epochs --batch_size --lr --seed --checkpoint_every`` mean the same in every script:
optimizer steps (0: run ``--epochs`` over the data), passes over the data, samples per replica per
step, learning rate, the seed for weights and data, steps between checkpoints (0: none).

SageMaker puts every hyperparameter on the command line as ``--key value``: booleans as ``True``,
strings sometimes JSON-quoted. The converters below decode all of these; bad values raise before
any work (argparse reports them through smenv.UsageError, which becomes the failure file).
Standard library only (plus smenv).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import smenv


def text(raw: str) -> str:
    """A string, unwrapping SageMaker's JSON quoting ("\\"mlp\\"" -> mlp)."""
    value = smenv.decode_value(raw)
    return value if isinstance(value, str) else raw


def integer(raw: str) -> int:
    value = smenv.decode_value(text(raw))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise argparse.ArgumentTypeError(f"expected an integer, got {raw!r}")
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


def add_shared(parser: argparse.ArgumentParser, *, batch_size: int, lr: float) -> None:
    """The shared options, with the script's own defaults for batch size and learning rate."""
    parser.add_argument("--max_steps", type=integer, default=0, help="steps (0: --epochs)")
    parser.add_argument("--epochs", type=integer, default=1, help="passes when --max_steps is 0")
    parser.add_argument("--batch_size", type=integer, default=batch_size, help="per replica")
    parser.add_argument("--lr", type=number, default=lr, help="learning rate")
    parser.add_argument("--seed", type=integer, default=0, help="seed for weights and data")
    parser.add_argument(
        "--checkpoint_every", type=integer, default=0, help="steps between checkpoints (0: none)"
    )


def check_shared(args: argparse.Namespace) -> None:
    """Fail before any work on shared values argparse cannot judge alone."""
    for name in ("epochs", "batch_size"):
        if getattr(args, name) < 1:
            raise smenv.UsageError(f"--{name} must be at least 1, got {getattr(args, name)}")
    for name in ("max_steps", "checkpoint_every", "seed"):
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

"""Hyperparameters of the XGBoost entry point: a few of its own, the rest are XGBoost parameters.

SageMaker passes each as ``--key value``; script-mode jobs may JSON-encode values
(``"\\"reg:squarederror\\""``), so every value goes through the shared decoders
(shared_hparams, over ``smenv.decode_value``). The toolkit writes a list as its Python repr
(``eval_metric: [auc, logloss]`` arrives as ``['auc', 'logloss']``) and a dict as ``k=v,k=v``,
so XGBoost's parameters are read with ``shared_hparams.structured`` (typed from SM_HPS when the
command line is their rendering). The XGBoost container's script mode passes the same command
line (its training.py runs the script with the toolkit's ``to_cmd_args``); its built-in algorithm
instead reads hyperparameters.json, where eval_metric is a comma-separated string.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import shared_hparams as hp
import smenv

Param = tuple[str, object]

# The container's tracker port; `sagelaunch local` hands each run a free one in this variable, so
# reruns and concurrent runs never find it in use. A tracker_port hyperparameter wins over both.
DEFAULT_TRACKER_PORT = 9099
TRACKER_PORT_VARIABLE = "SAGELAUNCH_XGBOOST_TRACKER_PORT"


def default_tracker_port() -> int:
    value = os.environ.get(TRACKER_PORT_VARIABLE, "")
    return int(value) if value.isdigit() else DEFAULT_TRACKER_PORT


@dataclass(frozen=True)
class Settings:
    """What this script does with the job, as opposed to how XGBoost boosts."""

    num_round: int
    early_stopping_rounds: int  # 0: off
    tracker_port: int
    checkpoint_every: int  # 0: off
    content_type: str | None
    params: list[Param]  # for xgboost.Booster, in order; eval_metric may repeat


def _parser() -> smenv.ArgumentParser:
    # allow_abbrev=False: with parse_known_args, "--check 1" must reach XGBoost (and fail
    # there, visibly), not silently become --checkpoint_every.
    parser = smenv.ArgumentParser(
        prog="train_xgboost.py",
        description="Train XGBoost; unknown --key value pairs are XGBoost parameters.",
        allow_abbrev=False,
    )
    parser.add_argument("--num_round", type=hp.integer, default=100, help="Boosting rounds.")
    parser.add_argument(
        "--early_stopping_rounds",
        type=hp.integer,
        default=0,
        help="Stop after N rounds without improvement of the last eval metric (0: off).",
    )
    parser.add_argument(
        "--tracker_port",
        type=hp.integer,
        default=default_tracker_port(),
        help="Port of XGBoost's tracker on the first host; training uses the next one too "
        f"(default {DEFAULT_TRACKER_PORT}, or ${TRACKER_PORT_VARIABLE}).",
    )
    parser.add_argument(
        "--checkpoint_every",
        type=hp.integer,
        default=10,
        help="Save a checkpoint every N rounds into the checkpoint dir (0: off).",
    )
    parser.add_argument(
        "--content_type",
        type=hp.text,
        default=None,
        help="text/csv, text/libsvm or application/x-parquet when the channel does not say.",
    )
    return parser


def parse_hyperparameters(argv: Sequence[str], env: smenv.SageMakerEnv | None = None) -> Settings:
    """Split the command line into this script's settings and XGBoost's parameters (``env``'s
    SM_HPS gives dict and list values their types)."""
    env = env or smenv.current()
    known, rest = _parser().parse_known_args(hp.without_nulls(argv))  # null: the default
    if known.num_round < 1:
        raise smenv.UsageError("num_round must be at least 1")
    if known.early_stopping_rounds < 0 or known.checkpoint_every < 0:
        raise smenv.UsageError("early_stopping_rounds and checkpoint_every cannot be negative")
    if not 0 < known.tracker_port < 65535:
        raise smenv.UsageError(f"tracker_port {known.tracker_port} is not a port (1-65534)")
    return Settings(
        num_round=known.num_round,
        early_stopping_rounds=known.early_stopping_rounds,
        tracker_port=known.tracker_port,
        checkpoint_every=known.checkpoint_every,
        content_type=known.content_type,
        params=[
            param
            for key, raw in _pairs(rest)
            for param in booster_params(key, hp.structured(key, raw, env))
        ],
    )


def _pairs(tokens: Sequence[str]) -> Iterator[tuple[str, str]]:
    remaining = iter(tokens)
    for token in remaining:
        if not token.startswith("--") or token == "--":
            raise smenv.UsageError(f"unexpected argument {token!r}: use --key value pairs")
        key, has_value, value = token[2:].partition("=")
        if not has_value:
            value = next(remaining, "--")
        if value.startswith("--"):
            raise smenv.UsageError(f"--{key} needs a value")
        yield key.replace("-", "_"), value


def booster_params(key: str, value: object) -> list[Param]:
    """One decoded hyperparameter as XGBoost parameters: the toolkit's ``True``/``False`` typed,
    null and empty dropped, ``eval_metric`` lists (or comma-separated names) repeated, a list of
    ``monotone_constraints`` as the tuple XGBoost reads (it refuses ``[1, -1]``), other lists
    as JSON text (XGBoost's Python layer would map their items as feature names); a dict (e.g.
    monotone_constraints by feature name) as it is, for XGBoost's Python layer to map."""
    if isinstance(value, str) and value.lower() in ("true", "false"):
        value = value.lower() == "true"  # the toolkit writes Python's True / False
    if value is None or value == "":
        return []
    if key == "eval_metric":
        names = value if isinstance(value, list | tuple) else str(value).split(",")
        return [(key, str(name).strip()) for name in names if str(name).strip()]
    if key == "monotone_constraints" and isinstance(value, list):
        return [(key, tuple(value))]
    if isinstance(value, list | tuple):
        return [(key, json.dumps(value))]  # e.g. interaction_constraints: XGBoost reads JSON
    if isinstance(value, bool):
        return [(key, str(value).lower())]
    return [(key, value)]

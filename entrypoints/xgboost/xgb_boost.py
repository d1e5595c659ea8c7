"""The boosting loop of the XGBoost entry point: rounds, eval lines, early stopping, checkpoints,
and the outputs SageMaker collects.

The loop is written out (``Booster.update`` per round) instead of calling ``xgboost.train``, because
``xgboost.train(xgb_model=...)`` counts rounds from 0 again after a resume: here the eval lines
(XGBoost's own, from ``Booster.eval_set``), early stopping and ``update`` all see the true round.
A resumed job ends with the same model as an uninterrupted one for deterministic settings;
row and column sampling (subsample, colsample_*) draw from generator state that no checkpoint
holds, so with them a resumed model is as good but not bit-identical.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import shared_outputs
import smenv
import xgb_checkpoint
import xgb_collective
import xgb_data
from xgb_hyperparameters import Settings

log = logging.getLogger("train_xgboost")

# The file name the SageMaker XGBoost containers and their inference load. Written as JSON
# (``save_raw("json")`` bytes, renamed into place) rather than with ``save_model``, which in
# XGBoost 3 picks the format from the extension this name lacks: loading a name without extension,
# 1.7 reads JSON by its content and 3.x guesses JSON, so JSON is the one format both load.
MODEL_FILE = "xgboost-model"

# xgboost.callback.EarlyStopping's rule for which metrics grow when they improve.
_MAXIMIZED = ("auc", "aucpr", "pre", "pre@", "map", "ndcg", "auc@", "aucpr@", "map@", "ndcg@")


def parse_metrics(line: str) -> dict[str, float]:
    """``[3]\\ttrain-rmse:0.31\\tvalidation-rmse:0.35`` → {"train-rmse": 0.31, ...}, in order."""
    pairs = (item.rsplit(":", 1) for item in line.strip().split("\t")[1:])
    return {name: float(value) for name, value in pairs}


@dataclass(frozen=True)
class EarlyStopping:
    """XGBoost's early stopping on the last metric of the last eval set. Its state lives in the
    booster's ``best_iteration`` / ``best_score`` attributes, as xgboost.callback.EarlyStopping
    keeps it: a checkpoint carries it, and a resumed job stops where an uninterrupted one would.
    """

    rounds: int

    def update(self, booster: Any, round_: int, metrics: dict[str, float]) -> bool:
        """Record this round's score; True when training should stop."""
        name, score = list(metrics.items())[-1]
        best = booster.attr("best_score")
        if best is None or _improved(name.split("-", 1)[-1], score, float(best)):
            booster.set_attr(best_score=str(score), best_iteration=str(round_))
        return self.done(booster, round_)

    def done(self, booster: Any, round_: int) -> bool:
        best = booster.attr("best_iteration")
        return best is not None and round_ - int(best) >= self.rounds


def _improved(metric: str, score: float, best: float) -> bool:
    maximize = metric != "mape" and metric.startswith(_MAXIMIZED)
    return score > best if maximize else score < best


def train(
    env: smenv.SageMakerEnv,
    settings: Settings,
    train_set: xgb_data.Dataset | None,
    validation_set: xgb_data.Dataset | None,
    hosts: list[str],
    *,
    distributed: bool,
    is_master: bool = True,
) -> None:
    """Boost ``settings.num_round`` rounds from the newest checkpoint; the master saves.
    Inside a collective every host runs this with its own shard."""
    import xgboost as xgb

    assert train_set is not None
    dtrain = xgb.DMatrix(train_set.features, label=train_set.labels)
    evals = [(dtrain, "train")]
    if validation_set is not None:
        evals.append(
            (xgb.DMatrix(validation_set.features, label=validation_set.labels), "validation")
        )
    resumed = _resume_point(env, is_master=is_master, distributed=distributed)
    model = bytearray(resumed[1]) if resumed else None
    booster = xgb.Booster(settings.params, [d for d, _ in evals], model_file=model)
    start = booster.num_boosted_rounds()
    if resumed:
        log.info("resuming after round %d from %s", start, env.checkpoint_dir)
    if start > settings.num_round:
        log.warning(
            "the checkpoint has %d rounds, more than num_round %d", start, settings.num_round
        )
    save = _checkpointer(env, settings) if is_master else None
    _boost(booster, dtrain, evals, settings, start, save, echo=is_master)
    final = parse_metrics(booster.eval_set(evals, booster.num_boosted_rounds() - 1))
    if is_master:
        _save_outputs(env, booster, final, hosts, resumed_from=start if resumed else None)


def _boost(
    booster: Any,
    dtrain: Any,
    evals: list[tuple[Any, str]],
    settings: Settings,
    start: int,
    save: Callable[[Any, int], None] | None,
    *,
    echo: bool,
) -> None:
    stopper = (
        EarlyStopping(settings.early_stopping_rounds) if settings.early_stopping_rounds else None
    )
    if stopper is not None and start and stopper.done(booster, start - 1):
        return  # the checkpoint was taken after early stopping had already ended the job
    for round_ in range(start, settings.num_round):
        booster.update(dtrain, round_)
        line = booster.eval_set(evals, round_)
        if echo:
            print(line, flush=True)
        stop = stopper is not None and stopper.update(booster, round_, parse_metrics(line))
        if save is not None:
            save(booster, round_ + 1)
        if stop:
            log.info("early stopping: best round %s", booster.attr("best_iteration"))
            return


def _checkpointer(env: smenv.SageMakerEnv, settings: Settings) -> Callable[[Any, int], None]:
    every, directory = settings.checkpoint_every, env.checkpoint_dir

    def save(booster: Any, rounds: int) -> None:
        if every and rounds % every == 0:
            xgb_checkpoint.save(directory, rounds, bytes(booster.save_raw("json")))

    return save


def _resume_point(
    env: smenv.SageMakerEnv, *, is_master: bool, distributed: bool
) -> tuple[int, bytes] | None:
    # Only the master reads the checkpoint dir and sends what it found, so every host starts
    # from the same model even when their local copies differ.
    found = xgb_checkpoint.latest(env.checkpoint_dir) if is_master else None
    return xgb_collective.broadcast(found, root=0) if distributed else found


def _save_outputs(
    env: smenv.SageMakerEnv,
    booster: Any,
    final: dict[str, float],
    hosts: list[str],
    resumed_from: int | None,
) -> None:
    import xgboost as xgb

    shared_outputs.atomic_write_bytes(env.model_dir / MODEL_FILE, bytes(booster.save_raw("json")))
    best = booster.attr("best_iteration")
    record = {
        "rounds": booster.num_boosted_rounds(),
        "metrics": final,
        "best_iteration": int(best) if best is not None else None,
        "hosts": hosts,
        "resumed_from_round": resumed_from,
        "xgboost_version": xgb.__version__,
    }
    metrics = shared_outputs.write_metrics(env.output_data_dir, record)
    log.info("saved %s and %s", env.model_dir / MODEL_FILE, metrics)

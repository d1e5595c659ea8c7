"""train_xgboost.py's early stopping (xgb_boost.EarlyStopping, its own boosting loop) stops at the
round ``xgboost.train(..., early_stopping_rounds=N)`` stops at, with the same best iteration, on
data where it does stop: noisy labels, a small training set, many rounds; ties are not
improvements. A job resumed from a checkpoint taken while it was waiting stops at that round too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.entrypoints.conftest_xgb import Host, regression, write_csv
from tests.entrypoints.test_train_xgboost import entrypoints, run_main  # noqa: F401 (fixtures)

PATIENCE = 3
NUM_ROUND = 200
PARAMS = {"max_depth": 6, "eta": 0.5, "nthread": 1, "seed": 0, "tree_method": "hist"}

# name -> (objective, eval_metric, data seed): a minimised metric and a maximised one, each also
# with a tie (xgboost counts only a strict improvement). With these seeds the error case scores
# its best round's error again the round after, and auc-tie its fourth round's auc two rounds
# later: taking a tie as an improvement would move the best round there and stop later.
CASES = {
    "rmse": ("reg:squarederror", "rmse", 7),
    "error": ("binary:logistic", "error", 10),
    "auc": ("binary:logistic", "auc", 7),
    "auc-tie": ("binary:logistic", "auc", 14),
}
TIES = ("error", "auc-tie")


def _data(objective: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """150 training rows, 100 validation rows; the labels mostly noise, so boosting overfits
    within a few rounds and the validation metric stops improving."""
    x, y = regression(250, seed=seed)
    rng = np.random.default_rng(seed)
    y = y + rng.normal(0, 2.0, size=y.shape).astype(np.float32)
    if objective.startswith("binary"):
        y = (y > np.median(y)).astype(np.float32)
    return x[:150], y[:150], x[150:], y[150:]


def _xgboost_train(data, objective: str, metric: str):
    """xgboost.train's own early stopping on the same data, params and eval sets."""
    import xgboost as xgb

    x_train, y_train, x_val, y_val = data
    dtrain = xgb.DMatrix(x_train, label=y_train)
    dval = xgb.DMatrix(x_val, label=y_val)
    history: dict = {}
    booster = xgb.train(
        {**PARAMS, "objective": objective, "eval_metric": metric},
        dtrain,
        num_boost_round=NUM_ROUND,
        evals=[(dtrain, "train"), (dval, "validation")],
        early_stopping_rounds=PATIENCE,
        evals_result=history,
        verbose_eval=False,
    )
    return booster, history["validation"][metric]


def _job(tmp_path: Path, data) -> Host:
    x_train, y_train, x_val, y_val = data
    train = write_csv(tmp_path / "data" / "train" / "t.csv", x_train, y_train).parent
    validation = write_csv(tmp_path / "data" / "validation" / "v.csv", x_val, y_val).parent
    return Host(tmp_path / "job", train, validation)


def _args(objective: str, metric: str, checkpoint_every: int = 0) -> list[str]:
    args = ["--num_round", str(NUM_ROUND), "--early_stopping_rounds", str(PATIENCE)]
    args += ["--objective", objective, "--eval_metric", metric]
    args += ["--checkpoint_every", str(checkpoint_every)]
    return args + [item for key, value in PARAMS.items() for item in (f"--{key}", str(value))]


@pytest.mark.parametrize("case", list(CASES))
def test_early_stopping_stops_where_xgboost_train_stops(tmp_path: Path, run_main, case):  # noqa: F811
    objective, metric, seed = CASES[case]
    data = _data(objective, seed)
    reference, scores = _xgboost_train(data, objective, metric)
    trained = reference.num_boosted_rounds()
    # Not vacuous: xgboost stopped early, PATIENCE rounds after its best one.
    assert trained < NUM_ROUND and trained == reference.best_iteration + PATIENCE + 1
    assert reference.best_iteration > 0  # it improved at least once
    if case in TIES:  # a tie case only if a later round scores what was then the best score
        best_of = max if metric == "auc" else min
        assert any(score == best_of(scores[:i]) for i, score in enumerate(scores) if i), scores

    host = _job(tmp_path, data)
    status, out, err = run_main(host, *_args(objective, metric))

    assert status == 0, err
    metrics = host.metrics()
    assert (metrics["rounds"], metrics["best_iteration"]) == (trained, reference.best_iteration)
    last = out.strip().splitlines()[-1]
    assert last.startswith(f"[{trained - 1}]\t"), last  # no eval line after the stopping round
    model = json.loads(host.model())["learner"]["gradient_booster"]["model"]
    assert int(model["gbtree_model_param"]["num_trees"]) == trained
    assert metrics["metrics"][f"validation-{metric}"] == pytest.approx(scores[-1], rel=1e-5)


def test_a_job_resumed_while_waiting_stops_at_the_same_round(tmp_path: Path, run_main):  # noqa: F811
    """Checkpoints every round. Restarted from the one two rounds after its best round (the best
    round kept in the booster's attributes), the job goes on at the true round and stops where
    the whole job stopped; restarted from the one taken at the stopping round, it trains no
    more."""
    objective, metric, seed = CASES["rmse"]
    data = _data(objective, seed)
    whole = _job(tmp_path / "whole", data)
    status, _, err = run_main(whole, *_args(objective, metric, checkpoint_every=1))
    assert status == 0, err
    rounds, best = whole.metrics()["rounds"], whole.metrics()["best_iteration"]
    assert rounds == best + PATIENCE + 1 < NUM_ROUND

    resumed = _job(tmp_path / "resumed", data)
    resumed.checkpoint_dir.mkdir(parents=True)
    kept = whole.checkpoint_dir / f"xgboost-checkpoint.{best + 2:06d}.json"
    shutil.copy(kept, resumed.checkpoint_dir)
    status, out, err = run_main(resumed, *_args(objective, metric, checkpoint_every=1))

    assert status == 0, err
    assert resumed.metrics()["resumed_from_round"] == best + 2
    assert out.strip().splitlines()[0].startswith(f"[{best + 2}]\t")
    assert (resumed.metrics()["rounds"], resumed.metrics()["best_iteration"]) == (rounds, best)
    assert resumed.model() == whole.model()

    finished = _job(tmp_path / "finished", data)
    finished.checkpoint_dir.mkdir(parents=True)
    shutil.copy(
        whole.checkpoint_dir / f"xgboost-checkpoint.{rounds:06d}.json", finished.checkpoint_dir
    )
    status, out, err = run_main(finished, *_args(objective, metric, checkpoint_every=1))

    assert status == 0, err  # the checkpoint taken at the stopping round: nothing more to train
    assert not out.strip(), out
    assert finished.model() == whole.model()

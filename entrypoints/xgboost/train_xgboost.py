"""Train XGBoost in SageMaker script mode (containers 1.7-1 and 3.0-5) or locally.

    python train_xgboost.py --num_round 100 --objective reg:squarederror --max_depth 6

Reads the ``train`` channel and the optional ``validation`` channel (CSV, libsvm or parquet, label
first); every hyperparameter not defined here goes to XGBoost as a parameter. With several hosts it
does what the SageMaker container's ``rabit_run`` does: the first host runs XGBoost's tracker, all
hosts agree on which of them got data, hosts without data leave with exit 0, and the rest train
together on the tracker port + 1. The master (the first host with data) prints XGBoost's eval lines,
writes the checkpoints, ``xgboost-model`` and ``metrics.json``.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import smenv
import xgb_collective
import xgb_data
from xgb_boost import train
from xgb_hyperparameters import Settings, parse_hyperparameters

log = logging.getLogger("train_xgboost")


@dataclass(frozen=True)
class Inputs:
    """What this host read from its channels."""

    train: xgb_data.Dataset | None
    validation: xgb_data.Dataset | None
    validation_channel: bool

    @property
    def usable(self) -> bool:
        """As in the container: a host trains only with training data and, when the job has a
        validation channel, validation data too (evaluation is a collective step)."""
        return self.train is not None and (
            self.validation is not None or not self.validation_channel
        )

    @property
    def num_features(self) -> int:
        return max(d.num_features for d in (self.train, self.validation) if d is not None)

    def widened(self, num_features: int) -> Inputs:
        train = self.train.widened(num_features) if self.train else None
        validation = self.validation.widened(num_features) if self.validation else None
        return Inputs(train, validation, self.validation_channel)


def load_inputs(env: smenv.SageMakerEnv, settings: Settings) -> Inputs:
    """Read the train and validation channels; ContentType of the channel, else --content_type,
    else each file's extension decides the format."""
    train_dir = env.channel("train")
    if train_dir is None:
        raise smenv.UsageError("no 'train' channel: SM_CHANNEL_TRAIN is not set")
    validation_dir = env.channel("validation")

    def read(name: str, root: Path) -> xgb_data.Dataset | None:
        content_type = env.content_type(name) or settings.content_type
        dataset = xgb_data.read_channel(root, content_type)
        if dataset is None:
            log.info("channel %s: no rows in %s", name, root)
        return dataset

    return Inputs(
        train=read("train", train_dir),
        validation=read("validation", validation_dir) if validation_dir else None,
        validation_channel=validation_dir is not None,
    )


@dataclass(frozen=True)
class Agreement:
    """What the hosts told each other in the first round (indices into SM_HOSTS)."""

    with_data: list[int]
    failed: list[int]
    num_features: int
    widths_differ: bool  # dense data of different widths: a shard with a missing column

    @staticmethod
    def report(index: int, n_hosts: int, inputs: Inputs | None) -> np.ndarray:
        """This host's part: reduced by element-wise max, so flags are one-hot per host and
        the minimum width travels negated."""
        report = np.zeros(2 * n_hosts + 3, dtype=np.int64)
        report[-1] = np.iinfo(np.int64).min  # -min(width): hosts without data must not count
        if inputs is None:
            report[n_hosts + index] = 1
        elif inputs.usable:
            report[index] = 1
            dense = not any(d.sparse for d in (inputs.train, inputs.validation) if d)
            report[-3:] = [int(dense), inputs.num_features, -inputs.num_features]
        return report

    @classmethod
    def from_reports(cls, reduced: np.ndarray, n_hosts: int) -> Agreement:
        dense, widest, narrowest = int(reduced[-3]), int(reduced[-2]), -int(reduced[-1])
        return cls(
            with_data=[int(i) for i in np.flatnonzero(reduced[:n_hosts])],
            failed=[int(i) for i in np.flatnonzero(reduced[n_hosts : 2 * n_hosts])],
            num_features=widest,
            widths_differ=bool(dense) and widest != narrowest,
        )

    def problem(self, hosts: list[str]) -> str | None:
        """Why the job cannot go on, or None; every host reaches the same answer."""
        if self.failed:
            names = [hosts[i] for i in self.failed]
            return f"hosts {names} could not read their data (see their logs)"
        if not self.with_data:
            return "no host received training data"
        if self.widths_differ:
            return f"hosts' data disagree on the number of features (up to {self.num_features})"
        return None


def run_single(env: smenv.SageMakerEnv, settings: Settings) -> int:
    inputs = load_inputs(env, settings)
    if not inputs.usable:
        missing = "validation" if inputs.train is not None else "training"
        raise smenv.UsageError(f"no {missing} data: the channel has no rows")
    usable = inputs.widened(inputs.num_features)
    train(env, settings, usable.train, usable.validation, [env.current_host], distributed=False)
    return 0


def run_cluster(env: smenv.SageMakerEnv, settings: Settings) -> int:
    """Two rounds on XGBoost's collective, like the container's ``rabit_run``: agree on who has
    data, then train together (tracker port + 1) with only those hosts."""
    hosts, index = env.hosts, env.host_rank
    tracker_ip = xgb_collective.resolve(env.environ.get("MASTER_ADDR") or hosts[0])
    port = settings.tracker_port
    with contextlib.ExitStack() as trackers:  # the first host serves both rounds' trackers
        if index == 0:
            # Listen before reading data, so other hosts find the tracker on their first try.
            trackers.enter_context(xgb_collective.Tracker(tracker_ip, port, len(hosts)))
        inputs, error = _try_load(env, settings)
        with xgb_collective.joined(tracker_ip, port, index):
            reduced = xgb_collective.allreduce_max(Agreement.report(index, len(hosts), inputs))
            agreement = Agreement.from_reports(reduced, len(hosts))
            trainers = agreement.with_data
            if index == 0 and agreement.problem(hosts) is None and len(trainers) > 1:
                trackers.enter_context(xgb_collective.Tracker(tracker_ip, port + 1, len(trainers)))
            xgb_collective.allreduce_max(np.zeros(1))  # nobody joins round two before it listens
        if error is not None:
            raise error
        problem = agreement.problem(hosts)
        if problem is not None:
            raise smenv.UsageError(problem)
        names = [hosts[i] for i in trainers]
        if index not in trainers:
            log.warning(
                "host %s got no training data (ShardedByS3Key with fewer files than hosts?); "
                "it leaves the job and %s train without it",
                env.current_host,
                names,
            )
            return 0
        assert inputs is not None  # a host whose read failed is in agreement.failed
        _train_with(env, settings, inputs.widened(agreement.num_features), names, tracker_ip)
    return 0


def _train_with(
    env: smenv.SageMakerEnv, settings: Settings, inputs: Inputs, names: list[str], tracker_ip: str
) -> None:
    """Round two: train with the other hosts that have data (alone when there are none)."""
    data = (inputs.train, inputs.validation)
    if len(names) == 1:
        train(env, settings, *data, names, distributed=False)
        return
    rank = names.index(env.current_host)
    with xgb_collective.joined(tracker_ip, settings.tracker_port + 1, rank):
        train(env, settings, *data, names, distributed=True, is_master=rank == 0)


def _try_load(
    env: smenv.SageMakerEnv, settings: Settings
) -> tuple[Inputs | None, smenv.UsageError | None]:
    # A host with bad data still joins the first round, so that every host learns of it and
    # stops, instead of the others waiting on the tracker for a host that already quit.
    try:
        return load_inputs(env, settings), None
    except smenv.UsageError as exc:
        return None, exc


def main(argv: Sequence[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    env = smenv.current()
    settings = parse_hyperparameters(argv, env)
    if env.current_host not in env.hosts:
        raise smenv.UsageError(
            f"SM_CURRENT_HOST {env.current_host!r} is not in SM_HOSTS {env.hosts}"
        )
    if len(env.hosts) == 1:
        return run_single(env, settings)
    return run_cluster(env, settings)


if __name__ == "__main__":
    sys.exit(smenv.run(main))

"""train_xgboost.py on two hosts (processes on loopback, one shard each) next to one host with all
the data: wall time and validation RMSE, measured side by side in one run.

Each host gets one thread, so "two hosts" means twice the cores, as two instances would. Times are
whole jobs (interpreter start, reading CSV, tracker rounds, boosting, saving), medians of
alternating runs so drift hits both alike. On a machine with fewer than two idle cores the two
hosts share them and the speedup falls below 1; the output carries the core count and load.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script, too

from sagelaunch.local.ports import free_port_pair
from tests.entrypoints.conftest_xgb import (
    Host,
    assert_ok,
    cluster,
    load_booster,
    regression,
    rmse,
    run_hosts,
    write_csv,
    write_csv_shards,
)

ROWS, FEATURES, FILES, REPEATS, ROUNDS = 100_000, 20, 4, 3, 60
ARGS = [
    *("--num_round", str(ROUNDS), "--max_depth", "8", "--eta", "0.2", "--nthread", "1"),
    *("--tree_method", "hist", "--seed", "0", "--checkpoint_every", "0"),
]


def _prepare(root: Path) -> tuple[Path, Path, list[Path], tuple]:
    x, y = regression(ROWS + 10_000, features=FEATURES)
    train = root / "train"
    files = write_csv_shards(train, x[:ROWS], y[:ROWS], FILES)
    validation = write_csv(root / "validation" / "v.csv", x[ROWS:], y[ROWS:]).parent
    shards = []
    for i in range(2):  # ShardedByS3Key over two hosts
        shard = root / f"shard-{i}"
        shard.mkdir()
        for path in files[i::2]:
            shutil.copy(path, shard)
        shards.append(shard)
    return train, validation, shards, (x[ROWS:], y[ROWS:])


def _timed(hosts: list[Host], args: list[str]) -> float:
    start = time.perf_counter()
    assert_ok(run_hosts(hosts, args, timeout=60))
    return time.perf_counter() - start


def run() -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-xgb-") as tmp:
        root = Path(tmp)
        train, validation, shards, (x_val, y_val) = _prepare(root)
        times: dict[str, list[float]] = {"one_host": [], "two_hosts": []}
        for repeat in range(REPEATS):
            single = [Host(root / f"single-{repeat}", train, validation)]
            times["one_host"].append(_timed(single, ARGS))
            pair = cluster(root / f"pair-{repeat}", shards, validation)
            times["two_hosts"].append(
                _timed(pair, [*ARGS, "--tracker_port", str(free_port_pair())])
            )
        one, two = (statistics.median(times[k]) for k in ("one_host", "two_hosts"))
        one_rmse = rmse(load_booster(single[0].model_path), x_val, y_val)
        two_rmse = rmse(load_booster(pair[0].model_path), x_val, y_val)
        return {
            "rows": ROWS,
            "features": FEATURES,
            "rounds": ROUNDS,
            "one_host_s": round(one, 2),
            "two_hosts_s": round(two, 2),
            "speedup": round(one / two, 2),
            "one_host_validation_rmse": round(one_rmse, 5),
            "two_hosts_validation_rmse": round(two_rmse, 5),
            "rmse_ratio": round(two_rmse / one_rmse, 4),
            "repeats": REPEATS,
            # Two hosts need two free cores to gain anything: read the speedup against these.
            "cpus": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 2),
        }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))

"""`recommend`'s memory model against PyTorch's memory trackers, its roofline step time against
RuntimeEstimator, and its step time and memory against published measured throughputs
(tests/recommend/calibration.py): every oracle cell, the largest sizes included (1.3B to 70B,
which leave `make test` for time), as a size × layout × category table of model / tracker
ratios.

A ratio drifting away from 1.00 flags a change to the memory model or to the entry point's
layouts that the other moved without. A cell outside 10% (or above its documented margin in
oracle.MARGINS) fails the bench, as it would fail tests/recommend/test_oracle.py.
"""

from __future__ import annotations

import sys

from tests.recommend import calibration
from tests.recommend.oracle import (
    COMPARED,
    FAST,
    FAST_TIMED,
    LARGE,
    LARGE_TIMED,
    breaches,
    measure,
    runtime,
    table,
    time_breaches,
)


def run() -> dict:
    results = measure([*FAST, *LARGE])
    print(table(results), file=sys.stderr, flush=True)
    times = runtime(FAST_TIMED, "ml.p5.48xlarge") + runtime(LARGE_TIMED, "ml.p4d.24xlarge")
    for res in times:
        ratios = ", ".join(f"{what} {ratio:.2f}x" for what, ratio in res.ratios.items())
        print(f"{res.cell.name}: {ratios}", file=sys.stderr, flush=True)
    failed = [line for res in results for line in breaches(res)] + time_breaches(times)
    assert not failed, "outside the oracle's tolerance:\n" + "\n".join(failed)
    checks = [calibration.check(row) for row in calibration.rows()]
    print(calibration.table(checks), file=sys.stderr, flush=True)
    world = calibration.summarize(checks)
    ratios = [res.ratios[cat] for res in results for cat in COMPARED]
    return {
        "cells": {res.cell.name: {c: round(res.ratios[c], 3) for c in COMPARED} for res in results},
        "memory_ratio_min": round(min(ratios), 3),
        "memory_ratio_max": round(max(ratios), 3),
        "measured_throughput": {
            "rows": world.rows,
            "within_25": world.within_25,
            "median_error": round(world.median_error, 3),
            "median_ratio": round(world.median_ratio, 3),
            "does_not_fit": world.does_not_fit,
        },
        "roofline": {
            res.cell.name: {k: round(v, 3) for k, v in res.ratios.items()} for res in times
        },
    }

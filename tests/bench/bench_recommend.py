"""`recommend`'s memory model against PyTorch's memory trackers, and its roofline step time
against RuntimeEstimator: every oracle cell of tests/recommend/test_oracle.py, the largest ones
included, as a size × layout × category table of model / tracker ratios.

A ratio drifting away from 1.00 flags a change to the memory model or to the entry point's
layouts that the other moved without; the cells beyond 10% are listed with their cause in
test_oracle.MARGINS.
"""

from __future__ import annotations

import sys

from tests.recommend.oracle import COMPARED, measure, runtime, table
from tests.recommend.test_oracle import FAST, FAST_TIMED, SLOW, SLOW_TIMED


def run() -> dict:
    results = measure([*FAST, *SLOW])
    print(table(results), file=sys.stderr, flush=True)
    times = runtime([*FAST_TIMED, *SLOW_TIMED], "ml.p5.48xlarge")
    for res in times:
        ratios = ", ".join(f"{what} {ratio:.2f}x" for what, ratio in res.ratios.items())
        print(f"{res.cell.name} on ml.p5.48xlarge: {ratios}", file=sys.stderr, flush=True)
    ratios = [res.ratios[cat] for res in results for cat in COMPARED]
    return {
        "cells": {res.cell.name: {c: round(res.ratios[c], 3) for c in COMPARED} for res in results},
        "memory_ratio_min": round(min(ratios), 3),
        "memory_ratio_max": round(max(ratios), 3),
        "roofline": {
            res.cell.name: {k: round(v, 3) for k, v in res.ratios.items()} for res in times
        },
    }

"""`make bench`: every benchmark in one run, ratios measured side by side on this machine."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

BENCHES = [
    "bench_cli",
    "bench_plan",
    "bench_pytorch",
    "bench_layouts",
    "bench_xgboost",
    "bench_local",
    "bench_submit",
]


def main(selected: list[str]) -> int:
    results = {}
    for name in selected or BENCHES:
        try:
            module = importlib.import_module(f"tests.bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"tests.bench.{name}":
                raise
            continue
        print(f"== {name}", file=sys.stderr, flush=True)
        results[name] = module.run()
        print(json.dumps(results[name], indent=2), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

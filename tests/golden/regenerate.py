"""`make golden`: rewrite tests/golden/<config>.json from the current code (review the diff!).

The volatile parts are passed in, not patched: a fixed job name and a bundle built from the small
fixed source tree in tests/golden/source/, so only a real change to what goes to AWS shows up.
"""

from __future__ import annotations

import json
from pathlib import Path

from sagelaunch import bundle
from sagelaunch.checks.validation import load_valid
from sagelaunch.plan_model import Plan
from sagelaunch.services.planning import build_plan
from tests.paths import REPO

GOLDEN = Path(__file__).resolve().parent
EXAMPLES = REPO / "launch_configs"
JOB_NAME = "golden-job-2026-01-01-00-00-00-000"
ROLE = "arn:aws:iam::111122223333:role/SageMakerRole"


def planned(config: Path) -> Plan:
    """The plan of ``config`` with the volatile parts fixed: the job name, and the bundle of
    tests/golden/source/ (none for a built-in algorithm)."""
    loaded, warnings = load_valid(config)
    code = None if loaded.config.is_builtin_algorithm else bundle.build(GOLDEN / "source")
    return build_plan(
        loaded, job_name=JOB_NAME, region="us-east-1", role=ROLE, bundle=code, warnings=warnings
    )


def golden_plan(config: Path) -> dict:
    return planned(config).as_json()


def unordered(request: dict) -> dict:
    """``request`` with the one list whose order is not the request's meaning sorted: the SDK
    gathers the debugger hook's CollectionConfigurations in a set (order varies per process)."""
    hook = request.get("DebugHookConfig")
    if not hook or "CollectionConfigurations" not in hook:
        return request
    ordered = sorted(hook["CollectionConfigurations"], key=lambda c: json.dumps(c, sort_keys=True))
    return {**request, "DebugHookConfig": {**hook, "CollectionConfigurations": ordered}}


def text(plan: dict) -> str:
    plan = {**plan, "request": unordered(plan["request"])}
    # Warnings name the config file: keep goldens free of this checkout's absolute path.
    return json.dumps(plan, indent=2, sort_keys=True).replace(f"{EXAMPLES.parent}/", "") + "\n"


def main() -> None:
    for config in sorted(EXAMPLES.glob("*.yaml")):
        (GOLDEN / f"{config.stem}.json").write_text(text(golden_plan(config)))
        print(f"wrote tests/golden/{config.stem}.json")


if __name__ == "__main__":
    main()

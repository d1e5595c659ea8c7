"""A sweep's trials, planned: every trial expanded and checked (config.validation.expand), then
planned through the plan service (cache included), one code bundle per distinct source folder.
A trial's job name is `naming.idempotent(sweep name, key + the trial's parameters, its request)`,
so the same key and config give the same names on every rerun. `sweep --dry-run` stops here;
sweeps/scheduler.py runs the planned trials."""

from __future__ import annotations

import json
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sagelaunch import bundle as bundles
from sagelaunch import naming
from sagelaunch.config.trials import SweepSpec, Trial
from sagelaunch.config.validation import expand
from sagelaunch.errors import UsageError
from sagelaunch.plan_model import Plan
from sagelaunch.services import planning


@dataclass(frozen=True)
class TrialPlan:
    trial: Trial
    plan: Plan
    bundle: bundles.BundleData | None  # the bundle's file (bytes in tests)
    code: bundles.Bundle | None = None  # what `bundle` came from (a failover attempt reuses it)


@dataclass(frozen=True)
class PlannedSweep:
    spec: SweepSpec
    key: str
    key_given: bool  # names may already exist (a rerun): describe before creating
    trials: list[TrialPlan]

    @property
    def name(self) -> str:
        return self.spec.base.config.name


def plan_trials(
    config: Path,
    overrides: list[str] | None,
    region: str | None,
    key: str | None,
    progress: planning.Progress = nullcontext,
    cache_dir: Path | None = None,
) -> PlannedSweep:
    """Expand, check and plan every trial; name each after the key and its parameters."""
    spec = expand(config, overrides)
    regions = sorted({planning.resolve_region(trial.loaded, region) for trial in spec.trials})
    if len(regions) > 1:  # one set of clients, one place to look for the trials
        raise UsageError(
            f"the trials of a sweep run in one region, not {', '.join(regions)}",
            hint="sweep each region separately (--set region=...)",
        )
    sweep_key = key or f"run-{datetime.now(timezone.utc):%Y%m%dT%H%M%S.%f}"
    built: dict[tuple[Path, str | None], bundles.Bundle] = {}
    planned = []
    for trial in spec.trials:
        loaded = trial.loaded
        code = None
        if not loaded.config.is_builtin_algorithm:
            code_key = (loaded.source_dir, loaded.config.entry_point)  # a script may go alone
            if code_key not in built:
                built[code_key] = bundles.for_config(loaded)
            code = built[code_key]
        plan = planning.planned(
            loaded,
            job_name=naming.job_name_for(loaded.config),
            region=planning.resolve_region(loaded, region),
            role=planning.resolve_role(loaded),
            code=code,
            warnings=trial.warnings,
            code_in_key=True,
            progress=progress,
            cache_dir=cache_dir,
        )
        name = trial_job_name(spec.base.config.name, sweep_key, trial, plan.request)
        plan = planning.with_code_warnings(plan, code)
        planned.append(TrialPlan(trial, plan.renamed(name), code, code))
    return PlannedSweep(spec, sweep_key, key is not None, planned)


def trial_job_name(sweep_name: str, key: str, trial: Trial, request: dict[str, Any]) -> str:
    """Same sweep, key, parameters and request -> the same job name (naming.idempotent)."""
    parameters = json.dumps(trial.parameters, sort_keys=True, default=str)
    return naming.idempotent(sweep_name, f"{key}\n{parameters}", request)

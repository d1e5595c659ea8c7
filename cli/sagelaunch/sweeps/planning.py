"""A sweep's trials, planned: every trial expanded and checked (checks.validation.expand), then
planned through the plan service (cache included), one code bundle per distinct source folder.
A trial's job name is `naming.idempotent(sweep name, key + the trial's parameters, its request)`,
so the same key and config give the same names on every rerun. sweeps/scheduler.py runs the
planned trials: never more than sweep.max_trials, a larger sweep being refused as it loads.

`sweep --dry-run` streams (`stream_trials`): the trials are built and checked one at a time, then
planned one at a time, so the first shows at once however large the sweep."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch import bundle as bundles
from sagelaunch import naming
from sagelaunch.checks.trials import SweepSpec, Trial, iter_trials, with_overrides
from sagelaunch.checks.validation import expand, sweep_base
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.sweep import Sweep
from sagelaunch.errors import ConfigError, Problem, UsageError
from sagelaunch.plan_model import Plan
from sagelaunch.services import planning

if TYPE_CHECKING:
    from sagelaunch.config.model import Fallback


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
    _one_region({planning.resolve_region(trial.loaded, region) for trial in spec.trials})
    sweep_key = _sweep_key(key)
    planned = list(
        plan_each(spec.base.config.name, spec.trials, region, sweep_key, progress, cache_dir)
    )
    return PlannedSweep(spec, sweep_key, key is not None, planned)


@dataclass
class SweepStream:
    """A sweep built, checked and planned one trial at a time, as its reader asks for them
    (`sweep --dry-run`): `trials()` then `plans(those trials)`."""

    base: LoadedConfig
    overrides: list[str] | None
    region: str | None
    key: str
    key_given: bool
    cache_dir: Path | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.base.config.name

    @property
    def sweep(self) -> Sweep:
        assert self.base.config.sweep is not None
        return self.base.config.sweep

    def trials(self) -> Iterator[Trial]:
        """Each good trial as it is built and checked; once all are: ConfigError with every bad
        trial's problems, or UsageError when they would run in more than one region."""
        regions = set()
        for trial in iter_trials(self.base, self.overrides, self.problems):
            regions.add(planning.resolve_region(trial.loaded, self.region))
            yield trial
        if self.problems:
            raise ConfigError(self.problems)
        _one_region(regions)

    def plans(
        self, trials: Iterable[Trial], progress: planning.Progress = nullcontext
    ) -> Iterator[TrialPlan]:
        """Each trial planned (and named) as it is asked for."""
        yield from plan_each(self.name, trials, self.region, self.key, progress, self.cache_dir)


def stream_trials(
    config: Path,
    overrides: list[str] | None,
    region: str | None,
    key: str | None,
    cache_dir: Path | None = None,
) -> SweepStream:
    """The sweep of ``config``, its base checked (and its size within sweep.max_trials), no
    trial built yet."""
    base = sweep_base(config, overrides)
    return SweepStream(base, overrides, region, _sweep_key(key), key is not None, cache_dir)


def plan_each(
    sweep_name: str,
    trials: Iterable[Trial],
    region: str | None,
    sweep_key: str,
    progress: planning.Progress = nullcontext,
    cache_dir: Path | None = None,
) -> Iterator[TrialPlan]:
    """Each trial planned in turn, one code bundle per distinct source folder."""
    built: dict[tuple[Path, str | None], bundles.Bundle] = {}
    for trial in trials:
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
        name = trial_job_name(sweep_name, sweep_key, trial, plan.request)
        plan = planning.with_code_warnings(plan, code).queued(planning.queue_settings(loaded))
        yield TrialPlan(trial, plan.renamed(name), code, code)


def _sweep_key(key: str | None) -> str:
    return key or f"run-{datetime.now(timezone.utc):%Y%m%dT%H%M%S.%f}"


def _one_region(regions: set[str]) -> None:
    if len(regions) > 1:  # one set of clients, one place to look for the trials
        raise UsageError(
            f"the trials of a sweep run in one region, not {', '.join(sorted(regions))}",
            hint="sweep each region separately (--set region=...)",
        )


def trial_job_name(sweep_name: str, key: str, trial: Trial, request: dict[str, Any]) -> str:
    """Same sweep, key, parameters and request -> the same job name (naming.idempotent)."""
    parameters = json.dumps(trial.parameters, sort_keys=True, default=str)
    return naming.idempotent(sweep_name, f"{key}\n{parameters}", request)


def plan_attempt(
    sweep: PlannedSweep, original: TrialPlan, alternative: Fallback, key: str
) -> TrialPlan:
    """A failover attempt of trial ``original`` (services.chain_walk): planned like the trial
    itself (its parameters, the alternative's changes on top, its code), named from the
    attempt's ``key`` so that a rerun finds the job it made."""
    loaded = with_overrides(original.trial, alternative.overrides())
    plan = planning.planned(
        loaded,
        job_name=naming.job_name_for(loaded.config),
        region=original.plan.region,
        role=planning.resolve_role(loaded),
        code=original.code,
        warnings=[],
        code_in_key=True,
    )
    name = trial_job_name(sweep.name, key, original.trial, plan.request)
    return TrialPlan(original.trial, plan.renamed(name), original.bundle, original.code)

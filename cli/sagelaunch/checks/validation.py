"""Load + rules in one step, for `validate` (report everything) and later commands (raise)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from sagelaunch.checks.rules import check
from sagelaunch.checks.trials import SweepSpec, Trial, build_trials
from sagelaunch.config.loader import LoadedConfig, load
from sagelaunch.config.sweep import Sweep
from sagelaunch.errors import ConfigError, Problem, UsageError, bounded


@dataclass
class Report:
    file: Path
    loaded: LoadedConfig | None = None
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    trials: list[Trial] | None = None  # a sweep's, every one checked (what `expand` returns)

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_json(self) -> dict[str, object]:
        sweep = self.loaded.config.sweep if self.loaded else None
        return {
            "file": str(self.file),
            "ok": self.ok,
            "errors": [p.as_json() for p in self.errors],
            "warnings": [p.as_json() for p in self.warnings],
            # the size is counted from the block, before expanding; null without a sweep
            "sweep": None if sweep is None else sweep_json(sweep),
        }


def sweep_json(sweep: Sweep) -> dict[str, object]:
    return {"trials": sweep.size, "method": sweep.method, "max_trials": sweep.max_trials}


def validate_file(
    path: Path,
    overrides: list[str] | None = None,
    *,
    plan_settings: bool = False,
    trials: bool = True,
) -> Report:
    """Every problem of one config: loading errors, or else the rules' errors and warnings
    (with ``plan_settings``, also a warning per setting `plan` would miss: `validate`'s report).
    Without ``trials`` a sweep's trials are left for the caller to build and check, lazily."""
    report = Report(file=path)
    try:
        report.loaded = load(path, overrides)
    except ConfigError as exc:
        report.errors = exc.problems
        return report
    for problem in check(report.loaded):
        (report.errors if problem.severity == "error" else report.warnings).append(problem)
    if trials and report.ok and report.loaded.config.sweep is not None:
        report.errors += _trial_errors(report, overrides)
    if report.ok:
        _check_fallbacks(report, overrides, trials)
    if plan_settings:
        from sagelaunch.config.plan_settings import warnings_for

        report.warnings += warnings_for(report.loaded)
    report.errors = bounded(report.errors)
    return report


def _check_fallbacks(report: Report, overrides: list[str] | None, trials: bool = True) -> None:
    """Each alternative of the failover chain is checked like a config of its own (processes
    per host, mesh, images of its region): a chain fails over to jobs that can run."""
    assert report.loaded is not None
    for index, alternative in enumerate(report.loaded.config.compute.fallback):
        found = validate_file(
            report.file, [*(overrides or []), *alternative.overrides()], trials=trials
        )
        where = f"compute.fallback[{index}]"
        for problem in found.errors + found.warnings:
            tagged = replace(problem, path=f"{where}: {problem.path}" if problem.path else where)
            (report.errors if problem.severity == "error" else report.warnings).append(tagged)


def _trial_errors(report: Report, overrides: list[str] | None) -> list[Problem]:
    """A sweep is valid when every trial is (each checked like a config of its own); the trials
    are kept on the report, built once."""
    assert report.loaded is not None
    try:
        report.trials = build_trials(report.loaded, overrides)
    except ConfigError as exc:
        return exc.problems
    return []


def load_valid(
    path: Path, overrides: list[str] | None = None
) -> tuple[LoadedConfig, list[Problem]]:
    """A config that passed every rule, with its warnings; ConfigError otherwise."""
    report = validate_file(path, overrides)
    if report.errors or report.loaded is None:
        raise ConfigError(report.errors)
    return report.loaded, report.warnings


def expand(path: Path, overrides: list[str] | None = None) -> SweepSpec:
    """Load ``path`` (with --set), check its `sweep:` block, build and check every trial (at
    most sweep.max_trials: a larger sweep is refused as it loads)."""
    report = validate_file(path, overrides)  # builds and checks the trials (`build_trials`)
    base = _sweep_base(path, report)
    assert base.config.sweep is not None and report.trials is not None
    return SweepSpec(base, base.config.sweep, report.trials)


def sweep_base(path: Path, overrides: list[str] | None = None) -> LoadedConfig:
    """The base config of ``path``'s sweep, checked, its trials not yet built (a dry run builds
    and checks them one at a time: checks.trials.iter_trials)."""
    return _sweep_base(path, validate_file(path, overrides, trials=False))


def _sweep_base(path: Path, report: Report) -> LoadedConfig:
    if report.errors or report.loaded is None:
        raise ConfigError(report.errors)
    if report.loaded.config.sweep is None:
        raise UsageError(
            f"{path} has no sweep: block",
            hint="add sweep: {parameters: {hyperparameters.lr: [0.001, 0.01]}} to the config",
        )
    return report.loaded

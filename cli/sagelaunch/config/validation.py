"""Load + rules in one step, for `validate` (report everything) and later commands (raise)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from sagelaunch.config.loader import LoadedConfig, load
from sagelaunch.config.rules import check
from sagelaunch.config.trials import SweepSpec, build_trials
from sagelaunch.errors import ConfigError, Problem, UsageError, bounded


@dataclass
class Report:
    file: Path
    loaded: LoadedConfig | None = None
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_json(self) -> dict[str, object]:
        return {
            "file": str(self.file),
            "ok": self.ok,
            "errors": [p.as_json() for p in self.errors],
            "warnings": [p.as_json() for p in self.warnings],
        }


def validate_file(
    path: Path, overrides: list[str] | None = None, *, plan_settings: bool = False
) -> Report:
    """Every problem of one config: loading errors, or else the rules' errors and warnings
    (with ``plan_settings``, also a warning per setting `plan` would miss: `validate`'s report)."""
    report = Report(file=path)
    try:
        report.loaded = load(path, overrides)
    except ConfigError as exc:
        report.errors = exc.problems
        return report
    for problem in check(report.loaded):
        (report.errors if problem.severity == "error" else report.warnings).append(problem)
    if report.ok and report.loaded.config.sweep is not None:
        report.errors += _trial_errors(report.loaded, overrides)
    if report.ok:
        _check_fallbacks(report, overrides)
    if plan_settings:
        from sagelaunch.config.plan_settings import warnings_for

        report.warnings += warnings_for(report.loaded)
    report.errors = bounded(report.errors)
    return report


def _check_fallbacks(report: Report, overrides: list[str] | None) -> None:
    """Each alternative of the failover chain is checked like a config of its own (processes
    per host, mesh, images of its region): a chain fails over to jobs that can run."""
    assert report.loaded is not None
    for index, alternative in enumerate(report.loaded.config.compute.fallback):
        found = validate_file(report.file, [*(overrides or []), *alternative.overrides()])
        where = f"compute.fallback[{index}]"
        for problem in found.errors + found.warnings:
            tagged = replace(problem, path=f"{where}: {problem.path}" if problem.path else where)
            (report.errors if problem.severity == "error" else report.warnings).append(tagged)


def _trial_errors(loaded: LoadedConfig, overrides: list[str] | None) -> list[Problem]:
    """A sweep is valid when every trial is (each checked like a config of its own)."""
    try:
        build_trials(loaded, overrides)
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
    """Load ``path`` (with --set), check its `sweep:` block, build and check every trial."""
    base, _ = load_valid(path, overrides)  # checks the trials too (`build_trials`)
    if base.config.sweep is None:
        raise UsageError(
            f"{path} has no sweep: block",
            hint="add sweep: {parameters: {hyperparameters.lr: [0.001, 0.01]}} to the config",
        )
    return SweepSpec(base, base.config.sweep, build_trials(base, overrides))

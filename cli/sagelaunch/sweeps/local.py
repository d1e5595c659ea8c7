"""`sagelaunch sweep --local`: the trials run here, through the local backend of `sagelaunch local`
(services.backends.local_runs), so `status`/`logs --local TRIAL_FOLDER` read each trial's run.

Every trial is checked and prepared, and its request planned (the SDK is not thread-safe, so
planning is sequential, from the plan cache when unchanged); then the trials run at most
``max_parallel`` at a time, each in its own run folder (``WORKDIR/trial-N``; by default WORKDIR is
``.sagelaunch/sweeps/NAME-TIMESTAMP``) with its own emulated hosts and free ports. The objective
comes from the entry point's ``metrics.json``, read from the trial's ``output.tar.gz`` as
SageMaker would store it.
"""

from __future__ import annotations

import os
import tarfile
import time
from collections.abc import Callable
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch import naming
from sagelaunch.checks.trials import SweepSpec, Trial
from sagelaunch.config.default_metrics import metrics_json_values
from sagelaunch.local import supervisor
from sagelaunch.services import planning
from sagelaunch.statuses import JobStatus
from sagelaunch.sweeps.results import SweepResult, TrialState

if TYPE_CHECKING:
    from sagelaunch.bundle import BundleData
    from sagelaunch.local.job import Result
    from sagelaunch.local.preflight import Prepared
    from sagelaunch.plan_model import Plan

SWEEPS_DIR = Path(".sagelaunch") / "sweeps"
METRICS_FILE = "metrics.json"


def default_parallel(spec: SweepSpec, cores: int | None = None) -> int:
    """As many trials as the cores hold (one core per emulated process), within max_parallel."""
    from sagelaunch.local.preflight import host_count

    config = spec.base.config
    processes = host_count(config.local.hosts, config.compute.instance_count, None) * max(
        1, config.local.processes_per_host
    )
    fit = max(1, (cores or os.cpu_count() or 1) // processes)
    return min(spec.sweep.max_parallel, fit)


@dataclass(frozen=True)
class LocalTrial:
    trial: Trial
    prepared: Prepared
    plan: Plan
    code: BundleData | None  # the bundle's file
    workdir: Path


def run(
    spec: SweepSpec,
    max_parallel: int,
    workdir: Path | None,
    notify: Callable[[SweepResult], None] = lambda result: None,
    progress: planning.Progress = nullcontext,
) -> SweepResult:
    """Prepare and plan every trial, then run them ``max_parallel`` at a time."""
    from sagelaunch.services.local_run import require_framework

    require_framework(spec.base.config.framework)
    # A fresh folder per sweep (name + timestamp, as local runs): two sweeps at once never meet.
    root = (workdir or SWEEPS_DIR / naming.timestamped(spec.base.config.name)).resolve()
    trials = [_prepare(trial, root / f"trial-{trial.index}", progress) for trial in spec.trials]
    result = SweepResult(
        spec.base.config.name,
        None,
        [
            TrialState(t.trial.index, t.trial.parameters, t.plan.job_name, workdir=str(t.workdir))
            for t in trials
        ],
        spec.sweep.objective,
        where="local",
    )
    cores = os.cpu_count() or 1
    pool = ThreadPoolExecutor(max_workers=max_parallel, thread_name_prefix="trial")
    try:
        futures.wait(
            [
                pool.submit(_run_trial, local, state, result, notify, cores // max_parallel)
                for local, state in zip(trials, result.trials, strict=True)
            ]
        )
    except KeyboardInterrupt:  # only this thread hears Ctrl-C: stop the trials' hosts too
        pool.shutdown(wait=False, cancel_futures=True)
        supervisor.stop_everything()
        raise
    finally:
        pool.shutdown(wait=True)
    notify(result)
    return result


def _prepare(trial: Trial, workdir: Path, progress: planning.Progress) -> LocalTrial:
    from sagelaunch.local import preflight
    from sagelaunch.local.options import Options
    from sagelaunch.services.local_run import local_plan

    prepared = preflight.prepare(trial.loaded, Options(workdir=workdir))
    plan, code = local_plan(prepared.plannable, trial.warnings, progress)
    return LocalTrial(trial, prepared, plan, code, workdir)


def _run_trial(
    local: LocalTrial,
    state: TrialState,
    result: SweepResult,
    notify: Callable[[SweepResult], None],
    cores: int,
) -> None:
    from sagelaunch.local.options import Options
    from sagelaunch.services.backends.base import Sending
    from sagelaunch.services.backends.local_runs import LocalRuns, Preflight

    state.status = JobStatus.InProgress.value
    notify(result)
    started = time.monotonic()
    ready = Preflight(
        local.prepared,
        Options(workdir=local.workdir, cores=max(1, cores)),
        printer=lambda host, line: None,  # each host's log is in <workdir>/logs/
        say=lambda message: None,
    )
    runs = LocalRuns(preflight=ready)
    try:
        outcome = runs.schedule(runs.dry_run(local.plan, local.code, may_exist=False), Sending())
        _record(state, outcome)
    except Exception as exc:  # one broken trial must not stop the others
        state.status, state.failure_reason = JobStatus.Failed.value, str(exc)
    state.elapsed_s = time.monotonic() - started
    notify(result)


def _record(state: TrialState, outcome: Result) -> None:
    if outcome.failed:
        failed = outcome.failed[0]
        state.status = JobStatus.Failed.value
        state.failure_reason = failed.failure or f"{failed.host} exited {failed.exit_code}"
        return
    if any(host.stopped for host in outcome.hosts):  # Ctrl-C: stopped, not finished
        state.status = JobStatus.Stopped.value
        return
    state.status = JobStatus.Completed.value
    if outcome.output_artifact is not None:
        state.metrics = metrics_json_values(_metrics_json(outcome.output_artifact))


def _metrics_json(output_tar: Path) -> dict[str, Any]:
    """``metrics.json`` from the trial's output.tar.gz ({} when the entry point wrote none)."""
    import json

    try:
        with tarfile.open(output_tar) as archive:
            member = next(
                (m for m in archive.getmembers() if Path(m.name).name == METRICS_FILE), None
            )
            handle = archive.extractfile(member) if member is not None else None
            return dict(json.loads(handle.read())) if handle is not None else {}
    except (OSError, tarfile.TarError, ValueError):
        return {}

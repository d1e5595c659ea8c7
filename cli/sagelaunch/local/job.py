"""A local run from start to end: trees, channels, software, launch, supervision, artifacts and
clean-up. What is checked before it is preflight.py's; what each host runs, host_processes.py's."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from sagelaunch import atomic, bundle
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import JobStopped, UsageError
from sagelaunch.local import (
    artifacts,
    bytecode,
    channels,
    checkpoint_sync,
    code_channel,
    disk,
    group_hosts,
    host_processes,
    hub,
    job_software,
    launchers,
    model_dir,
    network,
    run_record,
    sandbox,
    software,
    supervisor,
    tree,
    v3,
)
from sagelaunch.local import workdir as run_dir
from sagelaunch.local.options import Options
from sagelaunch.local.preflight import Prepared
from sagelaunch.metrics.local import DEFINITIONS_FILE
from sagelaunch.plan_model import Plan
from sagelaunch.statuses import JobStatus

RUNS_DIR = run_dir.RUNS_DIR
# What _clear removes besides algo-*.
_RUN_FOLDERS = ("logs", ".cache", sandbox.SANDBOX_DIR, model_dir.SHARED)
MAX_DEFAULT_HOSTS = 2


@dataclass
class Result:
    job_name: str
    workdir: Path
    launcher: str
    hosts: list[supervisor.HostOutcome]
    model_artifact: Path | None = None
    output_artifact: Path | None = None
    warnings: list[str] = field(default_factory=list)
    sandbox: str = sandbox.OFF  # namespace or off
    advice: str | None = None  # what to do about the first failed host's failure, where known

    @property
    def failed(self) -> list[supervisor.HostOutcome]:
        return [host for host in self.hosts if host.failed]

    def as_json(self) -> dict[str, Any]:
        return {
            "job_name": self.job_name,
            "workdir": str(self.workdir),
            "launcher": self.launcher,  # python, torchrun or mpirun
            "hosts": host_rows(self.hosts),
            "model_artifact": str(self.model_artifact) if self.model_artifact else None,
            "output_artifact": str(self.output_artifact) if self.output_artifact else None,
            "sandbox": self.sandbox,
            "warnings": list(self.warnings),
            "advice": self.advice,
        }


def host_rows(outcomes: list[supervisor.HostOutcome]) -> list[dict[str, Any]]:
    """Each host's end (`local --output json`, the run record)."""
    return [
        {
            "host": h.host,
            "exit_code": h.exit_code,
            "duration_s": round(h.duration_s, 3),
            "failure": h.failure,
            "stopped": h.stopped,  # by sagelaunch, after another host failed
        }
        for h in outcomes
    ]


def run(
    prepared: Prepared,
    plan: Plan,
    code: bundle.BundleData | None,
    options: Options,
    printer: supervisor.Printer,
    say: Callable[[str], None],
    agents: list[subprocess.Popen[bytes]] | None = None,
) -> Result:
    """The run, in its phases: claim the folder, build every host's tree, the software, the
    channels, the network, the host processes, supervise them, pack the artifacts. A full disk
    under the run folder is one clear error (disk.reported)."""
    workdir = (options.workdir or RUNS_DIR / plan.job_name).resolve()
    lock = run_dir.claim(workdir)  # held (open) until this run returns
    with disk.reported(workdir), contextlib.ExitStack() as stack:
        built = _build(prepared, plan, code, workdir)
        imports, warnings = _software(prepared, built, say)
        _fill_channels(prepared, built, say)
        prepared, network_warning = _with_network(prepared, workdir, stack, say)
        warnings += [network_warning] if network_warning else []
        _say_sandbox(prepared, built, say)
        specs = _host_specs(prepared, built, imports, agents or [], options)
        outcomes = _supervise(prepared, built, specs, options, printer, lock)
        result = _finished(prepared, built, outcomes, warnings, options, say)
        lock.close()  # on an error the process's end releases it
        return result


@dataclass(frozen=True)
class _Built:
    """The run's folder and plan (its request with the run's own paths), every host's tree,
    the checkpoints restored into them, and the host whose model folder is packed."""

    workdir: Path
    plan: Plan
    trees: list[tree.HostTree]
    restored: checkpoint_sync.Restored
    master: tree.HostTree


def _build(prepared: Prepared, plan: Plan, code: bundle.BundleData | None, workdir: Path) -> _Built:
    """An earlier run's files cleared; each host's /opt/ml with its code, config and checkpoints."""
    _clear(workdir)
    local = model_dir.local_request(plan.request, prepared.plannable.config, workdir)
    plan = plan.model_copy(update={"request": local})
    trees = _build_trees(workdir, prepared, plan.request, code)
    restored = checkpoint_sync.restore(workdir, trees, plan.request)
    _make_command_executable(trees, str(prepared.config.entry_point))
    _save_metric_definitions(workdir, plan.request)
    master = next(t for t, h in zip(trees, prepared.cluster, strict=True) if h.trains)
    return _Built(workdir, plan, trees, restored, master)


def _software(
    prepared: Prepared, built: _Built, say: Callable[[str], None]
) -> tuple[job_software.JobSoftware, list[str]]:
    """What the hosts import (job_software), and every warning the run has before it starts."""
    config = prepared.config
    workdir, request = built.workdir, built.plan.request
    prepared_software = job_software.prepare(
        config, built.trees[0].code, workdir / sandbox.SANDBOX_DIR, say
    )
    warnings = list(prepared_software.warnings)
    warnings += [prepared.launch.warning] if prepared.launch.warning else []
    warnings += filter(None, [model_dir.warning(prepared.plannable.config)])
    warnings += filter(None, [checkpoint_sync.warning(request)])
    warnings += _hard_coded_paths(prepared, built.trees[0].code)
    for warning in warnings:
        say(f"[yellow]warning:[/yellow] {warning}")
    if prepared.sandbox.isolated:  # elsewhere the hosts' Python writes what it compiles
        framework = software.FRAMEWORK_MODULES[config.base_framework]
        bytecode.compile_imports(built.trees[0].code, framework, prepared_software.folders, say)
    return prepared_software, warnings


def _fill_channels(prepared: Prepared, built: _Built, say: Callable[[str], None]) -> None:
    """Each host's channels filled (local folders, S3), then the run's plan said."""
    plan, workdir = built.plan, built.workdir
    counts = channels.populate(
        built.trees,
        prepared.sources,
        workdir / ".cache",
        lambda: channels.S3Store(plan.region),
        group_hosts.receivers(plan.request, prepared.cluster),
    )
    _say_plan(say, plan.job_name, workdir, prepared.launch, len(built.trees), counts)
    if checkpoint_sync.host_folder(built.trees[0], plan.request) is not None:
        say(
            f"  checkpoints: {len(built.restored.files)} file(s) restored from "
            f"{checkpoint_sync.store(workdir)} (checkpoint.s3_uri, synced back when the "
            "hosts stop; delete it to start afresh)"
        )


def _say_sandbox(prepared: Prepared, built: _Built, say: Callable[[str], None]) -> None:
    """The sandbox and the groups' lines; the sandboxes' /etc/hosts written."""
    say(f"  sandbox: {prepared.sandbox.describe()}")
    for line in group_hosts.describe(prepared.cluster, prepared.launch.kind):
        say(line)
    if prepared.sandbox.isolated:
        names = [host.name for host in built.trees]
        sandbox.write_hosts_file(built.workdir, names, prepared.sandbox.network)


def _host_specs(
    prepared: Prepared,
    built: _Built,
    imports: job_software.JobSoftware,
    agents: list[subprocess.Popen[bytes]],
    options: Options,
) -> list[supervisor.HostProcess]:
    """What each host runs (host_processes), with the software on its path."""
    config = prepared.config
    with software.on_path(imports.folders, imports.hidden, imports.environment):
        specs = host_processes.host_processes(
            prepared, built.plan, built.trees, agents, options.cores
        )
    if config.sdk == "v3":
        v3.add_environment([s.env for s in specs], [s.cwd for s in specs], str(config.entry_point))
    return specs


def _supervise(
    prepared: Prepared,
    built: _Built,
    specs: list[supervisor.HostProcess],
    options: Options,
    printer: supervisor.Printer,
    lock: IO[str],
) -> list[supervisor.HostOutcome]:
    """The hosts run to their end, recorded (run_record); Ctrl-C and the time limit end the
    run here as SageMaker's stop and MaxRuntimeInSeconds end a job (exit 4)."""
    workdir, plan, trees = built.workdir, built.plan, built.trees
    limit = _time_limit(prepared.config, options)
    run_record.started(workdir, plan.job_name, [t.name for t in trees], prepared.launch.kind)
    try:
        patterns = _metric_patterns(plan.request)
        try:
            outcomes = supervisor.run(specs, patterns, printer, limit.seconds)
        finally:  # SageMaker uploads while the job runs: a killed job's checkpoints are kept
            checkpoint_sync.save(workdir, trees, plan.request, built.restored)
    except supervisor.Interrupted as interrupted:
        lock.close()  # a rerun in this folder may start at once
        stopped = _with_waiting(interrupted.outcomes, trees)
        run_record.ended(workdir, JobStatus.Stopped, host_rows(stopped), None)
        raise _stopped_error(workdir, stopped, interrupted.forced) from None
    except supervisor.TimedOut as late:
        # As SageMaker at MaxRuntimeInSeconds: the job is Stopped, what the model folder
        # holds is still packed; the hosts' trees stay for a look.
        kind = prepared.launch.kind
        result = Result(plan.job_name, workdir, kind, _with_waiting(late.outcomes, trees))
        _finish(result, built.master, keep=True)
        reason = f"MaxRuntimeExceeded: {limit.source} of {limit.seconds} s passed"
        run_record.ended(workdir, JobStatus.Stopped, host_rows(result.hosts), reason)
        lock.close()
        raise _timed_out_error(workdir, result, late.running, limit) from None
    return outcomes


def _finished(
    prepared: Prepared,
    built: _Built,
    outcomes: list[supervisor.HostOutcome],
    warnings: list[str],
    options: Options,
    say: Callable[[str], None],
) -> Result:
    """The run's result: each host's end, the warnings; a run no host failed has its artifacts
    packed (and its trees removed unless --keep). Recorded."""
    plan, trees = built.plan, built.trees
    result = Result(
        plan.job_name, built.workdir, prepared.launch.kind, _with_waiting(outcomes, trees)
    )
    result.warnings, result.sandbox = warnings, prepared.sandbox.mode
    for host in result.hosts:
        if host.log_error:
            result.warnings.append(f"{host.host}'s log is incomplete: {host.log_error}")
    if result.failed:
        log = built.workdir / "logs" / f"{result.failed[0].host}.log"
        result.advice = hub.unreachable_advice(log, prepared.config.network.isolation)
    else:
        empty = _empty_model_warning(built.master, trees)
        if empty:
            say(f"[yellow]warning:[/yellow] {empty}")
            result.warnings.append(empty)
        _finish(result, built.master, keep=options.keep)
    _record_end(built.workdir, result)
    return result


def _record_end(workdir: Path, result: Result) -> None:
    """Completed, or Failed with the first failed host's failure as the reason."""
    failed = result.failed
    reason = None
    if failed:
        first = failed[0]
        reason = f"{first.host}: {first.failure or f'exit {first.exit_code}'}"
    status = JobStatus.Failed if failed else JobStatus.Completed
    run_record.ended(workdir, status, host_rows(result.hosts), reason)


def _with_network(
    prepared: Prepared, workdir: Path, stack: contextlib.ExitStack, say: Callable[[str], None]
) -> tuple[Prepared, str | None]:
    """The hosts' network (network.py) for the rest of the run, in ``prepared``'s sandbox; the
    one line that says so where the hosts share this machine's instead."""
    isolation = prepared.config.network.isolation
    choice = network.choose(prepared.sandbox.isolated, isolation)
    helpers = workdir / sandbox.SANDBOX_DIR / "network"
    made = stack.enter_context(network.hosts_network(choice, prepared.hosts, helpers))
    # Without a sandbox its line says the network is shared; a lost network.isolation is said too.
    message = network.warning(choice, made) if prepared.sandbox.isolated or isolation else None
    if message:
        say(f"[yellow]warning:[/yellow] {message}")
    return replace(prepared, sandbox=replace(prepared.sandbox, network=made)), message


@dataclass(frozen=True)
class _TimeLimit:
    seconds: int
    source: str  # what set it, as the user wrote it


def _time_limit(config: LaunchConfig, options: Options) -> _TimeLimit:
    if options.timeout_s is not None:
        return _TimeLimit(options.timeout_s, "local --timeout")
    return _TimeLimit(config.compute.max_run, "compute.max_run")


def _timed_out_error(
    workdir: Path, result: Result, running: list[str], limit: _TimeLimit
) -> JobStopped:
    """The limit passed: exit 4 (SageMaker stops the job, MaxRuntimeExceeded), naming the hosts
    that were still running and where their logs and the packed model are."""
    lines = []
    for host in result.hosts:
        log = workdir / "logs" / f"{host.host}.log"
        state = "still running, stopped" if host.host in running else f"exit {host.exit_code}"
        lines.append(f"  {host.host}: {state}, log {log}")
    packed = f"; the model folder was packed in {result.model_artifact}"
    return JobStopped(
        f"local run stopped: {limit.source} of {limit.seconds} s passed (SageMaker stops the job "
        f"there: MaxRuntimeExceeded) with {', '.join(running)} still running\n" + "\n".join(lines),
        hint=f"raise compute.max_run or give local --timeout; the hosts' trees are kept in "
        f"{workdir}{packed if result.model_artifact else ''}",
    )


def _stopped_error(
    workdir: Path, outcomes: list[supervisor.HostOutcome], forced: bool
) -> JobStopped:
    """Ctrl-C: one line per host (not torchrun's tracebacks, which stay in the logs) and where the
    run's files are; exit 4, a stopped job's code (the commands guide's exit codes), as `follow`
    gives a job stopped on AWS."""
    how = "killed at once (second interrupt)" if forced else "stopped"
    lines = []
    for host in outcomes:
        if host.exit_code is None:  # an mpirun worker host: its ranks ran under the first host's
            lines.append(f"  {host.host}: {how} (its ranks ran under the first host's mpirun)")
            continue
        log = workdir / "logs" / f"{host.host}.log"
        lines.append(f"  {host.host}: {how} (exit {host.exit_code}), log {log}")
    return JobStopped(
        "local run interrupted: every host's processes were stopped\n" + "\n".join(lines),
        hint=f"what the run wrote is kept in {workdir}",
    )


def _build_trees(
    workdir: Path, prepared: Prepared, request: dict[str, Any], code: bundle.BundleData | None
) -> list[tree.HostTree]:
    cluster = prepared.cluster
    trees = [tree.HostTree(host.name, workdir / host.name) for host in cluster]
    receiving = group_hosts.receivers(request, cluster)
    hyperparameters = request.get("HyperParameters", {})
    for index, (host, seen) in enumerate(
        zip(trees, host_processes.seen_trees(prepared, trees), strict=True)
    ):
        tree.create(
            host,
            hyperparameters=code_channel.on_host(hyperparameters, seen),
            resources=group_hosts.resource_config(cluster[index], cluster),
            channels=group_hosts.host_channels(tree.input_data_config(request), receiving, index),
        )
        if code is not None:
            bundle.extract(code, host.code)
            code_channel.fill(host, request, code)
    return trees


def _make_command_executable(trees: list[tree.HostTree], entry_point: str) -> None:
    """As the toolkit's entry_point.install: a non-.py entry point is chmod 777 (the run's copy)."""
    for host in trees:
        script = host.code / entry_point
        if not launchers.is_python_program(entry_point) and script.is_file():
            script.chmod(0o777)


def _with_waiting(
    outcomes: list[supervisor.HostOutcome], trees: list[tree.HostTree]
) -> list[supervisor.HostOutcome]:
    """One outcome per host, in host order, with its failure file. Hosts that ran no process of
    their own (mpirun workers) have no exit code."""
    by_host = {outcome.host: outcome for outcome in outcomes}
    ordered = [by_host.get(host.name) or supervisor.HostOutcome(host.name) for host in trees]
    named = {host.name for host in trees}  # a failed helper (TF parameter server) is shown too
    ordered += [o for o in outcomes if o.host not in named and o.failed]
    for outcome, host in zip(ordered, trees, strict=True):
        if host.failure_file.is_file():
            outcome.failure = host.failure_file.read_text("utf-8", errors="replace").strip()
    return ordered


def _hard_coded_paths(prepared: Prepared, code: Path) -> list[str]:
    """Without a sandbox, literal /opt/ml paths in the run's copy of the code stop the run
    before it starts (they would miss the run's files, or write outside it); with
    `local.sandbox: off` chosen in the config, they are a warning."""
    if prepared.sandbox.isolated:
        return []
    source_dir = prepared.config.source_dir or "."
    findings = sandbox.hard_coded_paths(
        code, lambda script: str(Path(source_dir) / script.relative_to(code))
    )
    message = sandbox.fallback_warning(findings, prepared.sandbox)
    if message and not prepared.sandbox.chosen:
        raise UsageError(message, hint="set local.sandbox: off to run anyway (then a warning)")
    return [message] if message else []


def _empty_model_warning(master: tree.HostTree, trees: list[tree.HostTree]) -> str | None:
    """A successful run whose model folder is empty packs an empty model.tar.gz: say so."""
    if any(master.model.iterdir()):
        return None
    elsewhere = [t.name for t in trees if t is not master and any(t.model.iterdir())]
    also = (
        f" ({', '.join(elsewhere)} wrote one: only {master.name}'s is packed)" if elsewhere else ""
    )
    return (
        f"{master.name}'s model folder is empty, so model.tar.gz holds nothing{also}: the "
        "script should save its model in SM_MODEL_DIR (/opt/ml/model in the container)"
    )


def _finish(result: Result, master: tree.HostTree, *, keep: bool) -> None:
    """model.tar.gz and output.tar.gz from the master host, then the trees go unless kept."""
    result.model_artifact = artifacts.pack(master.model, result.workdir / "model.tar.gz")
    result.output_artifact = artifacts.pack(master.output_data, result.workdir / "output.tar.gz")
    if not keep:
        for host in result.hosts:
            shutil.rmtree(result.workdir / host.host, ignore_errors=True)
        for name in (".cache", sandbox.SANDBOX_DIR):
            shutil.rmtree(result.workdir / name, ignore_errors=True)


def _clear(workdir: Path) -> None:
    """Remove what an earlier run left in ``workdir`` (only the names a run creates)."""
    workdir.mkdir(parents=True, exist_ok=True)
    for old in [*workdir.glob("algo-*"), *(workdir / name for name in _RUN_FOLDERS)]:
        if old.is_dir():
            shutil.rmtree(old)
    for name in ("model.tar.gz", "output.tar.gz", run_record.RECORD):
        (workdir / name).unlink(missing_ok=True)


def _say_plan(
    say: Callable[[str], None],
    job_name: str,
    workdir: Path,
    launch: launchers.Launch,
    hosts: int,
    counts: dict[str, list[int]],
) -> None:
    per_host = "process" if launch.processes_per_host == 1 else "processes"
    say(
        f"local run [bold]{job_name}[/bold]: {hosts} host(s) × {launch.processes_per_host} "
        f"{per_host} ({launch.kind}) in {workdir}"
    )
    for name, files in counts.items():
        say(f"  channel {name}: files per host {files}")


def _save_metric_definitions(workdir: Path, request: dict[str, Any]) -> None:
    """Beside the logs, so that `sagelaunch metrics RUN_DIR` applies the job's own patterns."""
    definitions = request["AlgorithmSpecification"].get("MetricDefinitions", [])
    atomic.write_text(workdir / DEFINITIONS_FILE, json.dumps(definitions, indent=2))


def _metric_patterns(request: dict[str, Any]) -> list[str]:
    definitions = request["AlgorithmSpecification"].get("MetricDefinitions", [])
    return [definition["Regex"] for definition in definitions]

"""A local run from start to end: trees, channels, environment, launch, artifacts, clean-up."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sagelaunch import bundle
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import UsageError
from sagelaunch.local import artifacts, channels, environment, launchers, supervisor, tree
from sagelaunch.local.variant import local_variant

RUNS_DIR = Path(".sagelaunch") / "runs"
MAX_DEFAULT_HOSTS = 2


@dataclass(frozen=True)
class Options:
    hosts: int | None = None
    processes_per_host: int | None = None
    workdir: Path | None = None
    keep: bool = False


@dataclass(frozen=True)
class Prepared:
    """A config checked for a local run, and the variant of it that gets planned."""

    loaded: LoadedConfig
    planned: LoadedConfig
    sources: dict[str, channels.Source]


@dataclass
class Result:
    job_name: str
    workdir: Path
    launcher: str
    hosts: list[supervisor.HostOutcome]
    model_artifact: Path | None = None
    output_artifact: Path | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[supervisor.HostOutcome]:
        return [host for host in self.hosts if host.failed]

    def as_json(self) -> dict[str, Any]:
        return {
            "job_name": self.job_name,
            "workdir": str(self.workdir),
            "hosts": [
                {
                    "host": h.host,
                    "exit_code": h.exit_code,
                    "duration_s": round(h.duration_s, 3),
                    "failure": h.failure,
                }
                for h in self.hosts
            ],
            "model_artifact": str(self.model_artifact) if self.model_artifact else None,
            "output_artifact": str(self.output_artifact) if self.output_artifact else None,
        }


def prepare(loaded: LoadedConfig) -> Prepared:
    """Fail fast, before planning, on what cannot run here."""
    if loaded.config.is_builtin_algorithm:
        raise UsageError(
            "the built-in XGBoost algorithm runs only in its own container",
            "run the script-mode equivalent: --set entry_point=train_xgboost.py",
        )
    return Prepared(loaded, local_variant(loaded), channels.sources(loaded))


def host_count(config_hosts: int | None, instance_count: int, requested: int | None) -> int:
    return requested or config_hosts or min(instance_count, MAX_DEFAULT_HOSTS)


def run(
    prepared: Prepared,
    plan: dict[str, Any],
    code: bytes | None,
    options: Options,
    printer: supervisor.Printer,
    say: Callable[[str], None],
) -> Result:
    config = prepared.loaded.config
    request = plan["request"]
    names = tree.host_names(host_count(config.local.hosts, config.compute.instance_count, options.hosts))
    launch = launchers.choose(
        plan["topology"]["launcher"],
        config.distribution.strategy,
        options.processes_per_host or config.local.processes_per_host,
    )
    workdir = (options.workdir or RUNS_DIR / plan["job_name"]).resolve()
    _clear(workdir)
    trees = [tree.HostTree(name, workdir / name) for name in names]
    channel_config = tree.input_data_config(request)
    instance_type = request["ResourceConfig"]["InstanceType"]
    for host in trees:
        tree.create(
            host,
            hyperparameters=request.get("HyperParameters", {}),
            resources=tree.resource_config(host.name, names, instance_type),
            channels=channel_config,
        )
        if code is not None:
            bundle.extract(code, host.code)
    warnings = [launch.warning] if launch.warning else []
    if code is not None and (trees[0].code / "requirements.txt").is_file():
        warnings.append("requirements.txt is not installed by local runs: install it yourself")
    for warning in warnings:
        say(f"[yellow]warning:[/yellow] {warning}")
    counts = channels.populate(
        trees, prepared.sources, workdir / ".cache", lambda: channels.S3Store(plan["region"])
    )
    _say_plan(say, plan["job_name"], workdir, launch, len(trees), counts)
    specs = _host_processes(prepared, plan, trees, launch, channel_config)
    outcomes = supervisor.run(specs, _metric_patterns(request), printer)
    result = Result(plan["job_name"], workdir, launch.kind, _with_waiting(outcomes, names))
    result.warnings = warnings
    for outcome, host in zip(result.hosts, trees):
        if host.failure_file.is_file():
            outcome.failure = host.failure_file.read_text("utf-8", errors="replace").strip()
    if not result.failed:
        _finish(result, trees[0], keep=options.keep)
    return result


def _host_processes(
    prepared: Prepared,
    plan: dict[str, Any],
    trees: list[tree.HostTree],
    launch: launchers.Launch,
    channel_config: dict[str, dict[str, str]],
) -> list[supervisor.HostProcess]:
    config = prepared.loaded.config
    request = plan["request"]
    container_env = {
        **request.get("Environment", {}),
        "SAGEMAKER_TRAINING_MODULE": environment.TRAINING_MODULES[config.framework],
    }
    machine = environment.Machine.detect()
    hyperparameters = request.get("HyperParameters", {})
    names = [host.name for host in trees]
    instance_type = request["ResourceConfig"]["InstanceType"]
    _, user = environment.split_hyperparameters(
        environment.decode_hyperparameters(hyperparameters)
    )
    master = {"MASTER_ADDR": launchers.LOOPBACK, "MASTER_PORT": str(free_port())}
    specs = []
    for index, host in enumerate(trees):
        training_env = environment.training_environment(
            host,
            hyperparameters=hyperparameters,
            resources=tree.resource_config(host.name, names, instance_type),
            channels=channel_config,
            machine=machine,
            container_env=container_env,
        )
        command = launchers.host_command(
            launch,
            entry_point=str(config.entry_point),
            args=environment.user_args(user),
            host_index=index,
            host_count=len(trees),
            master_port=int(master["MASTER_PORT"]),
        )
        if command is None:
            continue
        env = environment.process_environment(
            os.environ,
            container_env=container_env,
            sm=environment.sm_variables(training_env),
            training_env=training_env,
            job_name=plan["job_name"],
            region=plan["region"],
            code_dir=str(host.code),
            extra=master if len(trees) > 1 or launch.kind == "mpirun" else {},
        )
        log = host.root.parent / "logs" / f"{host.name}.log"
        specs.append(supervisor.HostProcess(host.name, command, host.code, env, log))
    return specs


def _with_waiting(
    outcomes: list[supervisor.HostOutcome], names: list[str]
) -> list[supervisor.HostOutcome]:
    """Hosts that ran no process themselves (mpirun workers) appear with no exit code."""
    by_host = {outcome.host: outcome for outcome in outcomes}
    return [by_host.get(name) or supervisor.HostOutcome(name) for name in names]


def _finish(result: Result, master: tree.HostTree, *, keep: bool) -> None:
    """model.tar.gz and output.tar.gz from the master host, then the trees go unless kept."""
    result.model_artifact = artifacts.pack(master.model, result.workdir / "model.tar.gz")
    result.output_artifact = artifacts.pack(master.output_data, result.workdir / "output.tar.gz")
    if not keep:
        for host in result.hosts:
            shutil.rmtree(result.workdir / host.host, ignore_errors=True)
        shutil.rmtree(result.workdir / ".cache", ignore_errors=True)


def _clear(workdir: Path) -> None:
    """Remove what an earlier run left in ``workdir`` (only the names a run creates)."""
    workdir.mkdir(parents=True, exist_ok=True)
    for old in [*workdir.glob("algo-*"), workdir / "logs", workdir / ".cache"]:
        if old.is_dir():
            shutil.rmtree(old)
    for name in ("model.tar.gz", "output.tar.gz"):
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


def _metric_patterns(request: dict[str, Any]) -> list[str]:
    definitions = request["AlgorithmSpecification"].get("MetricDefinitions", [])
    return [definition["Regex"] for definition in definitions]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((launchers.LOOPBACK, 0))
        return int(sock.getsockname()[1])

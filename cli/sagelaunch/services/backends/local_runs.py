"""The local backend: a job run on this machine as the container would run it (sagelaunch.local),
in its folder under .sagelaunch/runs/JOB_NAME (or `--workdir`).

Its dry run is the local variant's plan (the request the hosts' SM_* contract is read from); its
schedule is the run itself, with what `services.local_run` checked and prepared before it (a
`Preflight`). Described, followed, read, stopped
and listed from each run's record (local/run_record.py) and host logs (logs/algo-N.log), as the
SageMaker backends read DescribeTrainingJob and CloudWatch: `status`, `wait`, `logs`, `stop` and
`list` with `--local` take a job name (or a run folder's path).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import UsageError
from sagelaunch.job_events import LogEvent, Transition, host_index
from sagelaunch.local import run_record
from sagelaunch.local.workdir import RUNS_DIR
from sagelaunch.services.backends.base import Described, DryRun, Listed, Listing, Sending
from sagelaunch.services.follow import LOCAL, Ending, Observer, ending
from sagelaunch.statuses import TERMINAL, JobStatus

if TYPE_CHECKING:
    import subprocess

    from sagelaunch.bundle import BundleData
    from sagelaunch.local.job import Result
    from sagelaunch.local.options import Options
    from sagelaunch.local.preflight import Prepared
    from sagelaunch.local.supervisor import Printer
    from sagelaunch.plan_model import Plan

POLL_S = 0.5
LOCAL_RUN = "local run"


@dataclass(frozen=True)
class Preflight:
    """What a run needs beyond its plan, from `services.local_run`: the checked and prepared
    job (local.preflight), the run's options, how its hosts' lines and messages are shown, and
    the agents a warm start began."""

    prepared: Prepared
    options: Options
    printer: Printer
    say: Callable[[str], None]
    agents: list[subprocess.Popen[bytes]] = field(default_factory=list)


@dataclass
class LocalRuns:
    root: Path = RUNS_DIR
    preflight: Preflight | None = None  # None: reading runs (status, logs, list), not running one
    name: str = "local"
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = field(default=time.sleep)

    def dry_run(self, plan: Plan, bundle: BundleData | None, may_exist: bool) -> DryRun:
        """The local variant's request: what the hosts' SM_* contract is built from."""
        return DryRun(LOCAL_RUN, plan.request, plan, bundle, may_exist)

    def schedule(self, dry_run: DryRun, sending: Sending) -> Result:
        """Run the job here: trees, channels, software, hosts, artifacts (local.job)."""
        from sagelaunch.local import job

        ready = self.preflight
        assert ready is not None, "services.local_run hands in the preflight"
        return job.run(
            ready.prepared,
            dry_run.plan,
            dry_run.bundle,
            ready.options,
            ready.printer,
            ready.say,
            ready.agents,
        )

    def folder(self, name: str) -> Path:
        """The run folder of ``name``: a path to one, or a job name under .sagelaunch/runs."""
        for candidate in (Path(name), self.root / name):
            if (candidate / run_record.RECORD).is_file():
                return candidate
        raise UsageError(
            f"no local run named {name!r} in {self.root} (nor a run folder at that path)",
            hint="see the local runs with: sagelaunch list --local",
        )

    def describe(self, name: str) -> Described:
        folder = self.folder(name)
        record = run_record.read(folder)
        assert record is not None  # folder() found it
        return Described("local", {**record, "workdir": str(folder.resolve())})

    def follow(
        self, name: str, timeout_s: float | None, observer: Observer, host: str | None = None
    ) -> Ending:
        """Until the run's record says it ended (or the timeout passes), its hosts' new log
        lines to ``observer.on_logs`` between looks."""
        folder = self.folder(name)
        observer.on_start(name)
        tail = _Tail(folder, host)
        deadline = None if timeout_s is None else self.clock() + timeout_s
        last: Transition | None = None
        while True:
            record = run_record.read(folder) or {}
            if observer.on_logs is not None:
                observer.on_logs(tail.poll())
            now = Transition(record.get("status", JobStatus.InProgress.value), _hosts(record))
            if now != last:
                last = now
                observer.on_change(now)
            if now.status in TERMINAL or (deadline is not None and self.clock() >= deadline):
                return ending(LOCAL, as_description(name, record))
            self.sleep(POLL_S)

    def logs(self, name: str, host: str | None = None) -> list[LogEvent]:
        return _Tail(self.folder(name), host).poll()

    def stop(self, name: str) -> dict[str, Any]:
        """SIGTERM to the sagelaunch process running it: as Ctrl-C, every host's processes
        stop (SIGTERM, then SIGKILL after the grace period) and the run ends Stopped."""
        folder = self.folder(name)
        record = run_record.read(folder) or {}
        status = record.get("status")
        if status == JobStatus.InProgress and run_record.running(folder):
            os.kill(int(record["pid"]), signal.SIGTERM)
            status = JobStatus.Stopping.value
        return {"job_name": name, "kind": "local", "status": status, "workdir": str(folder)}

    def listing(self, filters: Listing) -> Listed:
        """The runs under .sagelaunch/runs, newest first, filtered as `list` filters jobs."""
        runs = []
        for folder in self.root.glob("*"):
            record = run_record.read(folder)
            if record is None:
                continue
            if filters.status and record["status"] != filters.status:
                continue
            if filters.name_contains and filters.name_contains not in record["job_name"]:
                continue
            runs.append({**record, "workdir": str(folder)})
        runs.sort(key=lambda run: -float(run.get("started_at") or 0))
        return Listed("local", runs[: filters.limit])


def as_description(name: str, record: dict[str, Any]) -> dict[str, Any]:
    """A run's record in DescribeTrainingJob's words, for what reads an Ending."""
    return {
        "TrainingJobName": record.get("job_name", name),
        "TrainingJobStatus": record.get("status", JobStatus.InProgress.value),
        "SecondaryStatus": _hosts(record),
        "FailureReason": record.get("failure_reason"),
    }


def _hosts(record: dict[str, Any]) -> str:
    """ "algo-1 exit 0, algo-2 running": each host's state."""
    parts = []
    for host in record.get("hosts") or []:
        code = host.get("exit_code")
        parts.append(f"{host['host']} {'running' if code is None else f'exit {code}'}")
    return ", ".join(parts)


class _Tail:
    """The hosts' log lines not read yet (each host's file from where the last poll ended)."""

    def __init__(self, folder: Path, host: str | None) -> None:
        self.folder, self.host = folder, host
        self.offsets: dict[Path, int] = {}

    def poll(self) -> list[LogEvent]:
        events: list[LogEvent] = []
        logs = (self.folder / "logs").glob("algo-*.log")
        for log in sorted(logs, key=lambda path: (host_index(path.stem), path.name)):
            name = log.name.removesuffix(".log")
            if self.host is not None and name != self.host:
                continue
            events += self._read(log, name)
        return events

    def _read(self, log: Path, host: str) -> list[LogEvent]:
        try:
            with log.open("rb") as file:
                file.seek(self.offsets.get(log, 0))
                data = file.read()
        except OSError:
            return []
        whole = data[: data.rfind(b"\n") + 1]  # a line still being written waits for its end
        self.offsets[log] = self.offsets.get(log, 0) + len(whole)
        stamp = int(log.stat().st_mtime * 1000)
        lines = whole.decode("utf-8", "replace").splitlines()
        return [LogEvent(stamp, host, line) for line in lines]

"""Run the hosts' processes together: stream their logs, stop them all when one fails.

Each host starts in a session of its own, so Ctrl-C in the terminal reaches only sagelaunch,
which then stops every host itself. torchrun puts each worker in yet another session, so stopping
a host means its whole process tree (found through /proc), not just its group: SIGTERM first (so
torchrun can stop its workers), SIGKILL for whatever is left after the grace period, or at once
when a second Ctrl-C (or SIGTERM) comes while they stop. After Ctrl-C the hosts' own output while
they stop (torchrun's tracebacks) goes to their logs only; the caller reports one line per host.

A run has a time limit, as a job has MaxRuntimeInSeconds: when it passes, every host is stopped
as above and the caller hears which hosts were still running. A host that has used no CPU for a
while after another host ended is reported once (it may wait on a peer that is gone: a
rendezvous nobody else will join), not stopped: only the limit or Ctrl-C stops it.
"""

from __future__ import annotations

import collections
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from sagelaunch.errors import UsageError
from sagelaunch.local import warm
from sagelaunch.local.netns_keeper import die_with_parent

TAIL_LINES = 20
# mpirun --tag-output (the toolkit's flag) prefixes each rank's line: "[1,0]<stdout>:". The log
# keeps it, as CloudWatch does; the summary's metrics cell shows the metrics alone.
MPI_TAG = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:\s*")
# Between SIGTERM and SIGKILL when a run stops. SageMaker gives a stopped job 120 s; locally a
# Ctrl-C should not wait that long for a script that ignores SIGTERM. The variable lengthens it
# (a script whose SIGTERM handler saves a checkpoint, a loaded machine).
GRACE_VARIABLE = "SAGELAUNCH_STOP_GRACE_S"
GRACE_S = 5.0
POLL_S = 0.05
# How long a host may sit without CPU after another host ended before it is reported.
STALL_VARIABLE = "SAGELAUNCH_STALL_NOTICE_S"
STALL_S = 60.0
_STALL_CHECK_S = 1.0
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

Printer = Callable[[str, str], None]  # (host, line)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped every host: each host's outcome, and whether a second signal
    cut the grace period short (everything killed at once)."""

    def __init__(self, outcomes: list[HostOutcome], forced: bool) -> None:
        super().__init__()
        self.outcomes = outcomes
        self.forced = forced


class TimedOut(Exception):
    """The run's time limit passed: every host was stopped. ``running``: the hosts that were still
    running then (the others had ended on their own)."""

    def __init__(self, outcomes: list[HostOutcome], running: list[str], limit_s: float) -> None:
        super().__init__(f"time limit of {limit_s:g} s reached")
        self.outcomes = outcomes
        self.running = running
        self.limit_s = limit_s


@dataclass(frozen=True)
class HostProcess:
    host: str
    argv: list[str]
    cwd: Path
    env: dict[str, str]
    log: Path
    waiting: subprocess.Popen[bytes] | None = None  # a warm-started agent (see warm.py)
    auxiliary: bool = False  # serves the others (a TF parameter server): stopped once they end
    # The sandbox's program (bwrap) around the host's processes, or its ranks'. It never gets
    # SIGTERM: it would die of it at once and take what it runs along (--die-with-parent), and
    # with them the grace period; it ends when what it runs ends.
    wrapper: str | None = None


@dataclass
class HostOutcome:
    host: str
    exit_code: int | None = None
    duration_s: float = 0.0
    stopped: bool = False  # stopped by sagelaunch because another host failed (or Ctrl-C)
    tail: collections.deque[str] = field(
        default_factory=lambda: collections.deque(maxlen=TAIL_LINES)
    )
    last_metrics: str | None = None
    failure: str | None = None  # the host's failure file (SageMaker's FailureReason)
    log_error: str | None = None  # why its log could not be written to the end (a full disk)

    @property
    def failed(self) -> bool:
        return self.exit_code not in (0, None) and not self.stopped


class _Running:
    """One started host: its process, the thread copying its output, its outcome."""

    def __init__(self, spec: HostProcess, metrics: list[re.Pattern[str]], printer: Printer) -> None:
        self.spec = spec
        self.outcome = HostOutcome(spec.host)
        self.quiet = False  # set once the host is stopped after Ctrl-C: its log only
        self.started = time.monotonic()
        spec.log.parent.mkdir(parents=True, exist_ok=True)
        if spec.waiting is not None:
            warm.release(spec.waiting, spec.argv, str(spec.cwd), spec.env)
            self.proc = spec.waiting
        else:
            self.proc = subprocess.Popen(
                spec.argv,
                cwd=spec.cwd,
                env=spec.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent,  # sagelaunch killed (-9 too): the host goes with it
            )
        assert self.proc.stdout is not None
        self.reader = threading.Thread(
            target=self._copy, args=(self.proc.stdout, metrics, printer), daemon=True
        )
        self.reader.start()

    def _copy(self, stream: IO[bytes], metrics: list[re.Pattern[str]], printer: Printer) -> None:
        """Every line of the host's output to its log, its tail and the terminal. A log that
        cannot be written (a full disk) is said once; the output is still read to its end, so
        the host never blocks on a full pipe, and still shown."""
        log: IO[str] | None = self._write_log(None, printer)
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            log = self._write_log(log, printer, line)
            self.outcome.tail.append(line)
            if any(pattern.search(line) for pattern in metrics):
                self.outcome.last_metrics = MPI_TAG.sub("", line, count=1)
            if not self.quiet:
                printer(self.spec.host, line)
        if log is not None:
            with suppress(OSError):
                log.close()
        stream.close()

    def _write_log(
        self, log: IO[str] | None, printer: Printer, line: str | None = None
    ) -> IO[str] | None:
        """The log after writing ``line`` (no line: the log opened); None once it failed."""
        if self.outcome.log_error is not None:
            return None
        try:
            if line is None:
                return self.spec.log.open("w", encoding="utf-8")
            assert log is not None
            log.write(line + "\n")
            log.flush()
            return log
        except OSError as error:
            self.outcome.log_error = f"{self.spec.log}: {error.strerror or error}"
            printer(
                self.spec.host,
                f"sagelaunch: {self.spec.host}'s log stops here ({self.outcome.log_error}); "
                "its output still shows in this terminal",
            )
            if log is not None:
                with suppress(OSError):
                    log.close()
            return None

    def finished(self) -> bool:
        code = self.proc.poll()
        if code is not None and self.outcome.exit_code is None:
            self.outcome.exit_code = code
            self.outcome.duration_s = time.monotonic() - self.started
        return code is not None


def stop_grace_s() -> float:
    return _seconds(GRACE_VARIABLE, GRACE_S, "120")


def _seconds(variable: str, default: float, example: str) -> float:
    value = os.environ.get(variable) or str(default)
    try:
        return max(0.0, float(value))
    except ValueError:
        raise UsageError(
            f"{variable}={value!r} is not a number of seconds",
            hint=f"unset it for the default ({default:g} s), or give seconds, e.g. {example}",
        ) from None


def run(
    hosts: list[HostProcess],
    metrics: list[str],
    printer: Printer,
    limit_s: float | None = None,
) -> list[HostOutcome]:
    """Start every host, wait for all; the first failure (or Ctrl-C) stops the rest, and so
    does ``limit_s`` seconds passing (then TimedOut)."""
    grace_s = stop_grace_s()
    watch = _StallWatch(_seconds(STALL_VARIABLE, STALL_S, "300"), printer)
    patterns = [re.compile(m) for m in metrics]
    running: list[_Running] = []
    deadline = None if limit_s is None else time.monotonic() + limit_s
    with _signals() as hurry:
        try:
            for spec in hosts:
                running.append(_Running(spec, patterns, printer))
                with _LIVE_LOCK:
                    _LIVE.append(running[-1])
            late = _wait(running, grace_s, hurry, deadline, watch)
        except KeyboardInterrupt:
            _stop(running, grace_s, hurry, quiet=True)
            outcomes = [host.outcome for host in running]
            raise Interrupted(outcomes, hurry.is_set()) from None
        except BaseException:
            _stop(running, grace_s, hurry)
            raise
        finally:
            for host in running:
                host.reader.join(timeout=grace_s)
            with _LIVE_LOCK:
                _LIVE[:] = [host for host in _LIVE if host not in running]
    outcomes = [host.outcome for host in running]
    if late:
        raise TimedOut(outcomes, late, limit_s or 0.0)
    return outcomes


# Every host this process is running: runs in other threads (a local sweep's trials) cannot be
# reached by Ctrl-C, which only the main thread receives; it stops them through this.
_LIVE: list[_Running] = []
_LIVE_LOCK = threading.Lock()


def stop_everything() -> None:
    """Stop every host this process started, in whichever thread it is supervised."""
    with _LIVE_LOCK:
        running = list(_LIVE)
    try:
        grace_s = stop_grace_s()
    except UsageError:  # said when the runs started; clean-up must not fail on it
        grace_s = GRACE_S
    _stop(running, grace_s, threading.Event())


def _wait(
    running: list[_Running],
    grace_s: float,
    hurry: threading.Event,
    deadline: float | None,
    watch: _StallWatch,
) -> list[str]:
    """Until every primary host ends, one fails, or the deadline passes; then stop what is left.
    The hosts still running at the deadline (none: it did not pass)."""
    primary = [host for host in running if not host.spec.auxiliary]
    late: list[str] = []
    while not _all_finished(primary):
        if any(host.outcome.failed for host in running):
            break
        if deadline is not None and time.monotonic() >= deadline:
            late = [host.spec.host for host in primary if not host.finished()]
            break
        watch.check(primary)
        time.sleep(POLL_S)
    _stop(running, grace_s, hurry)  # after a failure, everything; else only auxiliaries are left
    return late


class _StallWatch:
    """Reports, once per host, a host that has used no CPU for ``window_s`` seconds while
    another host has ended: it may be waiting on a peer that has exited (a rendezvous at a host
    that is gone hangs until torch's 30-minute timeout, or for ever)."""

    def __init__(self, window_s: float, printer: Printer) -> None:
        self.window_s = window_s
        self.printer = printer
        self.next_check = 0.0
        self.samples: dict[str, tuple[float, int]] = {}  # host -> (since, CPU ticks then)
        self.reported: set[str] = set()

    def check(self, hosts: list[_Running]) -> None:
        now = time.monotonic()
        ended = [host for host in hosts if host.outcome.exit_code is not None]
        if not ended or now < self.next_check:
            return
        self.next_check = now + _STALL_CHECK_S
        for host in hosts:
            name = host.spec.host
            if host.outcome.exit_code is not None or name in self.reported:
                continue
            ticks = sum(_cpu_ticks(pid) for pid in process_tree(host.proc.pid))
            since, before = self.samples.setdefault(name, (now, ticks))
            if ticks > before + _CLOCK_TICKS * 0.02 * (now - since):  # busy: start again
                self.samples[name] = (now, ticks)
            elif now - since >= self.window_s:
                self.reported.add(name)
                gone = ", ".join(f"{h.spec.host} (exit {h.outcome.exit_code})" for h in ended)
                self.printer(
                    name,
                    f"sagelaunch: {name} has used no CPU for {now - since:.0f} s since {gone} "
                    "ended: it may be waiting on a peer that is gone. It is left running: "
                    "compute.max_run (or local --timeout) stops it, or Ctrl-C",
                )


def _cpu_ticks(pid: int) -> int:
    """User + system CPU time of ``pid`` in clock ticks (0 when it is gone or not Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


def _stop(
    running: list[_Running], grace_s: float, hurry: threading.Event, *, quiet: bool = False
) -> None:
    """SIGTERM every live host's process tree, then SIGKILL what outlives the grace period, or
    everything at once when ``hurry`` is set (a second Ctrl-C). ``quiet``: their last output goes
    to their logs only."""
    live = [host for host in running if not host.finished()]
    trees = {host.proc.pid: process_tree(host.proc.pid) for host in live}
    for host in live:
        host.quiet = host.quiet or quiet
        host.outcome.stopped = True
        tree = trees[host.proc.pid]
        _signal_all(tree, signal.SIGTERM, spared=_running(host.spec.wrapper, tree))
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and not hurry.is_set() and not _all_finished(live):
        time.sleep(POLL_S)
    for host in live:
        leftovers = set(trees[host.proc.pid]) | set(process_tree(host.proc.pid))
        _signal_all(sorted(leftovers), signal.SIGKILL)
        host.proc.wait()
        host.finished()


def _all_finished(hosts: list[_Running]) -> bool:
    """Poll every host (each records its own exit code and time), not just up to the first."""
    return all([host.finished() for host in hosts])


def _signal_all(pids: list[int], signum: int, spared: set[int] | None = None) -> None:
    """One ``signum`` to each process but the ``spared`` ones: to its whole process group
    (reaching children started since ``pids`` was read) unless that group is sagelaunch's or
    holds a spared process, else to the process alone. Never twice: torchrun's agent, shutting
    down after a first SIGTERM, dies at a second one."""
    spared = spared or set()
    whole_group_not = {os.getpgrp(), *(_group(pid) for pid in spared)}
    groups, alone = set(), []
    for pid in set(pids) - spared:
        group = _group(pid)
        if group is None:
            continue
        if group in whole_group_not:
            alone.append(pid)
        else:
            groups.add(group)
    for group in groups:
        _quietly(os.killpg, group, signum)
    for pid in alone:
        _quietly(os.kill, pid, signum)


def _group(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def _running(program: str | None, pids: list[int]) -> set[int]:
    """Those of ``pids`` whose executable is ``program`` (Linux /proc; none elsewhere)."""
    if program is None:
        return set()
    target = os.path.realpath(program)
    found = set()
    for pid in pids:
        with suppress(OSError):
            if os.path.realpath(f"/proc/{pid}/exe") == target:
                found.add(pid)
    return found


def _quietly(send: Callable[[int, int], None], target: int, signum: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        send(target, signum)


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants (Linux /proc; just ``root`` elsewhere)."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    proc = Path("/proc")
    if proc.is_dir():
        for entry in proc.iterdir():
            if entry.name.isdigit():
                parent = _parent_pid(entry / "stat")
                if parent is not None:
                    children[parent].append(int(entry.name))
    tree, queue = [], [root]
    while queue:
        pid = queue.pop()
        tree.append(pid)
        queue.extend(children.get(pid, []))
    return tree


def _parent_pid(stat: Path) -> int | None:
    try:
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


@contextmanager
def _signals() -> Iterator[threading.Event]:
    """While the hosts run (main thread only): the first Ctrl-C, SIGTERM or SIGHUP (the terminal
    closed) raises KeyboardInterrupt, so the hosts are stopped; any later one sets the returned
    event, so what is still stopping is killed at once (never a second KeyboardInterrupt amid the
    clean-up, which would leave orphans)."""
    hurry = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield hurry
        return
    heard = []

    def interrupt(signum: int, frame: object) -> None:
        heard.append(signum)
        if len(heard) == 1:
            raise KeyboardInterrupt
        hurry.set()

    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {signum: signal.getsignal(signum) for signum in stops}
    for signum in previous:
        signal.signal(signum, interrupt)
    try:
        yield hurry
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

"""The one error family that crosses layers, and the exit codes. The app's error boundary turns
each error into a clean message and its exit code: no tracebacks for user errors unless --debug."""

from __future__ import annotations

from dataclasses import dataclass

# Problems listed for one config before the rest are counted on one line: a file with thousands
# of mistakes (a generated one) gets the first few dozen, located, not megabytes of errors.
MAX_PROBLEMS = 40


class ExitCode:
    OK = 0
    JOB_FAILED = 1
    INVALID = 2
    AWS = 3
    JOB_STOPPED = 4
    WAIT_TIMEOUT = 5
    INTERRUPTED = 130  # Ctrl-C
    INTERNAL = 70  # a bug in sagelaunch, not in the user's config or AWS


@dataclass(frozen=True)
class Problem:
    """One located finding in a launch config: ``FILE:LINE:COL: key.path: message``."""

    file: str
    line: int
    col: int
    path: str
    message: str
    severity: str = "error"  # "error" | "warning"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"

    def as_json(self) -> dict[str, object]:
        return {"line": self.line, "col": self.col, "path": self.path, "message": self.message}


@dataclass(frozen=True)
class More(Problem):
    """The line that stands for ``count`` problems left out, located at the first of them."""

    count: int = 0


def more(first: Problem, count: int) -> More:
    noun = "problem" if count == 1 else "problems"
    message = f"and {count:,} more {noun} from here on, not listed: fix these first"
    return More(first.file, first.line, first.col, "", message, first.severity, count)


def bounded(problems: list[Problem]) -> list[Problem]:
    """The first MAX_PROBLEMS problems, then one line counting the rest (if there are any)."""
    if len(problems) <= MAX_PROBLEMS + 1:
        return problems
    rest = problems[MAX_PROBLEMS:]
    return [*problems[:MAX_PROBLEMS], more(rest[0], counted(rest))]


def counted(problems: list[Problem]) -> int:
    """How many problems ``problems`` stands for, those a More line counts included."""
    return sum(p.count if isinstance(p, More) else 1 for p in problems)


class SagelaunchError(Exception):
    """Base of every error the tool reports to the user."""

    exit_code = ExitCode.INVALID

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(SagelaunchError):
    """Bad command-line usage (exit 2)."""


class ConfigError(SagelaunchError):
    """A launch config that cannot be loaded or fails its rules (exit 2)."""

    def __init__(self, problems: list[Problem]) -> None:
        problems = bounded(problems)
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


class AwsError(SagelaunchError):
    """AWS said no, or could not be reached (exit 3)."""

    exit_code = ExitCode.AWS


class QuotaExceeded(AwsError):
    """ResourceLimitExceeded: an account quota (instances of a type, concurrent jobs) is used up.
    A sweep keeps the trial queued and tries again when one of its jobs ends."""


class JobFailed(SagelaunchError):
    exit_code = ExitCode.JOB_FAILED


class JobStopped(SagelaunchError):
    exit_code = ExitCode.JOB_STOPPED


class WaitTimeout(SagelaunchError):
    exit_code = ExitCode.WAIT_TIMEOUT


class AttachRefused(SagelaunchError):
    """A job of the planned name exists but runs a different request (exit 2)."""

    def __init__(self, job_name: str, differences: list[str], tuning: bool = False) -> None:
        lines = "\n".join(f"  {line}" for line in differences)
        kind = "tuning job" if tuning else "training job"
        rename = "tuning.job_name" if tuning else "plan --job-name NEW"
        super().__init__(
            f"a {kind} named {job_name!r} already exists with a different request; "
            f"not attaching to it:\n{lines}",
            hint=f"submit under a new name (plan again, or {rename}), or pass "
            "--idempotency-key KEY: a key names the job after the request",
        )
        self.job_name = job_name
        self.differences = differences

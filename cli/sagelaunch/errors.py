"""The one error family that crosses layers. The app's error boundary turns each into a clean
message and its exit code (SPEC §4): no tracebacks for user errors unless --debug."""

from __future__ import annotations

from dataclasses import dataclass


class ExitCode:
    OK = 0
    JOB_FAILED = 1
    INVALID = 2
    AWS = 3
    JOB_STOPPED = 4
    WAIT_TIMEOUT = 5


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
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


class AwsError(SagelaunchError):
    """AWS said no, or could not be reached (exit 3)."""

    exit_code = ExitCode.AWS


class JobFailed(SagelaunchError):
    exit_code = ExitCode.JOB_FAILED


class JobStopped(SagelaunchError):
    exit_code = ExitCode.JOB_STOPPED


class WaitTimeout(SagelaunchError):
    exit_code = ExitCode.WAIT_TIMEOUT

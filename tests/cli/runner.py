"""The real `sagelaunch` command in a process of its own, for the tests of what a user's shell
gets from it: the exit code, and which stream carries what.

Each run is a fresh process: a child forked from a server that has imported sagelaunch's
command modules and has run nothing (no command, no console made, no cache read), so the child
starts where `python -m sagelaunch` would be once its imports are done, and runs the same
``sagelaunch.app.main`` with its own argv, working folder, environment and streams (stdin
/dev/null, stdout and stderr separate files), and exits as the command does (an uncaught
exception prints its traceback and exits 1, as the interpreter would). What a forked child
skips is only the interpreter's start and those imports (about a second of CPU each run);
`fresh=True` starts ``python -m sagelaunch`` itself, for a test of that start. Either way a run
past its timeout is killed and raises ``subprocess.TimeoutExpired``, as ``subprocess.run`` does:
the hang guard of a test whose error path must not wait out retries (a forked child gets
SIGALRM, whose default action ends it wherever it is).
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

TIMEOUT_S = 120

# The server: imports, then forks one child per request (one JSON line in, one JSON line out).
SERVER = r"""
import atexit, importlib, json, os, signal, sys, traceback

import sagelaunch.app
from sagelaunch.app import COMMANDS, main

for module in sys.argv[1:]:
    importlib.import_module(module)

answers = os.fdopen(os.dup(1), "w")
null = os.open(os.devnull, os.O_RDWR)
os.dup2(null, 1)  # the server's own stdout is the answers' pipe only
for line in sys.stdin:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            os.dup2(null, 0)
            for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            sys.stdin = open(os.devnull)
            sys.argv = ["sagelaunch", *request["args"]]
            signal.alarm(request["timeout"])
            try:
                main()
                code = 0
            except SystemExit as stop:
                if stop.code is None or isinstance(stop.code, int):
                    code = stop.code or 0
                else:
                    print(stop.code, file=sys.stderr)
            except BaseException:
                traceback.print_exc()
            atexit._run_exitfuncs()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:
                    pass
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    answers.write(json.dumps(os.waitstatus_to_exitcode(status)) + "\n")
    answers.flush()
"""

# What the server imports first: the command modules the tests of tests/cli run, and the
# modules they import when they run (loading and checking a config, the plan cache). Not the
# SDK: a plan the cache misses imports it in the child, as the command does. None of them
# reads the environment when imported (each child gets its own: COLUMNS, the cache folder).
PRELOAD = (
    *(f"sagelaunch.commands.{c}" for c in ("validate", "plan", "submit", "local", "sweep")),
    "sagelaunch.commands.import_",
    "sagelaunch.config.loader",
    "sagelaunch.checks.validation",
    "sagelaunch.services.failover",
    "sagelaunch.services.planning",
    "sagelaunch.aws.session",
    "rich.console",
)

_servers: dict[str, subprocess.Popen] = {}


def _server() -> subprocess.Popen:
    server = _servers.get("server")
    if server is None or server.poll() is not None:
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, *PRELOAD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=tempfile.gettempdir(),
        )
        _servers["server"] = server
    return server


@atexit.register
def _stop_servers() -> None:
    for server in _servers.values():
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def sagelaunch(
    cwd: Path,
    *args: object,
    env: dict[str, str] | None = None,
    fresh: bool = False,
    timeout: int = TIMEOUT_S,
) -> subprocess.CompletedProcess:
    """``sagelaunch ARGS`` run in ``cwd``, its environment this process's (or ``env``): the
    exit code, stdout and stderr, as ``subprocess.run(..., capture_output=True)`` gives them."""
    command = [str(arg) for arg in args]
    environment = dict(os.environ if env is None else env)
    if fresh:
        return subprocess.run(
            [sys.executable, "-m", "sagelaunch", *command],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=timeout,
            env=environment,
        )
    with tempfile.TemporaryDirectory() as streams:
        stdout, stderr = Path(streams, "stdout"), Path(streams, "stderr")
        server = _server()
        assert server.stdin is not None and server.stdout is not None
        request = {
            "args": command,
            "cwd": str(Path(cwd).resolve()),
            "env": environment,
            "stdout": str(stdout),
            "stderr": str(stderr),
            "timeout": timeout,
        }
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        answer = server.stdout.readline()
        assert answer, "the sagelaunch fork server ended"
        output = stdout.read_text(errors="replace"), stderr.read_text(errors="replace")
        if json.loads(answer) == -signal.SIGALRM:
            raise subprocess.TimeoutExpired(["sagelaunch", *command], timeout, *output)
        return subprocess.CompletedProcess(["sagelaunch", *command], json.loads(answer), *output)


def error_lines(proc: subprocess.CompletedProcess, code: int = 2) -> list[str]:
    """The ``error:`` lines of a run that ended in exit ``code`` as a handled error does: on
    stderr, with no traceback."""
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    return [line for line in proc.stderr.splitlines() if line.startswith("error:")]


def only_error(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    """The one ``error:`` line of such a run."""
    (line,) = error_lines(proc, code)
    return line

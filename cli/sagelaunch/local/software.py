"""The container's software for a local run: requirements.txt (and a setup.py package) installed
into a cached overlay on top of this virtualenv, and the framework's version checked.

The training toolkit (sagemaker_training/entry_point.py `install`, modules.py) runs, before the
script starts and in the code folder: `pip install -r requirements.txt` for a script, and
`pip install . -r requirements.txt` when the folder has a setup.py (a pyproject.toml alone is not
installed). Here uv installs the same into `.sagelaunch/envs/<content hash>` with `--target`; the
hosts keep this interpreter (and its torch) and get that folder as a site directory after the
standard library, as the container's site-packages is (overlay_site.py). Packages this venv
already has are excluded from the resolution (`--excludes`) unless requirements.txt names them,
as pip leaves satisfied requirements alone, so a dependency on torch never downloads another
torch. The same requirements give the same hash: a second run installs nothing.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sagelaunch import atomic
from sagelaunch.errors import UsageError
from sagelaunch.local import install_errors, overlay_site

ENVS_DIR = Path(".sagelaunch") / "envs"
REQUIREMENTS = "requirements.txt"
DONE_MARK = ".sagelaunch-complete"
# The distributions that provide each framework's import (xgboost-cpu is the CPU build).
FRAMEWORK_DISTRIBUTIONS = {
    "pytorch": ("torch",),
    "xgboost": ("xgboost", "xgboost-cpu"),
    "tensorflow": ("tensorflow", "tensorflow-cpu"),
}
# What each framework's entry points (and torchrun) import.
FRAMEWORK_MODULES = {"pytorch": "torch", "xgboost": "xgboost", "tensorflow": "tensorflow"}
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def install_command(code: Path) -> list[str] | None:
    """What the toolkit would pip-install in ``code`` (arguments after `pip install`)."""
    args = ["."] if (code / "setup.py").is_file() else []
    if (code / REQUIREMENTS).is_file():
        args += ["-r", REQUIREMENTS]
    return args or None


def overlay(code: Path, pins: list[str], say: Callable[[str], None]) -> Path | None:
    """The overlay folder holding what ``code`` asks the container to install and ``pins`` (what
    the container ships and this venv lacks), built once per content; None when nothing."""
    args = [*(install_command(code) or []), *pins]
    if not args:
        return None
    target = (ENVS_DIR / content_key(code, pins)).resolve()
    if (target / DONE_MARK).is_file():
        say(f"software: {' '.join(args)} already installed (cached in {target})")
        return target
    say(f"software: installing {' '.join(args)} into {target} ...")
    named = requirement_names(code) + [normal_name(project_name(p)) for p in pins]

    def explain(stderr: str) -> UsageError:
        what = _installing(code, pins)
        return install_errors.requirements_failure(stderr, code / REQUIREMENTS, what)

    _install(code, args, target, named, say, explain)
    say("software: installed")
    return target


def _installing(code: Path, pins: list[str]) -> str:
    """What an overlay installs, in words (requirements.txt and the container's torchvision)."""
    parts = ["the source package"] if (code / "setup.py").is_file() else []
    parts += [REQUIREMENTS] if (code / REQUIREMENTS).is_file() else []
    parts += [f"the container's {', '.join(pins)}"] if pins else []
    return " and ".join(parts)


def content_key(code: Path, pins: list[str]) -> str:
    """A hash of what decides the install: the interpreter, requirements.txt, the package, the
    container's packages."""
    digest = hashlib.sha256(f"{sys.executable}\n{sys.version}\n{pins}\n".encode())
    files = [code / REQUIREMENTS] if (code / REQUIREMENTS).is_file() else []
    if (code / "setup.py").is_file():
        files = sorted(p for p in code.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(path.relative_to(code).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:24]


def _install(
    code: Path,
    args: list[str],
    target: Path,
    named: list[str],
    say: Callable[[str], None],
    explain: Callable[[str], UsageError],
) -> None:
    """Install into a private folder, then rename it into place: two runs at once each build
    their own and the first rename wins. A failure raises what ``explain`` makes of uv's
    output."""
    building = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    excludes = building / "excludes.txt"
    excludes.write_text("\n".join(_already_installed(named)) + "\n", "utf-8")
    command = [*uv_command(), "pip", "install", "--python", sys.executable, "--target"]
    command += [str(building), "--excludes", str(excludes), *args]
    returncode, stderr = _run_showing_progress(command, code, say)
    if returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise explain(stderr)
    (building / DONE_MARK).write_text(" ".join(args), "utf-8")
    try:
        building.rename(target)
    except OSError:  # another run installed the same content first
        shutil.rmtree(building, ignore_errors=True)


def _run_showing_progress(
    command: list[str], cwd: Path, say: Callable[[str], None]
) -> tuple[int, str]:
    """Run uv, each line it reports (resolved, downloaded, installed) shown as it comes."""
    lines = []
    with subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            say("  " + line.rstrip().replace("[", "\\["))  # uv's text, not Rich markup
    return proc.returncode, "".join(lines)


def uv_command() -> list[str]:
    """uv, installed with sagelaunch[local] beside this interpreter (or on PATH)."""
    beside = Path(sys.executable).with_name("uv")
    found = str(beside) if beside.is_file() else shutil.which("uv")
    if found is None:
        from sagelaunch.install_hint import install_extra

        raise UsageError(
            f"installing {REQUIREMENTS} needs uv, which is not installed",
            f"{install_extra('local')} (or: {sys.executable} -m pip install uv)",
        )
    return [found]


def _already_installed(named: list[str]) -> list[str]:
    """This venv's distributions, less those the install names (those it installs). A framework
    installed under one of its names counts under all (tensorflow-cpu is tensorflow: tf-keras's
    requirement of tensorflow never brings a second one)."""
    installed = {normal_name(d.metadata["Name"]) for d in importlib.metadata.distributions()}
    for names in FRAMEWORK_DISTRIBUTIONS.values():
        if installed & set(names):
            installed |= set(names)
    return sorted(installed - set(named))


def requirement_names(code: Path) -> list[str]:
    """The project names requirements.txt lists (options, paths and URLs are skipped)."""
    path = code / REQUIREMENTS
    lines = path.read_text("utf-8").splitlines() if path.is_file() else []
    names = []
    for line in lines:
        text = line.split("#", 1)[0].strip()
        match = _NAME.match(text)
        if match and not text.startswith((".", "/")) and "://" not in text:
            names.append(normal_name(match.group(1)))
    return names


def project_name(requirement: str) -> str:
    """The project a requirement line names (`torch>=2; python_version > "3.9"`: torch)."""
    match = _NAME.match(requirement)
    return match.group(1) if match else requirement


def normal_name(name: str) -> str:
    """A project name as installers compare them (PEP 503: `Typing_Extensions` is
    `typing-extensions`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_framework(framework: str) -> str | None:
    """The installed version of the framework's distribution, read without importing it."""
    for name in FRAMEWORK_DISTRIBUTIONS[framework]:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def major_minor(version: str) -> tuple[int, ...] | None:
    """(2, 8) from "2.8.0", "2.8.0+cpu", "2.8" or the XGBoost container's "1.7-1"."""
    numbers = re.findall(r"\d+", version.split("+")[0].split("-")[0])
    return tuple(int(n) for n in numbers[:2]) if len(numbers) >= 2 else None


def version_warning(
    framework: str, framework_version: str | None, key: str = "framework_version"
) -> str | None:
    """A warning when the installed framework is not the container's major.minor, with the fix
    that can work here: local.framework: match only where the index has a wheel of that version
    for this Python (match_installable), else what runs instead. ``key``: the config's name for
    the version (a Hugging Face job's pytorch_version)."""
    installed = installed_framework(framework)
    if not framework_version or installed is None:
        return None
    wanted, have = major_minor(framework_version), major_minor(installed)
    if wanted is None or have is None or wanted == have:
        return None
    fix = (
        f"install torch {_dotted(wanted)} into this venv to match"
        if framework == "pytorch"
        else match_advice(framework, _dotted(wanted), installed, match_installable)
    )
    return (
        f"{key} {framework_version}, but this run uses this machine's {framework} "
        f"{installed} (local.framework: installed), not the container's {_dotted(wanted)}: "
        f"results and APIs may differ, and a script written for {_dotted(wanted)} may fail "
        f"where {_dotted(have)} changed them; {fix}"
    )


# Whether local.framework: match can install a framework version (version_warning's advice):
# asked of the index once per version, Python and index, without downloading, and bounded.
WHEEL_CHECK_TIMEOUT_S = 5.0
WHEEL_ANSWERS = "framework-wheels.json"  # in ENVS_DIR: the index's answers, per version
WHEEL_ANSWER_DAYS = 7  # a "no" may change with a new release: asked again after this
_INDEX_VARIABLES = ("UV_DEFAULT_INDEX", "UV_INDEX", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL")
_wheel_answers: dict[str, bool] = {}


def match_advice(
    framework: str,
    wanted: str,
    installed: str,
    can_install: Callable[[str, str], bool | None],
) -> str:
    """The end of the version warning: local.framework: match where ``can_install(framework,
    wanted)`` says the index has a wheel for this Python; else what runs instead (no wheel: why
    match cannot help; None, no answer: match is not suggested)."""
    answer = can_install(framework, wanted)
    if answer:
        return f"set local.framework: match to install and run {framework} {wanted} instead"
    if answer is False:
        return (
            f"local.framework: match cannot install {framework} {wanted} here (no wheel of it "
            f"for {install_errors.this_python()}), so this machine's {framework} {installed} "
            f"runs: use a venv with a Python {framework} {wanted} supports, or run the "
            "container itself with --docker"
        )
    return (
        f"this machine's {framework} {installed} runs (the package index did not say whether "
        f"{framework} {wanted} can be installed for {install_errors.this_python()})"
    )


def match_installable(framework: str, wanted: str) -> bool | None:
    """Whether the package index has a wheel of ``framework`` ``wanted`` (major.minor) for this
    Python, as framework_overlay would install it: True, False, or None where the index did not
    answer in WHEEL_CHECK_TIMEOUT_S (or uv is missing). Never raises; answers are cached in this
    process and in ENVS_DIR."""
    name = FRAMEWORK_DISTRIBUTIONS[framework][0]
    pin = f"{name}=={wanted}.*"
    index = [f"{v}={os.environ[v]}" for v in _INDEX_VARIABLES if os.environ.get(v)]
    key = " ".join([pin, sys.executable, *index])
    if key not in _wheel_answers:
        stored = _stored_wheel_answer(key)
        answer = stored if stored is not None else _ask_index(name, pin)
        if answer is None:
            return None
        _wheel_answers[key] = answer
        if stored is None:
            _store_wheel_answer(key, answer)
    return _wheel_answers[key]


def _ask_index(name: str, pin: str) -> bool | None:
    try:
        # One try: uv's retries of a refused connection alone outlast the timeout.
        retries = {"UV_HTTP_RETRIES": os.environ.get("UV_HTTP_RETRIES", "0")}
        done = _dry_run(name, pin, WHEEL_CHECK_TIMEOUT_S, {**os.environ, **retries})
    except Exception:  # no uv, or anything else: no answer (advice never fails the run)
        return None
    if done is None:
        return None
    if done.returncode == 0:
        return True
    if install_errors.no_wheel(done.stderr):
        return False
    said = " ".join(done.stderr.split()).lower()
    if "no solution found" in said and "network was disabled" not in said:
        return False  # no such version at all
    return None  # the index unreachable (or offline without its page cached), or another error


def _dry_run(
    name: str, pin: str, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str] | None:
    """uv's resolution of ``pin`` for this interpreter, wheels only and without dependencies:
    nothing downloaded or installed, and nothing written in uv's cache (~/.cache/uv: the answer
    is kept in ENVS_DIR). None when the index did not answer within ``timeout``."""
    command = [*uv_command(), "pip", "install", "--dry-run", "--no-deps", "--no-cache"]
    command += ["--only-binary", name]
    with tempfile.TemporaryDirectory() as nowhere:
        command += ["--python", sys.executable, "--target", nowhere, pin]
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return None


def _wheel_answers_file() -> Path:
    return ENVS_DIR / WHEEL_ANSWERS


def _stored_wheel_answer(key: str) -> bool | None:
    try:
        entry = json.loads(_wheel_answers_file().read_text("utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("installable"), bool):
        return None
    if time.time() - float(entry.get("asked", 0)) > WHEEL_ANSWER_DAYS * 86400:
        return None
    return bool(entry["installable"])


def _store_wheel_answer(key: str, answer: bool) -> None:
    """Best effort: an advisory answer that cannot be stored is asked again next run."""
    path = _wheel_answers_file()
    try:
        answers = json.loads(path.read_text("utf-8")) if path.is_file() else {}
        if not isinstance(answers, dict):
            answers = {}
        answers[key] = {"installable": answer, "asked": int(time.time())}
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(path, json.dumps(answers, indent=1, sort_keys=True) + "\n")
    except (OSError, ValueError):
        pass


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(str(n) for n in version)


def framework_overlay(framework: str, version: str, say: Callable[[str], None]) -> Path:
    """A cached overlay with the framework at the config's major.minor, from the package index's
    wheels (never built from source). PyTorch is refused: the index's torch wheels are CUDA
    builds of gigabytes. A version with no wheel for this Python is refused with uv's reason
    and what would run instead."""
    wanted = major_minor(version)
    name = FRAMEWORK_DISTRIBUTIONS[framework][0]
    pin = f"{name}=={_dotted(wanted or ())}.*"
    if framework == "pytorch":
        raise _torch_refusal(version, pin)
    target = (ENVS_DIR / ("framework-" + hashlib.sha256(pin.encode()).hexdigest()[:16])).resolve()
    if not (target / DONE_MARK).is_file():
        say(f"software: installing {pin} (local.framework: match) into {target} ...")
        requirements = target.with_name(target.name + ".in")
        requirements.parent.mkdir(parents=True, exist_ok=True)
        requirements.write_text(pin + "\n", "utf-8")
        args = ["--only-binary", name, "-r", requirements.name]
        installed = installed_framework(framework) or "(none)"

        def explain(stderr: str) -> UsageError:
            wanted_text = _dotted(wanted or ())
            return install_errors.framework_failure(stderr, framework, wanted_text, pin, installed)

        _install(requirements.parent, args, target, [name], say, explain)
    return target


def _torch_refusal(version: str, pin: str) -> UsageError:
    """Why ``local.framework: match`` installs no torch: the index's torch wheels are CUDA
    builds of gigabytes, and the CPU builds on download.pytorch.org cover the same Pythons, so
    a torch with no wheel for this Python (torch 1.13 on 3.11) cannot run here at all: the index
    is asked (resolution only, nothing downloaded) to tell which."""
    installed = installed_framework("pytorch") or "(none)"
    wanted = _dotted(major_minor(version) or ())
    done = _dry_run("torch", pin, 60)  # no answer: the index's CUDA builds are reason enough
    reason = install_errors.no_wheel(done.stderr) if done is not None and done.returncode else None
    if reason:
        return UsageError(
            f"local.framework: match cannot install torch {wanted} on this machine: no torch "
            f"{wanted} is built for {install_errors.this_python()} ({reason})",
            f"set local.framework: installed to run this machine's torch {installed} instead "
            f"(results and APIs may differ from the container's {wanted}), use a venv with a "
            f"Python torch {wanted} supports, or run the container itself with --docker",
        )
    return UsageError(
        f"local.framework: match cannot install torch {version} here: the package index "
        "has only its CUDA builds (gigabytes); the CPU builds live on download.pytorch.org",
        f"pip install 'torch=={version}.*' --index-url https://download.pytorch.org/whl/cpu "
        "into this venv, or set local.framework: installed to run this machine's torch "
        f"{installed} instead",
    )


@contextmanager
def on_path(
    folders: list[Path], hidden: Path | None = None, environment: dict[str, str] | None = None
) -> Iterator[None]:
    """While the hosts' environments are built, this process's environment gives every host
    process (mpirun's ranks and TF parameter servers included) the overlays as site directories
    after the standard library, first wins (overlay_site.py): PYTHONPATH leads with the folder
    holding its sitecustomize.py (after the code folder, which environment.py puts first), and
    SAGELAUNCH_SITE_PACKAGES names the overlays, SAGELAUNCH_HIDDEN_MODULES the file of modules
    the job's image does not hold (job_packages.py); ``environment`` is what that software needs
    (TF_USE_LEGACY_KERAS). One run at a time (a local sweep's trials are threads of one
    process, and the environment is the process's): the others wait the few milliseconds the
    hosts' environments take to build."""
    with _ENVIRONMENT_LOCK:
        yield from _on_path(folders, hidden, environment or {})


_ENVIRONMENT_LOCK = threading.Lock()


def _on_path(
    folders: list[Path], hidden: Path | None, environment: dict[str, str]
) -> Iterator[None]:
    names = ("PYTHONPATH", overlay_site.VARIABLE, overlay_site.HIDDEN_VARIABLE, *environment)
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(environment)
    if folders or hidden:
        before = saved["PYTHONPATH"]
        # Beside the overlays where there are some (so a sandbox binds them too), else beside the
        # hidden file in the run folder: nothing written outside the run for it.
        bootstrap = site_bootstrap(None if folders or hidden is None else hidden.parent)
        os.environ["PYTHONPATH"] = os.pathsep.join([str(bootstrap), *filter(None, [before])])
        os.environ[overlay_site.VARIABLE] = os.pathsep.join(map(str, folders))
    if hidden:
        os.environ[overlay_site.HIDDEN_VARIABLE] = str(hidden)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def site_bootstrap(folder: Path | None = None) -> Path:
    """``folder`` (default ENVS_DIR), holding a copy of overlay_site.py as its sitecustomize.py
    (with its bytecode: in the sandbox the folder is read-only). The overlays live in ENVS_DIR,
    so a sandbox binding what PYTHONPATH names under /tmp binds them too (the stand-ins are
    sagelaunch's own files, which it binds anyway); no import asks for their names, which are
    hashes."""
    folder = (folder or ENVS_DIR).resolve()
    source = Path(overlay_site.__file__).read_text("utf-8")
    script = folder / "sitecustomize.py"
    if not script.is_file() or script.read_text("utf-8") != source:
        folder.mkdir(parents=True, exist_ok=True)
        writing = folder / f"sitecustomize.{os.getpid()}.tmp"
        writing.write_text(source, "utf-8")
        writing.replace(script)  # two runs at once write the same text
        py_compile.compile(str(script), doraise=False)
    return folder

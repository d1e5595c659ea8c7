"""Each training image's packages with their dependencies, resolved: what a job in that image can
import beyond what its definition names (the XGBoost 1.7-1 image installs scikit-learn, so joblib
is there too).

image_software.py reads what each image pip-, uv- or conda-installs; here that set, as the image
writes each requirement, is resolved by `uv pip compile` against PyPI for this interpreter's
Python and platform, one lock per image under data/images/locks/, committed:

    python -m sagelaunch.local.image_locks [--check] [--only SUBSTRING] [--jobs N]

The input: every package the image takes from the package index or conda (not conda's python,
and not what PyPI does not have, both recorded as dropped), and the image's own framework as the
image pins it wherever it comes from (torch from a URL wheel as `torch==2.4.0`). What the image
builds itself or takes from a URL, a VCS or another index is recorded as `elsewhere`. Binary
wheels only where the set resolves so; a project with no wheel at all is read from its source
distribution. Where the exact set does not resolve (an old pin without a wheel for this Python,
pins in conflict), the pins uv names in its error lose their version specifier, one step at a
time, each recorded as `relaxed` with why; what still does not resolve is dropped. A CPU PyTorch
image's lock omits the CUDA packages PyPI's torch depends on (the image's CPU build has none).

At run time `resolved(image)` reads the lock (no network, a few milliseconds); --check
re-resolves nothing: each lock's recorded image files and their sha256 are still those stored.
"""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from urllib.parse import unquote

from sagelaunch.local import image_software
from sagelaunch.local.image_software import Image, Shipped
from sagelaunch.local.software import FRAMEWORK_DISTRIBUTIONS, normal_name, uv_command

GENERATOR = "python -m sagelaunch.local.image_locks"
LOCKS = "locks"
# The image's name where PyPI's differs: conda calls torch "pytorch"; the AWS GPU build of
# TensorFlow (tensorflow_gpu-2.14.1) is, on PyPI, tensorflow itself (CUDA included since 2.1).
PYPI_NAMES = {"pytorch": "torch", "tensorflow-gpu": "tensorflow"}
# Conda's own packages, which PyPI holds no distribution of (PyPI's "conda" is a 2017 sdist of
# another age; cpuonly and pytorch-cuda are conda metapackages choosing a build of pytorch).
CONDA_ONLY = {"python", "conda", "cpuonly", "pytorch-cuda"}
# How many times one image's set is relaxed before what is left is given up on.
STEPS = 40
_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_SPEC = r"(?:\[[^\]]*\])?(?:[=<>!~][^\s,]*)?"
NO_WHEEL = "no wheel for this Python and platform"


# ---------------------------------------------------------------------------------------------
# Reading a lock
# ---------------------------------------------------------------------------------------------


def locks_dir() -> Path:
    """data/images/locks/ of the installed package."""
    return image_software.data_dir() / LOCKS


def lock_path(image: Image) -> Path:
    """The image's lock file: <framework>-<version>-<kind>.lock."""
    return locks_dir() / f"{image.framework}-{image.version}-{image.kind}.lock"


@cache
def resolved(image: Image) -> dict[str, str]:
    """What the image holds with its dependencies: normalised distribution name -> version."""
    found = {}
    for line in lock_path(image).read_text("utf-8").splitlines():
        name, sep, version = line.partition("==")
        if sep and not line.startswith("#"):
            found[normal_name(name.strip())] = version.strip()
    return found


@dataclass(frozen=True)
class Header:
    """A lock's recorded source: how and from what it was resolved."""

    files: dict[str, str]  # the image's data files -> their sha256 header field
    generator: str
    uv: str
    python: str
    date: str
    relaxed: dict[str, str]  # normalised name -> why its pin was dropped
    dropped: dict[str, str]  # normalised name -> why it is not in the lock
    renamed: dict[str, str]  # the image's name -> PyPI's
    lines: dict[str, list[str]]  # every header field's values, as written


def header(image: Image) -> Header:
    """The lock's header lines, read."""
    return parse_header(lock_path(image).read_text("utf-8"))


def parse_header(text: str) -> Header:
    """A lock text's `# key: value` lines as a Header."""
    lines: dict[str, list[str]] = {}
    for line in text.splitlines():
        key, sep, value = line.removeprefix("# ").partition(": ")
        if line.startswith("# ") and sep and re.fullmatch(r"[a-z]+", key):
            lines.setdefault(key, []).append(value)

    def first(key: str) -> str:
        """A single-valued field ("" where absent)."""
        return lines.get(key, [""])[0]

    def named(key: str) -> dict[str, str]:
        """A `name (why)` field's values by normalised name."""
        return {normal_name(v.split(" ", 1)[0]): v.partition(" ")[2] for v in lines.get(key, [])}

    files = dict(v.split(" sha256=") for v in lines.get("file", []))
    renamed = {}
    for value in lines.get("renamed", []):  # "pytorch as torch (PyPI's name)"
        ours, _, pypi = value.split(" ")[:3]
        renamed[normal_name(ours)] = normal_name(pypi)
    return Header(files, first("generator"), first("uv"), first("python"), first("date"),
                  named("relaxed"), named("dropped"), renamed, lines)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# The input: what the image names, as uv reads it
# ---------------------------------------------------------------------------------------------


@dataclass
class Plan:
    """One image's requirements for uv and what was done to them."""

    image: Image
    wanted: dict[str, str]  # normalised name -> the requirement uv gets
    pins: dict[str, str]  # normalised name -> as the image writes it
    relaxed: dict[str, str] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (header key, value)
    sdists: set[str] = field(default_factory=set)  # no wheel at all: read from the sdist
    restored: set[str] = field(default_factory=set)


def plan(image: Image) -> Plan:
    """The image's requirements: index and conda packages, and its framework wherever from."""
    made = Plan(image, {}, {})
    own = set(FRAMEWORK_DISTRIBUTIONS[image.base_framework])
    for key, shipped in image_software.packages(image).items():
        pypi = PYPI_NAMES.get(key, key)
        if shipped.origin == "conda" and key in CONDA_ONLY:
            made.dropped[key] = f"(image pins {shipped.requirement}: conda's own, not on PyPI)"
        elif shipped.origin in ("index", "conda"):
            _want(made, key, pypi, shipped.requirement)
        elif pypi in own:
            _want(made, key, pypi, _framework_pin(shipped, pypi))
            made.notes.append(("framework", f"{pypi} as {shipped.requirement} ({shipped.origin})"))
        else:
            made.notes.append(("elsewhere", f"{shipped.requirement} ({shipped.origin})"))
    return made


def _want(made: Plan, key: str, pypi: str, requirement: str) -> None:
    """One requirement for uv, under PyPI's name (recorded where that is not the image's)."""
    if pypi != key:
        requirement = pypi + requirement[len(_bare(requirement)) :]
        made.notes.append(("renamed", f"{key} as {pypi} (PyPI's name)"))
    made.wanted[pypi] = requirement
    made.pins[pypi] = requirement


def _framework_pin(shipped: Shipped, pypi: str) -> str:
    """`torch==2.4.0` for torch-2.4.0+cpu-cp311-...whl from a URL, or torch==2.7.1 from
    another index: PyPI's release of the version the image installs."""
    if shipped.origin in ("url", "path"):
        wheel = unquote(shipped.requirement.rsplit("/", 1)[-1])
        version = wheel.split("-")[1] if wheel.count("-") >= 2 else ""
    else:
        version = shipped.requirement.partition("==")[2]
    version = version.split("+")[0]
    return f"{pypi}=={version}" if version else pypi


def _bare(requirement: str) -> str:
    """The requirement's name and extras, its version specifier dropped."""
    found = re.match(rf"\s*{_NAME}\s*(?:\[[^\]]*\])?", requirement)
    return found.group(0).strip() if found else requirement.strip()


def _pinned(made: Plan, name: str) -> bool:
    """Whether uv still gets a version specifier for it (what relaxing can drop)."""
    return _bare(made.wanted[name]) != made.wanted[name].strip()


# ---------------------------------------------------------------------------------------------
# Resolving, relaxing where it must
# ---------------------------------------------------------------------------------------------


def compile_set(made: Plan) -> subprocess.CompletedProcess[str]:
    """One `uv pip compile` of the plan's requirements for this interpreter."""
    command = [*uv_command(), "pip", "compile", "-", "--python", sys.executable]
    command += ["--no-header", "--no-annotate", "--color", "never"]
    if made.sdists:
        for name in sorted(set(made.wanted) - made.sdists):
            command += ["--only-binary", name]
    else:
        command += ["--only-binary", ":all:"]
    text = "\n".join(made.wanted.values()) + "\n"
    return subprocess.run(command, input=text, capture_output=True, text=True, timeout=900)


def resolve(made: Plan) -> dict[str, str] | None:
    """The plan's set resolved, relaxing it step by step; None where it never resolves."""
    for _ in range(STEPS):
        done = compile_set(made)
        if done.returncode == 0:
            return _pins(done.stdout)
        if not step(made, done.stderr):
            made.notes.append(("error", " ".join(done.stderr.split())[:400]))
            return None
    return None


def _pins(text: str) -> dict[str, str]:
    """uv's `name==version` lines, by normalised name."""
    found = {}
    for line in text.splitlines():
        name, sep, version = line.partition("==")
        if sep and not line.startswith("#"):
            found[normal_name(name.strip())] = version.strip()
    return found


_SPECIFIC = [
    (rf"(?:all versions of )?({_NAME}){_SPEC} (?:has|have) no usable wheels", NO_WHEEL),
    (rf"({_NAME}){_SPEC} has no wheels with a matching", NO_WHEEL),
    (rf"({_NAME}) was not found in the package registry", "not on PyPI"),
    (rf"there is no version of ({_NAME})", "no such version on PyPI"),
    (rf"Failed to (?:download and )?build `({_NAME})", "its sdist does not build"),
]


def step(made: Plan, error: str) -> bool:
    """One relaxation from uv's error: False where it names nothing that can be relaxed."""
    acted = False
    for pattern, why in _SPECIFIC:
        for name in dict.fromkeys(normal_name(n) for n in re.findall(pattern, error)):
            acted |= _act(made, name, why)
    if acted:
        return True
    named = [n for n in made.wanted if _mentions(error, n)]
    pinned = [n for n in named if _pinned(made, n)]
    why = "conflicts with the image's other pins"
    if "Python>=" in error or "Python<" in error or "Python==" in error:
        why = "needs another Python"
    for name in pinned:
        _relax(made, name, why)
    if not pinned and named:
        _drop(made, named[-1], why)
    return bool(named)


def _act(made: Plan, name: str, why: str) -> bool:
    """Relax, read from the sdist or drop one package uv names; False where nothing changes."""
    if name not in made.wanted:  # a dependency: where no wheel has it, its sdist
        new = why == NO_WHEEL and name not in made.sdists
        made.sdists.add(name)
        return new
    relaxed_before = made.wanted[name] != made.pins[name]
    if why == NO_WHEEL and relaxed_before and name not in made.restored:
        return _restore(made, name)  # no newer release has a wheel either
    if _pinned(made, name):
        return _relax(made, name, why)
    if why == NO_WHEEL and name not in made.sdists:  # no release has a wheel: its sdist
        made.sdists.add(name)
        return True
    return _drop(made, name, why)


def _restore(made: Plan, name: str) -> bool:
    """The image's own pin again, read from its sdist: no wheel of any release fits it."""
    made.restored.add(name)
    made.sdists.add(name)
    made.relaxed.pop(name, None)
    made.wanted[name] = made.pins[name]
    return True


def _relax(made: Plan, name: str, why: str) -> bool:
    """Loosen the pin uv cannot meet (a newer release first, then any); the header says why."""
    current = made.wanted[name]
    floor = re.fullmatch(r"\s*==\s*([0-9][^,;\s*]*?)(?:\.\*)?\s*", current[len(_bare(current)) :])
    if current == made.pins[name] and floor:
        made.wanted[name] = f"{_bare(current)}>={floor.group(1)}"
    else:
        made.wanted[name] = _bare(current)
    made.relaxed[name] = f"(image pins {made.pins[name]}: {why}; as {made.wanted[name]})"
    return True


def _drop(made: Plan, name: str, why: str) -> bool:
    """Give up on a package no version of which resolves here; the header says why."""
    made.dropped[name] = f"(image pins {made.pins[name]}: {why})"
    made.relaxed.pop(name, None)
    del made.wanted[name]
    return True


def _mentions(error: str, name: str) -> bool:
    """Whether uv's error names the distribution (normalised, whole name)."""
    spelled = r"[-_.]".join(re.escape(part) for part in name.split("-"))
    whole = rf"(?<![A-Za-z0-9_.-]){spelled}(?![A-Za-z0-9_-]|\.[A-Za-z0-9])"
    return re.search(whole, error, re.I) is not None


# ---------------------------------------------------------------------------------------------
# Writing and checking the locks
# ---------------------------------------------------------------------------------------------


def _cuda_omitted(made: Plan, pins: dict[str, str]) -> dict[str, str]:
    """What a CPU PyTorch image does not hold of PyPI's torch: its CUDA packages."""
    if made.image.framework != "pytorch" or made.image.kind != "cpu":
        return {}
    return {
        n: v
        for n, v in pins.items()
        if (n.startswith("nvidia-") or n in ("triton", "cuda-bindings", "cuda-pathfinder"))
        and n not in made.pins
    }


def render(made: Plan, pins: dict[str, str] | None, uv: str) -> str:
    """The lock's text: its header, then one `name==version` a line."""
    image = made.image
    if pins is None:
        made.notes.append(("unresolved", "the set did not resolve: the lock holds nothing"))
    pins = dict(pins or {})
    omitted = _cuda_omitted(made, pins)
    for name in omitted:
        del pins[name]
    python = f"{platform.python_version()} ({sys.implementation.name}, {platform.machine()}, "
    python += "{} {})".format(*platform.libc_ver())
    wheels = "binary wheels only"
    if made.sdists:
        wheels = "binary wheels, but the sdist of " + ", ".join(sorted(made.sdists))
    lines = [
        f"# The {image.label}'s packages with their dependencies, resolved from PyPI.",
        f"# Written by `{GENERATOR}`; do not edit (--check compares the image files' sha256).",
        f"# image: {image.framework} {image.version} {image.kind}",
        *(f"# file: {n} sha256={_sha256(n)}" for n in image.files),
        f"# generator: {GENERATOR} --only {lock_path(image).stem}",
        f"# uv: {uv}",
        f"# python: {python}",
        f"# date: {datetime.now(timezone.utc).date().isoformat()}",
        f"# wheels: {wheels}",
        *(f"# relaxed: {n} {why}" for n, why in sorted(made.relaxed.items())),
        *(f"# dropped: {n} {why}" for n, why in sorted(made.dropped.items())),
        *(f"# {key}: {value}" for key, value in dict.fromkeys(made.notes)),
    ]
    if omitted:
        names = ", ".join(f"{n}=={v}" for n, v in sorted(omitted.items()))
        lines.append(f"# omitted: {names} (PyPI torch's CUDA packages: the CPU build has none)")
    body = [f"{n}=={v}" for n, v in sorted(pins.items())]
    return "\n".join(lines) + "\n\n" + "\n".join(body) + ("\n" if body else "")


def _sha256(name: str) -> str:
    """A data file's recorded sha256 of its published source: what --check compares."""
    return image_software.stored(name)[0].get("sha256", "")


def generate(image: Image, uv: str) -> tuple[str, Plan, float]:
    """One image's lock text, its plan (what was relaxed and dropped) and the seconds it took."""
    started = time.monotonic()
    made = plan(image)
    pins = resolve(made)
    return render(made, pins, uv), made, time.monotonic() - started


def check() -> list[str]:
    """What is stale: a missing lock, one whose image files or their sha256 have changed, one
    no image has."""
    problems = []
    images = image_software.images()
    for image in images:
        path = lock_path(image)
        if not path.is_file():
            problems.append(f"no lock: {path.name}")
            continue
        recorded = parse_header(path.read_text("utf-8")).files
        if recorded != {n: _sha256(n) for n in image.files}:
            problems.append(f"its image files changed since it was resolved: {path.name}")
    known = {lock_path(i).name for i in images}
    extra = sorted(p.name for p in locks_dir().glob("*.lock") if p.name not in known)
    problems += [f"no image has it: {name}" for name in extra]
    return problems


def main(argv: list[str] | None = None) -> int:
    """Write every image's lock (or those --only names), or --check them."""
    parser = argparse.ArgumentParser(prog=GENERATOR, description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="verify, resolve nothing")
    parser.add_argument(
        "--only", action="append", metavar="SUBSTRING", help="the images whose lock name has it"
    )
    parser.add_argument("--jobs", type=int, default=2, help="images resolved at once")
    args = parser.parse_args(argv)
    if args.check:
        problems = check()
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    wanted = args.only or [""]
    images = [i for i in image_software.images() if any(w in lock_path(i).stem for w in wanted)]
    uv = subprocess.run([*uv_command(), "--version"], capture_output=True, text=True).stdout
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        done = pool.map(lambda i: generate(i, uv.strip()), images)
        for image, (text, made, seconds) in zip(images, done, strict=True):
            lock_path(image).parent.mkdir(parents=True, exist_ok=True)
            lock_path(image).write_text(text, "utf-8")
            print(
                f"{lock_path(image).name}: {len(resolved.__wrapped__(image))} packages, "
                f"{len(made.relaxed)} relaxed, {len(made.dropped)} dropped, {seconds:.0f} s",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The training images' software, as data: what each SageMaker framework image installs, read from
the images' own published definitions.

Each file under data/images/ is a verbatim excerpt of one published file (a Dockerfile of the AWS
Deep Learning Containers or of the XGBoost container, the XGBoost container's requirements.txt, a
DLC image's pyproject.toml), its source (repository, path, commit, sha256 of the whole file) in
its header; data/images/index.json says which files make each image (framework, version, CPU or
GPU). Of a Dockerfile the excerpt keeps the instructions that decide what Python packages the
image holds (FROM, ARG, ENV, the RUN instructions that run pip, uv or conda, and COPY of a
requirements file or from another stage), each with all its lines; a requirements.txt or
pyproject.toml is kept whole. Nothing here is typed by hand: the generator writes them all,

    python -m sagelaunch.local.image_software [--git OWNER/NAME=GIT_DIR ...] [--check]

reading each source at its recorded commit (from a local clone given with --git, else from
raw.githubusercontent.com), and --check says whether the stored files are still what it writes.

At run time (no network, a few milliseconds) the chosen image's files are parsed: the build
stages that make the SageMaker image (the `sagemaker` stage, else the last one, the stages it
builds on and those it copies from), their ARG and ENV values (`torchdata==${TORCHDATA_VERSION}`
reads as the Dockerfile pins it), each pip, uv or conda install and uninstall in order, a
`-r requirements.txt` and a `uv sync --extra sagemaker` read from the image's own files. Each
package keeps the requirement the image writes and where it came from: the package index, conda,
a URL, a VCS, a local path or built in the image (`--no-build-isolation`, against the image's own
torch and CUDA).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from urllib.parse import unquote

from sagelaunch.hyperparameters import decode

GENERATOR = "python -m sagelaunch.local.image_software"
INDEX = "index.json"


# ---------------------------------------------------------------------------------------------
# What an image ships
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shipped:
    """One package an image installs."""

    name: str  # the distribution as the definition spells it
    requirement: str  # as the definition writes it, variables resolved (conda's `=` as `==X.*`)
    origin: str  # index, "index URL" (another index), conda, url, vcs, path or build


@dataclass(frozen=True)
class Image:
    """One training image: a framework's version, for CPU or GPU instances (XGBoost: either)."""

    framework: str
    version: str
    kind: str  # cpu, gpu, or any (the XGBoost container is one image for both)
    files: tuple[str, ...]  # under data/images/: the definitions, in build order

    @property
    def label(self) -> str:
        kind = "" if self.kind == "any" else f" {self.kind.upper()}"
        return f"{self.framework} {self.version}{kind} image"


@dataclass(frozen=True)
class Choice:
    image: Image
    note: str | None  # why this image stands for the job's, where it is not the job's own


def normal_name(name: str) -> str:
    """A distribution name as installers compare them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def data_dir() -> Path:
    """data/images/ of the installed package."""
    return Path(str(resources.files("sagelaunch").joinpath("data").joinpath("images")))


@cache
def images() -> tuple[Image, ...]:
    """Every stored image, as index.json lists them."""
    index = json.loads((data_dir() / INDEX).read_text("utf-8"))
    return tuple(
        Image(entry["framework"], entry["version"], entry["kind"], tuple(entry["files"]))
        for entry in index["images"]
    )


@cache
def packages(image: Image) -> dict[str, Shipped]:
    """What ``image`` installs and keeps, by normalised distribution name."""
    found: dict[str, Shipped] = {}

    def read(path: str) -> str | None:
        """One of the image's files by the name a Dockerfile gives it: `-r /requirements.txt`
        reads xgboost-3.0-5.requirements.txt, `uv sync` pytorch-2.13-cpu.pyproject.toml."""
        wanted = Path(path).name
        named = [n for n in image.files if n == wanted or n.endswith("." + wanted)]
        return body(named[0]) if named else None

    for name in image.files:
        if name.endswith("Dockerfile"):
            for action, shipped in dockerfile_packages(body(name), read):
                key = normal_name(shipped.name)
                if action == "uninstall":
                    found.pop(key, None)
                else:
                    found[key] = shipped
    return found


def choose(
    framework: str, framework_version: str | None, instance_type: str | None
) -> Choice | None:
    """The stored image for a job: its framework, its framework_version (2.8 and 2.8.0 alike; the
    nearest older stored version, with a note, where that one is not stored) and CPU or GPU by its
    instance type. None where no image of the framework is stored."""
    kind, note = _kind(instance_type)
    stored = [i for i in images() if i.framework == framework and i.kind in (kind, "any")]
    if not stored:
        return None
    stored.sort(key=lambda i: _version_key(i.version))
    if framework_version is None:
        return Choice(stored[-1], note)
    wanted = _version_key(framework_version)
    if len(wanted) < 2:  # not a version this compares: the newest image
        return Choice(stored[-1], note)
    exact = [i for i in stored if _version_key(i.version) == wanted]
    if exact:
        return Choice(exact[-1], note)
    older = [i for i in stored if _version_key(i.version) < wanted]
    image = older[-1] if older else stored[0]
    which = "the nearest older one stored" if older else "the oldest stored"
    why = (
        f"the {framework} {framework_version} image's packages are not stored with sagelaunch: "
        f"those of the {image.label} ({which}) stand for them"
    )
    return Choice(image, f"{note}; {why}" if note else why)


def _version_key(version: str) -> tuple[int, ...]:
    """(2, 8) from 2.8, 2.8.0 or 2.8.0+cpu; (1, 7) from XGBoost's 1.7-1 (as local.framework
    compares versions)."""
    numbers = re.findall(r"\d+", version.split("+")[0].split("-")[0])
    return tuple(int(n) for n in numbers[:2])


def _kind(instance_type: str | None) -> tuple[str, str | None]:
    """cpu or gpu by the instance type (config/facts.py: the catalog, else the family letter);
    the SDK's local and local_gpu too. A Trainium instance runs the Neuron images, whose packages
    are not stored: the CPU image's stand for them."""
    if not instance_type or instance_type == "local":
        return "cpu", None
    if instance_type == "local_gpu":
        return "gpu", None
    from sagelaunch.config import facts

    kind = facts.instance_kind(instance_type)
    if kind == "trainium":
        return "cpu", (
            f"{instance_type} runs the Neuron images, whose packages are not stored with "
            "sagelaunch: the CPU image's stand for them"
        )
    return ("gpu" if kind == "gpu" else "cpu"), None


# ---------------------------------------------------------------------------------------------
# The stored files
# ---------------------------------------------------------------------------------------------


def stored(name: str) -> tuple[dict[str, str], str]:
    """A data file's header fields (repo, path, commit, sha256, ...) and its body: what it holds
    of the published file, verbatim."""
    text = (data_dir() / name).read_text("utf-8")
    header, _, rest = text.partition("\n\n")
    fields = {}
    for line in header.splitlines():
        key, sep, value = line.removeprefix("# ").partition(": ")
        if sep and re.fullmatch(r"[a-z0-9-]+", key):
            fields[key] = value
    return fields, rest


def body(name: str) -> str:
    return stored(name)[1]


# ---------------------------------------------------------------------------------------------
# Dockerfiles
# ---------------------------------------------------------------------------------------------

# A line continues when it ends with the escape character, blanks after it allowed (Docker's own
# rule: `typer \ ` continues).
_CONTINUES = re.compile(r"\\[ \t]*$")


@dataclass
class Instruction:
    keyword: str  # FROM, RUN, ...
    text: str  # the arguments, continuation lines joined as Docker joins them
    lines: list[str]  # the physical lines, verbatim (interior comment lines included)


def instructions(text: str) -> Iterator[Instruction]:
    """A Dockerfile's instructions. Comment and blank lines between instructions are skipped, and
    inside a continued instruction too, as Docker skips them."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if _blank_or_comment(lines[i]):
            i += 1
            continue
        start = i
        parts: list[str] = []
        while i < len(lines):
            line = lines[i]
            i += 1
            if len(parts) and _blank_or_comment(line):
                continue
            match = _CONTINUES.search(line)
            if not match:
                parts.append(line)
                break
            parts.append(line[: match.start()])
        keyword, _, rest = "".join(parts).strip().partition(" ")
        end = i
        while end > start + 1 and _blank_or_comment(lines[end - 1]):
            end -= 1  # a continuation into the end of the file: its trailing blanks are not its own
        yield Instruction(keyword.upper(), rest.strip(), lines[start:end])


def _blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def excerpt(text: str) -> str:
    """What is stored of a Dockerfile: the instructions that decide its Python packages, each
    whole and verbatim, in order (FROM, ARG, ENV; RUN of pip, uv or conda; COPY of a requirements
    file or pyproject.toml, and COPY --from another stage)."""
    kept = [line for ins in instructions(text) if _decides_packages(ins) for line in ins.lines]
    return "\n".join(kept) + "\n"


def _decides_packages(ins: Instruction) -> bool:
    if ins.keyword in ("FROM", "ARG", "ENV"):
        return True
    if ins.keyword == "RUN":
        return any(_installer(words) for words in _commands(_run_command(ins.text)))
    if ins.keyword == "COPY":
        return "--from=" in ins.text or bool(re.search(r"requirements[^ ]*\.txt|\.toml", ins.text))
    return False


@dataclass(eq=False)  # a stage is itself: compared by identity
class _Stage:
    name: str | None
    base: str
    instructions: list[Instruction] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # its ENV values once built


def dockerfile_packages(text: str, read: Callable[[str], str | None]) -> list[tuple[str, Shipped]]:
    """("install" | "uninstall", package) in the order the SageMaker image's stages run them.
    ``read`` gives the image's other files by name (requirements.txt, pyproject.toml)."""
    global_args: dict[str, str] = {}
    stages: list[_Stage] = []
    for ins in instructions(text):
        if ins.keyword == "FROM":
            words = [w for w in ins.text.split() if not w.startswith("--")]
            name = words[2] if len(words) >= 3 and words[1].lower() == "as" else None
            stages.append(_Stage(name, words[0] if words else ""))
        elif stages:
            stages[-1].instructions.append(ins)
        elif ins.keyword == "ARG":
            values = _assignments(ins.text, global_args, arg=True)
            global_args.update({k: v for k, v in values.items() if v is not None})
    if not stages:
        return []
    by_name = {s.name.lower(): s for s in stages if s.name}
    target = by_name.get("sagemaker", stages[-1])
    used = _used_stages(target, by_name)
    actions: list[tuple[str, Shipped]] = []
    for stage in stages:  # in the file's order, as they build
        parent = by_name.get(stage.base.lower())
        env = dict(parent.env) if parent else {}  # ENV carries into a stage built on it, ARG not
        scope: dict[str, str | None] = dict(env)
        for ins in stage.instructions:
            if ins.keyword == "ARG":
                for key, value in _assignments(ins.text, scope, arg=True).items():
                    scope[key] = value if value is not None else global_args.get(key)
            elif ins.keyword == "ENV":
                assigned = _assignments(ins.text, scope, arg=False)
                env.update({k: v or "" for k, v in assigned.items()})
                scope.update(env)
            elif ins.keyword == "RUN" and stage in used:
                command = _expand(_run_command(ins.text), scope)
                for words in _commands(command):
                    actions += _installs(words, read)
        stage.env = env
    return actions


def _used_stages(target: _Stage, by_name: dict[str, _Stage]) -> list[_Stage]:
    """The target stage, the stages it is built on and those it copies files from."""
    used: list[_Stage] = []
    todo = [target]
    while todo:
        stage = todo.pop()
        if stage in used:
            continue
        used.append(stage)
        if stage.base.lower() in by_name:
            todo.append(by_name[stage.base.lower()])
        for ins in stage.instructions:
            match = re.search(r"--from=(\S+)", ins.text) if ins.keyword == "COPY" else None
            if match and match.group(1).lower() in by_name:
                todo.append(by_name[match.group(1).lower()])
    return used


def _assignments(text: str, scope: Mapping[str, str | None], *, arg: bool) -> dict[str, str | None]:
    """ARG NAME[=default] ... or ENV NAME=value ... (ENV NAME value, the old form, too)."""
    try:
        words = shlex.split(_expand(text, scope))
    except ValueError:
        return {}
    if not arg and words and "=" not in words[0]:
        return {words[0]: " ".join(words[1:])}
    found: dict[str, str | None] = {}
    for word in words:
        key, sep, value = word.partition("=")
        found[key] = value if sep else None
    return found


_VARIABLE = re.compile(r"\$\{(\w+)(?::?([-+])([^}]*))?\}|\$(\w+)")


def _expand(text: str, scope: Mapping[str, str | None]) -> str:
    """${NAME}, $NAME, ${NAME:-default} and ${NAME:+word} from the build's ARG and ENV values;
    what is not known (a shell variable of the RUN itself) is left as written."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(4)
        known = scope.get(name)
        if match.group(2) == "-":
            return known if known else match.group(3)
        if match.group(2) == "+":
            return match.group(3) if known else ""
        return known if known is not None else match.group(0)

    return _VARIABLE.sub(value, text)


def _run_command(text: str) -> str:
    """The shell command of RUN [--mount=...] COMMAND (the exec form's words joined)."""
    while text.startswith("--"):
        text = text.partition(" ")[2].lstrip()
    words = decode(text) if text.startswith("[") else None
    if isinstance(words, list) and all(isinstance(word, str) for word in words):
        return shlex.join(words)
    return text


_SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")", ";;", "|&"}
_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "!"}


def _commands(command: str) -> Iterator[list[str]]:
    """The simple commands of a shell command line, as words: split at && || ; | and
    parentheses, redirections dropped, leading shell keywords and VAR=value assignments too.
    A word starting with # starts the shell's comment."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    words: list[str] = []
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: not a command this reads
        return
    redirect = False
    for token in tokens:
        if token.startswith("#"):
            break
        if redirect:
            redirect = False
            continue
        if token in _SEPARATORS:
            yield from _simple(words)
            words = []
        elif set(token) <= set("<>&") and token.strip("&"):
            redirect = True
            if words and words[-1].isdigit():
                words.pop()
        else:
            words.append(token)
    yield from _simple(words)


def _simple(words: list[str]) -> Iterator[list[str]]:
    while words and (words[0] in _KEYWORDS or re.fullmatch(r"\w+=.*", words[0])):
        words = words[1:]
    if words:
        yield words


def _installer(words: list[str]) -> tuple[str, list[str]] | None:
    """("pip" | "conda" | "uv-sync", arguments after the tool) for an install, uninstall or sync
    command; None for any other command. `${PIP}` (TensorFlow's ARG PIP=pip3) counts as pip."""
    tool = words[0].rsplit("/", 1)[-1]
    if words[1:3] == ["-m", "pip"]:
        kind, rest = "pip", words[3:]
    elif re.fullmatch(r"pip[0-9.]*|\$\{?PIP\}?", tool):
        kind, rest = "pip", words[1:]
    elif tool == "uv" and words[1:2] == ["pip"]:
        kind, rest = "pip", words[2:]
    elif tool == "uv" and words[1:2] == ["sync"]:
        return "uv-sync", words[2:]
    elif tool in ("conda", "mamba", "micromamba"):
        kind, rest = "conda", words[1:]
    else:
        return None
    subcommand = next((w for w in rest if not w.startswith("-")), "")
    if subcommand not in ("install", "uninstall", "remove"):
        return None
    return kind, rest


# pip's and uv's install options that take a value (as the next word).
_PIP_VALUED = {
    "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url",
    "--extra-index-url", "-f", "--find-links", "--trusted-host", "-t", "--target", "--prefix",
    "--root", "-C", "--config-settings", "--python", "-p", "--platform", "--python-version",
    "--implementation", "--abi", "--src", "--upgrade-strategy", "--progress-bar", "--cache-dir",
    "--log", "--timeout", "--retries", "--proxy", "--cert", "--client-cert", "--exists-action",
    "--global-option", "--install-option", "--only-binary", "--no-binary", "--index-strategy",
    "--resolution", "--prerelease", "--index", "--default-index", "--python-platform",
}  # fmt: skip
_CONDA_VALUED = {"-c", "--channel", "-n", "--name", "-p", "--prefix", "--solver", "--file"}


def _installs(words: list[str], read: Callable[[str], str | None]) -> list[tuple[str, Shipped]]:
    found = _installer(words)
    if found is None:
        return []
    kind, rest = found
    if kind == "uv-sync":
        return _uv_sync(rest, read)
    valued = _PIP_VALUED if kind == "pip" else _CONDA_VALUED
    subcommand = next(w for w in rest if not w.startswith("-"))
    action = "install" if subcommand == "install" else "uninstall"
    args = rest[rest.index(subcommand) + 1 :]
    options: dict[str, list[str]] = {}
    specs: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word.startswith("-") and len(word) > 1:
            key, sep, value = word.partition("=")
            if not sep and key in valued and i + 1 < len(args):
                value, i = args[i + 1], i + 1
            options.setdefault(key, []).append(value)
        else:
            specs.append(word)
        i += 1
    if action == "uninstall":
        return [("uninstall", Shipped(_name(s), s, "")) for s in specs if _name(s)]
    origin = "conda" if kind == "conda" else "index"
    index = (options.get("--index-url") or options.get("-i") or [""])[-1]
    if index:
        origin = f"index {index}"
    if "--no-build-isolation" in options:
        origin = "build"
    shipped = [_spec(spec, origin, conda=kind == "conda") for spec in specs]
    for path in options.get("-r", []) + options.get("--requirement", []):
        shipped += _requirements(path, read)
    return [("install", s) for s in shipped if s is not None]


def _name(spec: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec)
    return match.group(0) if match else ""


def _spec(spec: str, origin: str, *, conda: bool = False) -> Shipped | None:
    """A package argument: a requirement, or a wheel or project by URL, VCS or path."""
    spec = spec.strip()
    if not spec or "$" in spec:  # a shell variable of the RUN itself: not knowable here
        return None
    if re.match(r"(git|hg|svn|bzr)\+", spec):
        egg = re.search(r"#egg=([\w.-]+)", spec)
        name = egg.group(1) if egg else spec.split("@")[0].rstrip("/").split("/")[-1]
        return Shipped(name.removesuffix(".git"), spec, "vcs")
    if "://" in spec:
        at = spec.split(" @ ", 1)
        if len(at) == 2:
            return Shipped(_name(at[0]), spec, "url")
        return Shipped(_wheel_name(spec), spec, "url")
    if spec.startswith((".", "/", "~")) or spec.endswith((".whl", ".tar.gz", ".zip")):
        name = _wheel_name(spec)
        return Shipped(name, spec, "path") if name else None
    name = _name(spec.split("::")[-1])
    if not name:
        return None
    if conda:
        spec = spec.split("::")[-1]
        rest = spec[len(name) :]
        if rest.startswith("=") and not rest.startswith("=="):
            version = rest[1:].split("=")[0]
            spec = f"{name}=={version}" if version.endswith("*") else f"{name}=={version}.*"
    return Shipped(name, spec, origin)


def _wheel_name(location: str) -> str:
    """The distribution of a wheel by its file name (PEP 427: name-version-...); of another
    archive or folder, its name up to the version."""
    base = unquote(location.rstrip("/").split("/")[-1])
    if base in (".", ".."):
        return ""
    return re.split(r"-[0-9]|[-*]", base.removesuffix(".whl"), maxsplit=1)[0]


def _requirements(path: str, read: Callable[[str], str | None]) -> list[Shipped | None]:
    """A requirements file the image installs with -r, read from the image's stored files."""
    text = read(path)
    if text is None:
        return []
    found: list[Shipped | None] = []
    for line in text.splitlines():
        line = re.sub(r"(^|\s)#.*", "", line).strip()
        if line.startswith(("-r ", "--requirement ")):
            found += _requirements(line.split(None, 1)[1], read)
        elif line and not line.startswith("-"):
            found.append(_spec(line, "index"))
    return found


def _uv_sync(args: list[str], read: Callable[[str], str | None]) -> list[tuple[str, Shipped]]:
    """`uv sync [--extra NAME ...]` of the image's pyproject.toml: its dependencies and those
    extras, each from the index its [tool.uv.sources] names."""
    text = read("pyproject.toml")
    if text is None:
        return []
    project = toml(text)
    extras = [args[i + 1] for i, w in enumerate(args[:-1]) if w == "--extra"]
    extras += [w.split("=", 1)[1] for w in args if w.startswith("--extra=")]
    optional = project.get("project", {}).get("optional-dependencies", {})
    if "--all-extras" in args:
        extras = list(optional)
    specs = list(project.get("project", {}).get("dependencies", []))
    for extra in extras:
        specs += optional.get(extra, [])
    uv = project.get("tool", {}).get("uv", {})
    indexes = {i.get("name"): i.get("url") for i in uv.get("index", [])}
    sources = {normal_name(k): v for k, v in uv.get("sources", {}).items()}
    found = []
    for spec in specs:
        source = sources.get(normal_name(_name(spec)))
        source = source[0] if isinstance(source, list) and source else source
        index = indexes.get(source.get("index")) if isinstance(source, dict) else None
        shipped = _spec(spec, f"index {index}" if index else "index")
        if shipped:
            found.append(("install", shipped))
    return found


# ---------------------------------------------------------------------------------------------
# TOML, as much as a pyproject.toml of the images needs (tomllib is Python 3.11+)
# ---------------------------------------------------------------------------------------------


def toml(text: str) -> dict:  # type: ignore[type-arg]
    """Tables ([a.b], [[a.b]]) and key = value pairs whose values are strings, numbers, booleans,
    arrays and inline tables, over as many lines as an array takes."""
    root: dict = {}  # type: ignore[type-arg]
    table = root
    reader = _TomlValue(text)
    while True:
        reader.skip(newlines=True)
        if reader.done():
            return root
        if reader.peek("[["):
            keys = reader.header("[[", "]]")
            parent = _walk(root, keys[:-1])
            table = {}
            parent.setdefault(keys[-1], []).append(table)
        elif reader.peek("["):
            table = _walk(root, reader.header("[", "]"))
        else:
            keys = reader.keys("=")
            reader.expect("=")
            _walk(table, keys[:-1])[keys[-1]] = reader.value()


def _walk(table: dict, keys: list[str]) -> dict:  # type: ignore[type-arg]
    for key in keys:
        table = table.setdefault(key, {})
        if isinstance(table, list):
            table = table[-1]
    return table


class _TomlValue:
    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def done(self) -> bool:
        return self.at >= len(self.text)

    def peek(self, token: str) -> bool:
        return self.text.startswith(token, self.at)

    def expect(self, token: str) -> None:
        self.skip(newlines=False)
        if not self.peek(token):
            raise ValueError(f"TOML: {token!r} expected at {self.text[self.at : self.at + 30]!r}")
        self.at += len(token)

    def skip(self, *, newlines: bool) -> None:
        blanks = " \t\r\n" if newlines else " \t"
        while not self.done():
            if self.text[self.at] in blanks:
                self.at += 1
            elif self.text[self.at] == "#":
                while not self.done() and self.text[self.at] != "\n":
                    self.at += 1
            else:
                return

    def header(self, opening: str, closing: str) -> list[str]:
        self.at += len(opening)
        keys = self.keys(closing)
        self.expect(closing)
        return keys

    def keys(self, end: str) -> list[str]:
        keys = []
        while True:
            self.skip(newlines=False)
            if self.peek('"') or self.peek("'"):
                keys.append(self.string())
            else:
                match = re.compile(r"[A-Za-z0-9_-]+").match(self.text, self.at)
                if not match:
                    raise ValueError(f"TOML: a key expected at {self.at}")
                keys.append(match.group(0))
                self.at = match.end()
            self.skip(newlines=False)
            if not self.peek("."):
                return keys
            self.at += 1

    def value(self) -> object:
        self.skip(newlines=False)
        if self.peek('"""') or self.peek("'''"):
            raise ValueError("TOML: multi-line strings are not read here")
        if self.peek('"') or self.peek("'"):
            return self.string()
        if self.peek("["):
            self.at += 1
            items: list[object] = []
            while True:
                self.skip(newlines=True)
                if self.peek("]"):
                    self.at += 1
                    return items
                items.append(self.value())
                self.skip(newlines=True)
                if self.peek(","):
                    self.at += 1
        if self.peek("{"):
            self.at += 1
            table: dict = {}  # type: ignore[type-arg]
            while True:
                self.skip(newlines=False)
                if self.peek("}"):
                    self.at += 1
                    return table
                keys = self.keys("=")
                self.expect("=")
                _walk(table, keys[:-1])[keys[-1]] = self.value()
                self.skip(newlines=False)
                if self.peek(","):
                    self.at += 1
        match = re.compile(r"[^\s,\]}#]+").match(self.text, self.at)
        if not match:
            raise ValueError(f"TOML: a value expected at {self.at}")
        self.at = match.end()
        word = match.group(0)
        if word in ("true", "false"):
            return word == "true"
        try:
            return int(word.replace("_", ""))
        except ValueError:
            return float(word.replace("_", "")) if re.fullmatch(r"[-+.\deE_]+", word) else word

    def string(self) -> str:
        quote = self.text[self.at]
        self.at += 1
        out = []
        while self.text[self.at] != quote:
            char = self.text[self.at]
            if char == "\\" and quote == '"':
                self.at += 1
                escaped = self.text[self.at]
                if escaped == "u":
                    out.append(chr(int(self.text[self.at + 1 : self.at + 5], 16)))
                    self.at += 4
                else:
                    out.append({"n": "\n", "t": "\t", "r": "\r"}.get(escaped, escaped))
            else:
                out.append(char)
            self.at += 1
        self.at += 1
        return "".join(out)


# ---------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------

DLC = "aws/deep-learning-containers"
XGB = "aws/sagemaker-xgboost-container"
# The commits read. DLC's branch master holds <framework>/training/docker/<version>/py3/ (PyTorch
# up to 2.10, TensorFlow up to 2.19); its branch main docker/<framework>/, one Dockerfile and a uv
# project per version (PyTorch 2.11 on, TensorFlow 2.21). The XGBoost container's branch master
# holds 3.0-5, its branch 1.7-1 that version.
DLC_MASTER = "f06ada0e08ec0be1627f201691856eb8c28abd17"
DLC_MAIN = "e0ecedea6a1c56d6b5914f9cfb2fec5c548e67e0"
XGB_MASTER = "cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae"
XGB_1_7 = "f7a93a21e50e44b4077f0889a7f676cad8c226f3"


@dataclass(frozen=True)
class Source:
    repo: str
    commit: str
    path: str
    name: str  # the data file's name under data/images/

    @property
    def whole(self) -> bool:
        """A requirements.txt or pyproject.toml is stored whole; a Dockerfile as its excerpt."""
        return not self.name.endswith("Dockerfile")

    @property
    def url(self) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{self.path}"


def _dlc_dockerfiles(framework: str, cuda: dict[str, str]) -> list[tuple[Image, list[Source]]]:
    """The images of DLC's branch master: one Dockerfile each for CPU and GPU."""
    found = []
    for version, cu in cuda.items():
        folder = f"{framework}/training/docker/{version}/py3"
        for kind, path in (("cpu", "Dockerfile.cpu"), ("gpu", f"{cu}/Dockerfile.gpu")):
            source = Source(
                DLC, DLC_MASTER, f"{folder}/{path}", f"{framework}-{version}-{kind}.Dockerfile"
            )
            found.append((Image(framework, version, kind, (source.name,)), [source]))  # fmt: skip
    return found


def _dlc_uv(
    framework: str, versions: list[str], dockerfile: str
) -> list[tuple[Image, list[Source]]]:
    """The images of DLC's branch main: a Dockerfile (per framework or per version) whose stages
    `uv sync` the version's pyproject.toml, its `sagemaker` extra in the SageMaker stage."""
    found = []
    for version in versions:
        for kind, flavour in (("cpu", "cpu"), ("gpu", "cuda")):
            path = dockerfile.format(version=version, flavour=flavour)
            shared = "{version}" not in dockerfile  # one Dockerfile for every version
            name = f"{framework}-{kind}" if shared else f"{framework}-{version}-{kind}"
            sources = [
                Source(DLC, DLC_MAIN, path, f"{name}.Dockerfile"),
                Source(DLC, DLC_MAIN, f"docker/{framework}/{version}/{flavour}/pyproject.toml",
                       f"{framework}-{version}-{kind}.pyproject.toml"),
            ]  # fmt: skip
            found.append((Image(framework, version, kind, tuple(s.name for s in sources)), sources))
    return found


def _xgboost(version: str, commit: str) -> tuple[Image, list[Source]]:
    """The XGBoost container: a base and a final Dockerfile, and the requirements.txt the final one
    installs; one image for CPU and GPU instances."""
    name, folder = f"xgboost-{version}", f"docker/{version}"
    sources = [
        *(
            Source(XGB, commit, f"{folder}/{part}/Dockerfile.cpu", f"{name}-{part}.Dockerfile")
            for part in ("base", "final")
        ),
        Source(XGB, commit, "requirements.txt", f"{name}.requirements.txt"),
    ]  # fmt: skip
    return Image("xgboost", version, "any", tuple(s.name for s in sources)), sources


def sources() -> list[tuple[Image, list[Source]]]:
    """Every image stored, and the published files that define it."""
    pytorch_cuda = {
        "2.3": "cu121", "2.4": "cu124", "2.5": "cu124", "2.6": "cu126", "2.7": "cu128",
        "2.8": "cu129", "2.9": "cu130", "2.10": "cu130",
    }  # fmt: skip
    tensorflow_cuda = {"2.14": "cu118", "2.16": "cu123", "2.18": "cu125", "2.19": "cu125"}
    return [
        *_dlc_dockerfiles("pytorch", pytorch_cuda),
        *_dlc_uv("pytorch", ["2.11", "2.12", "2.13"], "docker/pytorch/Dockerfile.{flavour}"),
        *_dlc_dockerfiles("tensorflow", tensorflow_cuda),
        *_dlc_uv("tensorflow", ["2.21"], "docker/tensorflow/{version}/Dockerfile.{flavour}"),
        _xgboost("1.7-1", XGB_1_7),
        _xgboost("3.0-5", XGB_MASTER),
    ]


def render(source: Source, text: str) -> str:
    """A data file: its header (the source) and what it keeps of ``text``, verbatim."""
    kept = text if source.whole else excerpt(text)
    what = (
        "The whole file, verbatim."
        if source.whole
        else "Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, "
        "and COPY of a requirements file or from another stage, each verbatim and whole."
    )
    header = [
        f"# Of {source.repo} {source.path} at its commit {source.commit[:12]}: {what}",
        f"# Written by `{GENERATOR}`; do not edit (--check compares).",
        f"# repo: {source.repo}",
        f"# path: {source.path}",
        f"# commit: {source.commit}",
        f"# sha256: {hashlib.sha256(text.encode('utf-8')).hexdigest()}",
        f"# source: https://github.com/{source.repo}/blob/{source.commit}/{source.path}",
    ]
    return "\n".join(header) + "\n\n" + kept


def generate(fetch: Callable[[Source], str]) -> dict[str, str]:
    """Every data file's name and text."""
    files: dict[str, str] = {}
    index = []
    for image, image_sources in sources():
        for source in image_sources:
            if source.name not in files:
                files[source.name] = render(source, fetch(source))
        index.append(
            {"framework": image.framework, "version": image.version, "kind": image.kind,
             "files": list(image.files)}
        )  # fmt: skip
    note = (
        f"Written by `{GENERATOR}`: each image (framework, version, cpu/gpu/any) and its files "
        "under this folder, each a published definition of the image (its header names it)."
    )
    files[INDEX] = json.dumps({"note": note, "images": index}, indent=1) + "\n"
    return files


def _fetcher(clones: dict[str, Path]) -> Callable[[Source], str]:
    def fetch(source: Source) -> str:
        if source.repo in clones:
            import subprocess

            command = ["git", "--git-dir", str(clones[source.repo]), "show"]
            shown = subprocess.run(
                [*command, f"{source.commit}:{source.path}"], capture_output=True, check=True
            )
            return shown.stdout.decode("utf-8")
        from urllib.request import urlopen

        with urlopen(source.url, timeout=60) as response:
            return response.read().decode("utf-8")

    return fetch


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog=GENERATOR, description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--git", action="append", default=[], metavar="OWNER/NAME=GIT_DIR",
        help="read that repository's files from a local clone (its git directory)",
    )  # fmt: skip
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "data" / "images")
    args = parser.parse_args(argv)
    clones = {k: Path(v) for k, _, v in (item.partition("=") for item in args.git)}
    files = generate(_fetcher(clones))
    if args.check:
        stale = sorted(
            n for n, t in files.items() if not (args.out / n).is_file()
            or (args.out / n).read_text("utf-8") != t
        )  # fmt: skip
        extra = sorted(p.name for p in args.out.iterdir() if p.name not in files)
        for name in stale:
            print(f"differs from what the generator writes: {name}")
        for name in extra:
            print(f"not written by the generator: {name}")
        return 1 if stale or extra else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (args.out / name).write_text(text, "utf-8")
    print(f"wrote {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

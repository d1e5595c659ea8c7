"""What a Dockerfile installs, read as data: its instructions (continuation lines joined as Docker
joins them), the build stages that make the target image, their ARG and ENV values, and each pip,
uv or conda install and uninstall its RUN instructions make, in order, with `-r requirements.txt`
and `uv sync` read from the image's own files. For image_software.py (the training images'
software); nothing is run, a shell command is split as the shell would split it."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from sagelaunch.hyperparameters import decode
from sagelaunch.local.software import normal_name
from sagelaunch.local.toml_lite import toml


@dataclass(frozen=True)
class Shipped:
    """One package an image installs."""

    name: str  # the distribution as the definition spells it
    requirement: str  # as the definition writes it, variables resolved (conda's `=` as `==X.*`)
    origin: str  # index, "index URL" (another index), conda, url, vcs, path or build


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

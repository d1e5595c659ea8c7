"""Every fenced block marked `<!-- runnable -->` in docs/**/*.md runs, so the docs cannot rot.

A page is one terminal session: its marked blocks run in page order, from one scratch checkout
of the repository (a folder of links to the repository's top-level entries, `.venv/` and the
`.sagelaunch/` cache included), so a file one block writes (`job.yaml`, `plan.json`) is there for
the next, and nothing is written into the working tree. Each ```sh block is a new
`bash -euo pipefail` (what it exports does not carry to the next block) under a temporary HOME,
with none of this machine's AWS settings (nor sagelaunch's, but for the session's one cache,
SAGELAUNCH_CACHE_DIR: tests/conftest.py), and must exit 0. A ```yaml block is saved beside a copy
of launch_configs/ (relative paths such as `extends:` resolve) and must pass `sagelaunch validate`,
run in this process (typer's CliRunner; with no AWS settings either, and it calls no AWS).

Every ```sh block runs as a reader runs it right after the README's set-up (`make setup`), with
nothing activated: `.venv/bin/` is not on PATH, so a bare `sagelaunch` (or `python -m pytest`,
`ruff`) fails (exit 127, or the machine's python without sagelaunch). The pages' convention: a
block calls `.venv/bin/sagelaunch` (`.venv/bin/python`, ...), or sources `.venv/bin/activate`
first. Every ```sh block of every page is marked `<!-- runnable -->`, or `<!-- not run: REASON -->`
(a reason the reader can see, e.g. it installs into the reader's own tool folder); the pages
hold at most MAX_NOT_RUN of those.

Words after the marker, e.g. `<!-- runnable: moto -->`, say how a block runs:

- (none): offline, with no AWS settings.
- moto: with an AWS account: moto's server on loopback, reset for the page, fake credentials,
  region us-east-1 and the bucket of launch_configs/ (tests/aws/conftest.py's `moto` fixture).
  The page's test is marked `integration`.
- queue: moto, and AWS Batch's service jobs served by tests/aws/batch_server.py (started for
  the page, AWS_ENDPOINT_URL_BATCH) with a SAGEMAKER_TRAINING job queue `ml-queue` whose
  service environment has no free instance (a reader's team queue, busy): a queued job waits.
- plans: moto, and SageMaker's training-plan API served by tests/aws/plans_proxy.py in front of
  it (started for the page, AWS_ENDPOINT_URL_SAGEMAKER), offering 4 × ml.p5.48xlarge
  (launch_configs/smp-v2-p5.yaml's instances) for a day and for a week from 2030-01-06.
- slow: a run of tens of seconds (`sagelaunch local`): the block runs alone, in a session of its
  own, as a test marked `slow` (so it must not need what earlier blocks of its page wrote).

A ```yaml block that is part of a config rather than a whole one names the config (a file of
launch_configs/):

- excerpt=FILE: the block is what FILE says: each of its keys is in FILE, with the same value
  (comments aside); FILE must pass `validate`.
- over=FILE: the block laid over FILE, as `extends: FILE` lays a config over its base, must pass
  `validate` (keys a page shows on their own, to add to a config like FILE).

A whole config the page tells the reader to save, e.g. `<!-- runnable: save=first-job.yaml -->`,
is written there, at the root of the page's checkout, and validated there (so its code folder is
what a reader's would be: a config at the root of the clone, nothing beside it); the page's
later blocks use it, a slow block's own session included.

A ```text block marked `<!-- output -->` right after a runnable ```sh block is what that block
prints, stdout and stderr interleaved as a pipe gets them (not a terminal: tables at their
natural width, every cell whole, whatever COLUMNS says). Both are compared after
normalising what changes from run to run: timestamps, durations, hex digests (code bundles,
idempotent job names), 12-digit account ids, runs of spaces (table alignment) and trailing spaces.
A line `…` alone stands for any number of lines.
"""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sagelaunch.app import app
from sagelaunch.caches import CACHE_DIR_ENV
from tests.aws.conftest import model_cache, moto, moto_url  # noqa: F401  (the `moto` fixture)
from tests.conftest import REPO
from tests.local.conftest import warm_plan

VENV_BIN = Path(sys.executable).parent
OPTIONS = {"moto", "queue", "plans", "slow"}
AWS_OPTIONS = {"moto", "queue", "plans"}
# No AWS unless a block asks for moto: no profile, no instance role.
NO_AWS = {
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
    "AWS_EC2_METADATA_DISABLED": "true",
}
PART_OF = {"excerpt", "over"}  # a yaml block's options naming its config: excerpt=FILE, over=FILE
TIMEOUT_S = 300

MARKED = re.compile(
    r"^<!-- runnable(?::(?P<options>[^>]*?))? -->\n```(?P<language>\w+)\n(?P<body>.*?)^```[ \t]*\n"
    r"(?:\n*<!-- output -->\n```\w*\n(?P<output>.*?)^```)?",
    re.MULTILINE | re.DOTALL,
)
# A sh block neither marked runnable nor `not run: REASON`.
UNMARKED_SH = re.compile(
    r"^(?!<!-- (?:runnable|not run: \S)[^\n]*-->\n)[^\n]*\n```sh\n", re.MULTILINE
)
NOT_RUN = re.compile(r"^<!-- not run: (?P<reason>[^\n]*?) -->\n```sh\n", re.MULTILINE)
MAX_NOT_RUN = 8  # keep it tiny: a block that can run offline or against moto runs
ALL_PAGES = sorted(str(page.relative_to(REPO)) for page in (REPO / "docs").glob("**/*.md"))


@dataclass(frozen=True)
class Block:
    where: str  # page:line
    language: str
    body: str
    options: frozenset[str]
    output: str | None  # what it prints, when the page shows it
    part_of: tuple[str, str] | None = None  # (excerpt or over, the config's path)
    save: str | None = None  # save=FILE: the reader saves this config as FILE


def runnable_blocks() -> dict[str, list[Block]]:
    """The marked blocks of each page, in page order."""
    pages: dict[str, list[Block]] = {}
    for page in sorted((REPO / "docs").glob("**/*.md")):
        text, name = page.read_text(), str(page.relative_to(REPO))
        for match in MARKED.finditer(text):
            line = text[: match.start()].count("\n") + 2
            words = (match.group("options") or "").split()
            keyed = [tuple(word.split("=", 1)) for word in words if "=" in word]
            saved = [name for how, name in keyed if how == "save"]
            keyed = [pair for pair in keyed if pair[0] != "save"]
            block = Block(
                f"{name}:{line}",
                match.group("language"),
                match.group("body"),
                frozenset(word for word in words if "=" not in word),
                match.group("output"),
                keyed[0] if len(keyed) == 1 else None,  # several: refused below
                saved[0] if saved else None,
            )
            assert len(saved) <= 1 and not (saved and keyed), f"{block.where}: save= alone"
            assert not saved or (block.language == "yaml" and "/" not in saved[0])
            assert len(keyed) <= 1, f"{block.where}: one of excerpt=, over= at most"
            pages.setdefault(name, []).append(block)
    return pages


PAGES = runnable_blocks()
BLOCKS = [block for blocks in PAGES.values() for block in blocks]
# The configs the pages' sh blocks name (`plan`, `submit`, `sweep`, ... of launch_configs/X).
NAMED_CONFIGS = sorted(
    set(re.findall(r"\blaunch_configs/[\w.-]+\.ya?ml\b", "".join(b.body for b in BLOCKS)))
)
PLANNING = {"plan", "submit", "local", "sweep"}  # the commands that plan a config they are given
# Where a command's arguments end.
SHELL_OPERATORS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "(", ")"}


def planning_calls() -> set[tuple[str, str, tuple[str, ...]]]:
    """(command, config, its --set values) of each `sagelaunch plan|submit|local|sweep
    launch_configs/X` in the pages' sh blocks (`sweep --local` as the command `sweep-local`):
    what warm_plans plans ahead, besides each config as it is."""
    calls = set()
    for block in BLOCKS:
        if block.language != "sh":
            continue
        for line in block.body.replace("\\\n", " ").splitlines():
            words = shlex.shlex(line, posix=True, punctuation_chars=True)
            words.whitespace_split, words.commenters = True, "#"
            try:
                tokens = list(words)
            except ValueError:  # an unclosed quote: not a line this can read
                continue
            for at, token in enumerate(tokens[:-2]):
                command, config = tokens[at + 1], tokens[at + 2]
                if not token.endswith("sagelaunch") or command not in PLANNING:
                    continue
                if not config.startswith("launch_configs/"):
                    continue
                args = list(
                    itertools.takewhile(lambda t: t not in SHELL_OPERATORS, tokens[at + 3 :])
                )
                sets = tuple(v for flag, v in itertools.pairwise(args) if flag == "--set")
                sets += tuple(a.split("=", 1)[1] for a in args if a.startswith("--set="))
                local = command == "sweep" and "--local" in args
                calls.add(("sweep-local" if local else command, config, sets))
    return calls


@pytest.fixture(scope="session")
def warm_plans(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The session's plan cache (SAGELAUNCH_CACHE_DIR: tests/conftest.py) holds the plan of
    every config a page names, made once, in this process, before any page runs: as a reader's
    cache does once they planned it. Without it, whichever page first plans a config runs the
    SDK for it (its import alone some seconds) and the later ones read the cache; with it, none
    does: the variants the pages' calls of launch_configs/ make are planned too (planning_calls:
    `--set`, a local run's, a sweep's trials), only configs a block writes or changes itself
    (`init`, `import`, an edited copy) plan cold. What a block
    prints is the same either way: an entry is keyed by all the SDK sees, and the job name and
    code bundle are set on the cached plan (the cold path is what tests/cli and tests/sdk
    test). One worker of the session plans, the others wait for it (a lock, as
    tests/entrypoints/test_train_pytorch_layouts.py's shared_dir)."""
    root = tmp_path_factory.getbasetemp()
    root = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    with (root / "docs-warm-plans.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "docs-warm-plans.done"
        if done.exists():
            return
        with pytest.MonkeyPatch.context() as patch:  # a block's offline settings
            for key in [k for k in os.environ if k.startswith("AWS_")]:
                patch.delenv(key)
            for key, value in {**NO_AWS, "HOME": str(root / "docs-warm-home")}.items():
                patch.setenv(key, value)
            patch.chdir(REPO)
            for config in NAMED_CONFIGS:
                result = CliRunner().invoke(app, ["plan", config, "-o", "json"])
                assert result.exit_code == 0, f"{config}: exit {result.exit_code}\n{result.output}"
            for call in sorted(planning_calls()):
                warm_call(*call)
        done.touch()


def warm_call(command: str, config: str, sets: tuple[str, ...]) -> None:
    """The plans one call of a page makes that `plan CONFIG` does not: its --set variant, a
    local run's (the local variant: tests/local/conftest.py's warm_plan), a sweep's trials
    (`--dry-run` plans each, as `sweep` does; `--local`: each trial's local variant). Only a
    warm-up: a call it cannot plan the same way (one a page expects to fail, too), the block
    plans, or refuses, itself. Each makes the entries the block would make, in this process, where
    the SDK is imported already: the block's own process then reads them, as a reader's rerun
    does (the cold path is what tests/cli, tests/sdk and tests/local test)."""
    overrides = [arg for value in sets for arg in ("--set", value)]
    if command == "local":
        warm_plan(REPO / config, *overrides)
    elif command == "sweep-local":
        warm_local_trials(REPO / config, list(sets))
    elif command == "sweep":
        CliRunner().invoke(app, ["sweep", config, *overrides, "--dry-run", "-o", "json"])
    elif sets:  # plan, submit: without --set, NAMED_CONFIGS's plan is the block's
        CliRunner().invoke(app, ["plan", config, *overrides, "-o", "json"])


def warm_local_trials(config: Path, overrides: list[str]) -> None:
    """Each trial of a `sweep --local` planned as the sweep plans it (sweeps/local.py: the local
    variant of the trial)."""
    from sagelaunch.checks.trials import iter_trials
    from sagelaunch.checks.validation import sweep_base
    from sagelaunch.local.variant import local_variant
    from sagelaunch.services.local_run import local_plan

    with contextlib.suppress(Exception):  # the sweep itself reports what is wrong
        for trial in iter_trials(sweep_base(config, overrides or None), overrides or None, []):
            local_plan(local_variant(trial.loaded), [])


def marks(blocks: list[Block], slow: bool = False) -> list[pytest.MarkDecorator]:
    found = [pytest.mark.slow] if slow else []
    aws = any(AWS_OPTIONS & b.options for b in blocks)
    return found + ([pytest.mark.integration] if aws else [])


def test_the_docs_mark_examples_runnable() -> None:
    assert {"sh", "yaml"} <= {block.language for block in BLOCKS}
    assert {"moto", "slow"} <= {option for block in BLOCKS for option in block.options}
    assert any(block.output is not None for block in BLOCKS)
    for block in BLOCKS:
        assert block.options <= OPTIONS, f"{block.where}: unknown {set(block.options - OPTIONS)}"
        assert block.language in {"sh", "yaml"}, f"{block.where}: sh or yaml, not {block.language}"
        assert block.output is None or block.language == "sh", f"{block.where}: output of yaml?"
        if block.part_of is not None:
            how, config = block.part_of
            assert how in PART_OF, f"{block.where}: {how}= is none of {sorted(PART_OF)}"
            assert block.language == "yaml", f"{block.where}: {how}= of a {block.language} block"
            assert config.startswith("launch_configs/"), f"{block.where}: {config} is not a config"
            assert (REPO / config).is_file(), f"{block.where}: no {config}"
    for page in (REPO / "docs").glob("**/*.md"):
        text, blocks = page.read_text(), PAGES.get(str(page.relative_to(REPO)), [])
        shown = sum(1 for block in blocks if block.output is not None)
        assert text.count("<!-- output -->") == shown, f"{page}: an output block follows no block"


def test_the_warm_up_reads_the_pages_calls() -> None:
    """warm_plans plans what the pages' calls plan: a `--set` on a continued line, a local run,
    a local sweep (a page that changes how it calls them changes what is warmed)."""
    calls = planning_calls()
    assert ("local", "launch_configs/cpu-local.yaml", ()) in calls
    assert ("sweep-local", "launch_configs/sweep-cpu-local.yaml", ()) in calls
    fallback = (
        "compute.fallback=[{instance_type: ml.g5.12xlarge},"
        " {instance_type: ml.g5.48xlarge, on_demand: true}]"
    )
    assert ("plan", "launch_configs/spot-checkpoint.yaml", (fallback,)) in calls
    assert all(config.startswith("launch_configs/") for _, config, _ in calls)


@pytest.mark.parametrize("page", ALL_PAGES)
def test_every_command_of_the_page_runs(page: str) -> None:
    """Every page promises that its commands run as written, right after `make setup`."""
    text = (REPO / page).read_text()
    unmarked = [text[: m.end()].count("\n") for m in UNMARKED_SH.finditer(text)]
    assert unmarked == [], f"{page}: sh blocks at lines {unmarked} are neither runnable nor not run"


def test_the_blocks_not_run_are_few_and_say_why() -> None:
    found = [
        (page, m.group("reason"))
        for page in ALL_PAGES
        for m in NOT_RUN.finditer((REPO / page).read_text())
    ]
    assert all(len(reason.split()) >= 3 for _, reason in found), found
    assert len(found) <= MAX_NOT_RUN, f"{len(found)} blocks not run: {found}"


def test_a_block_runs_with_nothing_activated(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The harness's shell is a reader's right after `make setup`: a bare `sagelaunch` is not
    found (exit 127), `.venv/bin/sagelaunch` runs, and so does it after sourcing the activate
    script."""
    session = Session(tmp_path, request)
    bare = Block("bare", "sh", "sagelaunch --version\n", frozenset(), None)
    with pytest.raises(AssertionError, match="bare: exit 127"):
        session.run(bare)
    session.run(Block("venv", "sh", ".venv/bin/sagelaunch --version\n", frozenset(), None))
    activated = "source .venv/bin/activate\nsagelaunch --version\n"
    session.run(Block("activated", "sh", activated, frozenset(), None))
    environment = session.environment(bare)
    assert str(VENV_BIN) not in environment["PATH"].split(os.pathsep)
    assert "VIRTUAL_ENV" not in environment


@pytest.mark.parametrize(
    "page",
    [
        pytest.param(page, marks=marks([b for b in blocks if "slow" not in b.options]))
        for page, blocks in PAGES.items()
        if any("slow" not in b.options for b in blocks)
    ],
)
def test_runnable_page(
    page: str, tmp_path: Path, request: pytest.FixtureRequest, warm_plans: None
) -> None:
    session = Session(tmp_path, request)
    for block in PAGES[page]:
        if "slow" not in block.options:
            session.run(block)


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, marks=marks([b], True), id=b.where) for b in BLOCKS if "slow" in b.options],
)
def test_runnable_slow_block(
    block: Block, tmp_path: Path, request: pytest.FixtureRequest, warm_plans: None
) -> None:
    session = Session(tmp_path, request)
    page = block.where.rsplit(":", 1)[0]
    for earlier in PAGES[page][: PAGES[page].index(block)]:
        if earlier.save:  # the configs the reader saved before this block
            session.run(earlier)
    session.run(block)


class Session:
    """A reader's terminal at the root of a fresh checkout."""

    def __init__(self, tmp_path: Path, request: pytest.FixtureRequest) -> None:
        self.tmp = tmp_path
        self.request = request
        self.checkout = tmp_path / "checkout"
        self.checkout.mkdir()
        for entry in REPO.iterdir():
            if entry.name not in {".git", ".sagelaunch", "build", "dist", "site"}:
                (self.checkout / entry.name).symlink_to(entry)
        (REPO / ".sagelaunch").mkdir(exist_ok=True)  # the plan cache, shared as the reader's is
        (self.checkout / ".sagelaunch").symlink_to(REPO / ".sagelaunch")
        # What a bare `sagelaunch` does where the virtualenv is not activated.
        self.not_activated = tmp_path / "not-activated"
        self.not_activated.mkdir()
        stub = self.not_activated / "sagelaunch"
        stub.write_text(
            "#!/bin/sh\necho 'sagelaunch: command not found"
            " (.venv/bin/sagelaunch, or source .venv/bin/activate first)' >&2\nexit 127\n"
        )
        stub.chmod(0o755)

    def environment(self, block: Block) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if (not key.startswith(("AWS_", "SAGELAUNCH_")) or key == CACHE_DIR_ENV)
            and key not in {"VIRTUAL_ENV", "FORCE_COLOR", "TTY_COMPATIBLE", "PWD"}
        }
        elsewhere = [p for p in env["PATH"].split(os.pathsep) if p and Path(p) != VENV_BIN]
        first = self.not_activated  # nothing activated: `.venv/bin/sagelaunch`, as written
        env.update(
            PATH=os.pathsep.join([str(first), *elsewhere]),
            HOME=str(self.tmp / "home"),
            PWD=str(self.checkout),
            COLUMNS="80",
            NO_COLOR="1",
            PYTHONUNBUFFERED="1",  # stdout and stderr in the order a terminal shows them
            **NO_AWS,
        )
        if AWS_OPTIONS & block.options:
            url = self.request.getfixturevalue("moto")  # once per test: reset, bucket, env
            env.update({k: v for k, v in os.environ.items() if k.startswith("AWS_")})
            if "queue" in block.options:
                env["AWS_ENDPOINT_URL_BATCH"] = self.batch_server(url).url
            if "plans" in block.options:
                env["AWS_ENDPOINT_URL_SAGEMAKER"] = self.plans_proxy(url).url
        return env

    def plans_proxy(self, endpoint: str):
        """The page's training-plans account, offering smp-v2-p5's 4 × p5 (started by its first
        block)."""
        from datetime import datetime, timezone

        from tests.aws.conftest import ACCOUNT, REGION
        from tests.aws.plans_proxy import PlansProxy, offering

        if getattr(self, "_plans", None) is None:
            self._plans = PlansProxy(endpoint, ACCOUNT, REGION).start()
            self.request.addfinalizer(self._plans.stop)
            start = datetime(2030, 1, 6, 12, tzinfo=timezone.utc)
            self._plans.offerings = [
                offering("tpo-p5x4-day", "ml.p5.48xlarge", 4, start, 24, "4224.00"),
                offering("tpo-p5x4-week", "ml.p5.48xlarge", 4, start, 168, "29568.00"),
            ]
        return self._plans

    def batch_server(self, endpoint: str):
        """The page's Batch stand-in with its busy `ml-queue` (started by its first block)."""
        from tests.aws.batch_server import BatchServer, sagemaker_queue

        if getattr(self, "_batch", None) is None:
            self._batch = BatchServer(endpoint).start()
            self.request.addfinalizer(self._batch.stop)
            sagemaker_queue(self._batch, "ml-queue")
        return self._batch

    def run(self, block: Block) -> None:
        if block.language == "yaml":
            self.validate(block)
            return
        env = self.environment(block)
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block.body],
            cwd=self.checkout,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TIMEOUT_S,
        )
        assert result.returncode == 0, f"{block.where}: exit {result.returncode}\n{result.stdout}"
        if block.output is not None:
            expect_output(block, result.stdout)

    def validate(self, block: Block) -> None:
        """`sagelaunch validate` of the yaml block (whole, laid over its config, or its config
        after checking the block is part of it), in this process, without AWS settings."""
        configs = self.tmp / "yaml" / "launch_configs"
        shutil.rmtree(configs.parent, ignore_errors=True)
        shutil.copytree(REPO / "launch_configs", configs)
        example = configs / "docs-example.yaml"
        how, config = block.part_of or ("", "")
        if block.save:
            example = self.checkout / block.save
        base = configs / Path(config).relative_to("launch_configs") if config else None
        if how == "excerpt" and base is not None:
            expect_excerpt(block, yaml.safe_load(block.body), yaml.safe_load(base.read_text()))
            example = base
        elif block.save:
            example.write_text(block.body)
        elif how == "over" and base is not None:
            assert "extends" not in yaml.safe_load(block.body), f"{block.where}: over= and extends:"
            # `extends:` last: an error's line number is the block's own
            example.write_text(f"{block.body}extends: {base.relative_to(configs)}\n")
        else:
            example.write_text(block.body)
        with pytest.MonkeyPatch.context() as patch:  # undone: a moto page's later blocks keep it
            for key in [k for k in os.environ if k.startswith(("AWS_", "SAGELAUNCH_"))]:
                patch.delenv(key)
            for key, value in {**NO_AWS, "HOME": str(self.tmp / "home")}.items():
                patch.setenv(key, value)
            patch.chdir(self.checkout)
            result = CliRunner().invoke(app, ["validate", str(example)])
        assert result.exit_code == 0, f"{block.where}: exit {result.exit_code}\n{result.output}"


def expect_excerpt(block: Block, part: object, whole: object, at: str = "") -> None:
    """Each key of ``part`` is in ``whole`` with the same value (mappings compared key by key)."""
    if isinstance(part, dict) and isinstance(whole, dict):
        for key, value in part.items():
            config = (block.part_of or ("", "the config"))[1]
            assert key in whole, f"{block.where}: {at}{key} is not in {config}"
            expect_excerpt(block, value, whole[key], f"{at}{key}.")
        return
    where = at.rstrip(".") or "the block"
    assert part == whole, f"{block.where}: {where} is {part!r} here, {whole!r} in the config"


VOLATILE = [
    (re.compile(r"\d{4}-\d\d-\d\d[-T ]\d\d[-:]\d\d[-:]\d\d(?:[-.:]\d+)?"), "<time>"),
    (re.compile(r"\b\d{8}T\d{6}(?:\.\d+)?"), "<time>"),  # a sweep's key
    (re.compile(r"\b\d{6}-\d{4}\b"), "<time>"),  # a tuning job's name (yymmdd-HHMM)
    (re.compile(r"\b\d\d-\d\d \d\d:\d\d\b"), "<time>"),  # `list`'s created and ended
    (re.compile(r"\b\d+(?:\.\d+)?(?:ms|s|m|h)\b"), "<duration>"),
    (re.compile(r"\b\d{12}\b"), "<account>"),
    (re.compile(r"[0-9a-f]{12,}"), "<hex>"),
    (re.compile(r" {2,}"), "  "),
]


def normalised(text: str) -> list[str]:
    lines = []
    for line in text.rstrip().splitlines():
        for pattern, replacement in VOLATILE:
            line = pattern.sub(replacement, line)
        lines.append(line.rstrip())
    return lines


def expect_output(block: Block, printed: str) -> None:
    expected, actual = normalised(block.output or ""), normalised(printed)
    pattern = "".join(r"(?:[^\n]*\n)*?" if e == "…" else re.escape(e) + r"\n" for e in expected)
    if re.fullmatch(pattern, "".join(a + "\n" for a in actual)):
        return
    diff = "\n".join(difflib.unified_diff(expected, actual, "the page", "printed", lineterm=""))
    pytest.fail(f"{block.where}: the output shown is not what the block prints\n{diff}\n{printed}")

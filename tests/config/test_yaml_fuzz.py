"""Thousands of random YAML documents through the loader `validate` uses: every YAML scalar type,
tags (``!foo``, ``!!python/...``, ``!!set``, ``!!omap``...), anchors, aliases and merges, random
nesting, keys from the real schema with random values. Each either loads or raises ConfigError
with located problems (exit 2): never another exception (exit 70). Seeded: a failure names the
document to reproduce it with.

test_fuzz.py (hypothesis) mutates the examples and dumps plain data; this one writes the YAML text
itself, so tags, anchors and every scalar spelling reach the parser.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from sagelaunch.checks.validation import validate_file
from sagelaunch.config.loader import _all_field_paths, load
from sagelaunch.config.model import LaunchConfig
from sagelaunch.config.references import resolve_references
from sagelaunch.errors import ConfigError
from sagelaunch.services import planning
from tests.cli.runner import sagelaunch
from tests.conftest import BASE

SEED = 20261202
COUNT = 1200  # about 5 ms each (ruamel reads in Python): a few seconds
FIELD_PATHS = sorted({path for path in _all_field_paths(LaunchConfig, ())})
KEY_NAMES = sorted({str(path[-1]) for path in FIELD_PATHS})

SCALARS = [
    # plain words and the schema's own values
    "x", "unit", "pytorch", "xgboost", "tensorflow", "smddp", "torchrun", "mpi", "smp", "none",
    "ml.p4d.24xlarge", "ml.g5.2xlarge", "ml.c5.xlarge", "ml.trn1.32xlarge", "2.2.0", "1.7-1",
    "py310", "s3://b/p/", "s3://", "arn:aws:iam::111122223333:role/R", "us-east-1", "us-eest-1",
    "train.py", "../nope", "2h", "90m", "36h", "1d", "sharded", "replicated", "File", "Pipe",
    # numbers in every spelling
    "0", "1", "-1", "3", "1.0", "-0.0", "0.0", "1e3", "1.5e-4", "0x1f", "0o17", "1_000", ".5",
    "0b_", "-0x_", "0x", "1__0",
    ".inf", "-.inf", ".nan", ".NaN", "+.Inf", "99999999999999999999999", "1e999",
    # booleans and nulls
    "true", "false", "True", "FALSE", "yes", "no", "on", "off", "~", "null", "Null", "",
    # dates and times
    "2024-01-01", "2024-1-1 10:00:00", "2001-12-14t21:59:43.10-05:00", "2024-13-45",
    # quoted text, escapes, references, odd characters
    "'quoted'", '"dq"', "''", '""', '"a\\tb"', '"\\u00e9"', "'it''s'", '"${env:FUZZ_UNSET}"',
    "${env:HOME}", "'${env:1X}'", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789ab", "café", "日本",
    "'a: b'", "'# not a comment'", "'-'", "'*'", "'&'", "'!'", "'%'", "'@'", "'`'",
]  # fmt: skip
TAGS = [
    "!foo", "!x", "!", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq",
    "!!set", "!!omap", "!!pairs", "!!binary", "!!timestamp", "!!merge", "!!value",
    "!!python/object/apply:os.system", "!!python/name:os.system", "!!python/tuple",
    "!<tag:yaml.org,2002:str>", "!<tag:example.com,2000:x>", "!e!x",
]  # fmt: skip
PLAIN_TAGS = {"!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq", "!"}
TEXT_FIELDS = ["hyperparameters", "hyperparameters", "environment", "tags", "local"]
WEIRD_KEYS = [
    "true",
    "~",
    "null",
    "1",
    "1.5",
    "'1'",
    "'true'",
    "''",
    "[a, b]",
    "{a: 1}",
    "2024-01-01",
]


class Writer:
    """Random YAML text: flow collections nested at random, block mappings at the top. A
    ``clean`` writer uses no tags but the plain-type ones and no undefined aliases, so its
    documents get past the parser into the model and the rules."""

    def __init__(self, rng: random.Random, clean: bool) -> None:
        self.rng = rng
        self.clean = clean
        self.tags = [t for t in TAGS if t in PLAIN_TAGS] if clean else TAGS
        self.anchors: list[str] = []

    def node(self, depth: int) -> str:
        rng = self.rng
        roll = rng.random()
        if depth > 4 or roll < 0.55:
            text = rng.choice(SCALARS)
        elif roll < 0.75:
            text = "[" + ", ".join(self.node(depth + 1) for _ in range(rng.randint(0, 4))) + "]"
        elif roll < 0.93 or not self.anchors:
            text = self.mapping(depth)
        else:
            return self.alias()
        return self.decorate(text)

    def mapping(self, depth: int) -> str:
        items = [f"{self.key()}: {self.node(depth + 1)}" for _ in range(self.rng.randint(0, 4))]
        if self.anchors and self.rng.random() < 0.1:
            items.append(f"<<: {self.alias()}")
        return "{" + ", ".join(items) + "}"

    def key(self) -> str:
        roll = self.rng.random()
        if roll < 0.6:
            return self.rng.choice(KEY_NAMES)
        if roll < 0.7 and not self.clean:
            return self.rng.choice(WEIRD_KEYS)
        return "".join(self.rng.choice("abcxyz_-.0") for _ in range(self.rng.randint(1, 6)))

    def decorate(self, text: str) -> str:
        rng = self.rng
        if rng.random() < (0.05 if self.clean else 0.12):
            text = f"{rng.choice(self.tags)} {text}"
        if rng.random() < 0.1:
            anchor = f"a{len(self.anchors)}"
            self.anchors.append(anchor)
            text = f"&{anchor} {text}"
        return text

    def alias(self) -> str:
        if self.clean or self.rng.random() < 0.9:
            return "*" + self.rng.choice(self.anchors)
        return "*undefined"

    def document(self) -> str:
        """A real config with random keys set (a dotted schema path, or a random top-level key)
        to random values; clean, mostly the values the job gets as text (hyperparameters,
        environment, tags), each of any YAML type."""
        rng = self.rng
        lines = []
        if not self.clean and rng.random() < 0.1:
            lines.append("%TAG !e! tag:example.com,2000:\n---")
        if self.clean or rng.random() < 0.7:
            lines += [f"{key}: {json.dumps(value)}" for key, value in BASE.items()]
        for _ in range(rng.randint(0, 3) if self.clean else rng.randint(1, 6)):
            if self.clean and rng.random() < 0.8:
                path = (rng.choice(TEXT_FIELDS), self.key())
            elif rng.random() < 0.6:
                path = rng.choice(FIELD_PATHS)
            else:
                path = (self.key(),)
            value = self.node(1)
            for part in reversed(path[1:]):
                value = "{" + f"{part}: {value}" + "}"
            lines.append(f"{path[0]}: {value}")
        if not self.clean and rng.random() < 0.05:
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(["- a", "[", "'", "\t- x"]))
        return "\n".join(lines) + "\n"


def documents(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [Writer(rng, clean=rng.random() < 0.4).document() for _ in range(count)]


def assert_located(error: ConfigError) -> None:
    assert error.problems
    for problem in error.problems:
        assert problem.file and problem.line >= 1 and problem.col >= 1 and problem.message


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "train.py").write_text("print('hi')\n")
    return tmp_path


def test_thousands_of_random_documents_load_or_raise_config_errors(folder):
    path = folder / "fuzz.yaml"
    outcomes = {"loaded": 0, "refused": 0}
    for index, text in enumerate(documents(COUNT, SEED)):
        path.write_text(text, encoding="utf-8")
        try:
            loaded = load(path)
            resolve_references(loaded)  # what plan does next, before the SDK
            planning.cache_key(loaded, region="us-east-1", role="r", versions={})
            outcomes["loaded"] += 1
        except ConfigError as exc:
            assert_located(exc)
            outcomes["refused"] += 1
        except Exception as exc:  # the bug this test hunts: report how to reproduce it
            raise AssertionError(f"document {index} (seed {SEED}) crashed:\n{text}") from exc
    # Both sides are exercised: the generator is not all noise, nor all valid.
    assert outcomes["loaded"] > COUNT // 10 and outcomes["refused"] > COUNT // 2, outcomes


def test_random_documents_through_the_rules_too(folder):
    path = folder / "fuzz.yaml"
    for index, text in enumerate(documents(150, SEED + 1)):
        path.write_text(text, encoding="utf-8")
        try:
            report = validate_file(path, plan_settings=True)
        except Exception as exc:
            raise AssertionError(f"document {index} (seed {SEED + 1}) crashed:\n{text}") from exc
        for problem in report.errors + report.warnings:
            assert problem.line >= 1 and problem.col >= 1 and problem.message


def test_a_handful_through_the_real_command_exit_0_or_2_without_a_traceback(folder):
    texts = [t for t in documents(400, SEED + 2) if "!!python" in t or "!foo" in t][:3]
    texts += documents(3, SEED + 3)
    paths = [folder / f"cli-{index}.yaml" for index in range(len(texts))]
    for path, text in zip(paths, texts, strict=True):
        path.write_text(text, encoding="utf-8")
    proc = sagelaunch(folder, "validate", *paths)
    assert proc.returncode == 2, proc.stderr[-3000:]  # the tagged ones are refused
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert any("!!python" in line or "!foo" in line for line in errors), errors
    assert all(line.startswith(f"error: {folder}/cli-") for line in errors), errors

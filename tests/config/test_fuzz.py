"""Configs written by someone else, broken in ways nobody listed: never a traceback.

Random YAML documents and random mutations of every example either load (and pass or fail the
rules with located problems) or raise ConfigError with located problems — nothing else.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sagelaunch.checks.validation import validate_file
from tests.conftest import EXAMPLES

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))
KEYS = [
    "name",
    "framework",
    "compute",
    "instance_type",
    "instance_count",
    "inputs",
    "train",
    "distribution",
    "strategy",
    "smp",
    "version",
    "parameters",
    "spot",
    "max_wait",
    "extends",
    "hyperparameters",
    "max_run",
    "local",
    "hosts",
    "uri",
    "file_system",
    "checkpoint",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**6),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["ml.p4d.24xlarge", "smddp", "2h", "s3://"]),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=5),
    ),
    max_leaves=20,
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def assert_clean(path: Path) -> None:
    report = validate_file(path)  # raises only on a bug: that is what this test hunts
    for problem in report.errors + report.warnings:
        assert problem.line >= 1 and problem.col >= 1 and problem.file and problem.message


@FUZZ
@given(document=documents)
def test_random_documents(tmp_path_factory, document):
    path = tmp_path_factory.mktemp("fuzz") / "c.yaml"
    path.write_text(yaml.safe_dump(document))
    assert_clean(path)


@FUZZ
@given(example=st.sampled_from(EXAMPLE_FILES), data=st.data())
def test_mutated_examples(tmp_path_factory, example, data):
    text = example.read_text()
    position = data.draw(st.integers(0, len(text)))
    kind = data.draw(st.sampled_from(["insert", "delete", "replace-line"]))
    junk = data.draw(
        st.sampled_from(
            [
                ":",
                "- ",
                "\t",
                "{",
                "]",
                "&a",
                "*a",
                "!!int x",
                "\n  bad: 1",
                "'",
                '"',
                "x: [1, 2",
                "\n<<: *a",
                "extends: ../nope.yaml\n",
            ]
        )
    )
    if kind == "insert":
        text = text[:position] + junk + text[position:]
    elif kind == "delete":
        text = text[:position] + text[position + data.draw(st.integers(1, 40)) :]
    else:
        lines = text.splitlines()
        index = data.draw(st.integers(0, len(lines) - 1))
        lines[index] = (
            lines[index].split(":")[0]
            + ": "
            + data.draw(
                st.sampled_from(
                    ["[]", "{}", "-1", "null", "yes", "1e9", "'2.2.0'", "ml.nope", "{a: b}"]
                )
            )
        )
        text = "\n".join(lines)
    folder = tmp_path_factory.mktemp("mut")
    (folder / "bases").mkdir()
    (folder / "bases" / "team.yaml").write_text((EXAMPLES / "bases" / "team.yaml").read_text())
    path = folder / example.name
    path.write_text(text)
    assert_clean(path)

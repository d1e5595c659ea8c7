"""The framework version warning's advice (issue 62, item 5): `local.framework: match` is
suggested only where the package index has a wheel of that version for this Python, asked with
uv's dry run (nothing downloaded), cached, and bounded: an index that does not answer never
blocks or fails the run, and then the warning says what runs instead without suggesting match.

The decision is tested with injected answers; uv itself only against a folder index and a silent
port on 127.0.0.1 (no real network).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from sagelaunch.local import install_errors, software
from tests.local.software_data import write_wheel
from tests.local.test_software_refusals import silent_port

_PY = install_errors.this_python()
MATCH = "set local.framework: match"


def _answering(answer: bool | None):
    asked: list[tuple[str, str]] = []

    def can_install(framework: str, wanted: str) -> bool | None:
        asked.append((framework, wanted))
        return answer

    return can_install, asked


def test_match_is_suggested_where_the_index_has_a_wheel():
    can_install, asked = _answering(True)
    advice = software.match_advice("tensorflow", "2.19", "2.21.0", can_install)
    assert advice == f"{MATCH} to install and run tensorflow 2.19 instead"
    assert asked == [("tensorflow", "2.19")]


def test_without_a_wheel_the_advice_says_what_runs_instead():
    can_install, _ = _answering(False)
    advice = software.match_advice("tensorflow", "2.7", "2.21.0", can_install)
    assert MATCH not in advice
    assert f"match cannot install tensorflow 2.7 here (no wheel of it for {_PY})" in advice
    assert "so this machine's tensorflow 2.21.0 runs" in advice and "--docker" in advice


def test_without_an_answer_match_is_not_suggested():
    can_install, _ = _answering(None)
    advice = software.match_advice("xgboost", "1.0", "3.0.2", can_install)
    assert "match" not in advice
    assert advice.startswith("this machine's xgboost 3.0.2 runs (the package index did not say")


@pytest.mark.parametrize(("answer", "suggests"), [(True, True), (False, False), (None, False)])
def test_the_warning_takes_the_advice(monkeypatch, answer, suggests):
    installed = software.installed_framework("tensorflow")
    if installed is None:
        pytest.skip("no TensorFlow here: nothing to warn about")
    monkeypatch.setattr(software, "match_installable", _answering(answer)[0])
    warning = software.version_warning("tensorflow", "2.7.0")
    assert warning is not None
    assert warning.startswith("framework_version 2.7.0, but this run uses this machine's ")
    assert (MATCH in warning) is suggests


def test_pytorch_keeps_its_own_advice(monkeypatch):
    if software.installed_framework("pytorch") is None:
        pytest.skip("no torch here")
    monkeypatch.setattr(software, "match_installable", lambda *_: pytest.fail("asked"))
    warning = software.version_warning("pytorch", "1.8.1")
    assert warning is not None and "install torch 1.8 into this venv to match" in warning


def test_an_answer_is_asked_once_and_kept(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(software, "_wheel_answers", {})
    asked: list[str] = []

    def ask(name: str, pin: str) -> bool | None:
        asked.append(pin)
        return pin.startswith("tensorflow==2.19")

    monkeypatch.setattr(software, "_ask_index", ask)
    assert software.match_installable("tensorflow", "2.19") is True
    assert software.match_installable("tensorflow", "2.19") is True
    assert software.match_installable("tensorflow", "2.7") is False
    assert asked == ["tensorflow==2.19.*", "tensorflow==2.7.*"]
    stored = json.loads((tmp_path / software.ENVS_DIR / software.WHEEL_ANSWERS).read_text())
    assert sorted(entry["installable"] for entry in stored.values()) == [False, True]
    monkeypatch.setattr(software, "_wheel_answers", {})  # a later run: from the file
    assert software.match_installable("tensorflow", "2.7") is False
    assert len(asked) == 2
    for entry in stored.values():  # an old answer is asked again
        entry["asked"] = time.time() - (software.WHEEL_ANSWER_DAYS + 1) * 86400
    (tmp_path / software.ENVS_DIR / software.WHEEL_ANSWERS).write_text(json.dumps(stored))
    monkeypatch.setattr(software, "_wheel_answers", {})
    assert software.match_installable("tensorflow", "2.7") is False
    assert asked[2:] == ["tensorflow==2.7.*"]


def test_no_answer_is_not_kept_and_a_broken_file_is_ignored(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(software, "_wheel_answers", {})
    (tmp_path / software.ENVS_DIR).mkdir(parents=True)
    (tmp_path / software.ENVS_DIR / software.WHEEL_ANSWERS).write_text("[not json")
    answers = iter([None, True])
    monkeypatch.setattr(software, "_ask_index", lambda name, pin: next(answers))
    assert software.match_installable("xgboost", "1.7") is None
    assert software.match_installable("xgboost", "1.7") is True  # asked again


@pytest.mark.parametrize(
    ("returncode", "stderr", "answer"),
    [
        (0, "Would install 1 package", True),
        (
            1,
            "error: No solution found when resolving dependencies\n  cause: Because only "
            "tensorflow<=2.22.0rc0 is available and you require tensorflow==2.99.*, we can "
            "conclude that your requirements are unsatisfiable.",
            False,
        ),
        (
            1,
            "error: Request failed after 3 retries\n  cause: Failed to fetch: "
            "http://127.0.0.1:9/simple/xgboost/\n  cause: client error (Connect)",
            None,
        ),
        (
            1,
            "error: No solution found when resolving dependencies\n  cause: Because xgboost was "
            "not found in the cache ...\nhint: Packages were unavailable because the network "
            "was disabled.",
            None,
        ),
    ],
)
def test_what_uv_says_is_the_answer(monkeypatch, returncode, stderr, answer):
    done = subprocess.CompletedProcess([], returncode, "", stderr)
    monkeypatch.setattr(software, "_dry_run", lambda *_: done)
    assert software._ask_index("xgboost", "xgboost==1.0.*") is answer


def _folder_index(tmp_path: Path, name: str, version: str, tag: str) -> str:
    wheel = write_wheel(tmp_path / "wheels", name, version, tag=tag)
    page = tmp_path / "simple" / name / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text(f'<a href="{wheel.as_uri()}">{wheel.name}</a>\n')
    return (tmp_path / "simple").as_uri()


@pytest.mark.parametrize(
    ("tag", "answer"), [("py3-none-any", True), ("cp37-cp37m-manylinux2010_x86_64", False)]
)
def test_uv_is_asked_without_downloading(tmp_path, monkeypatch, tag, answer):
    """The real dry run against a folder index: a wheel for any Python, or CPython 3.7's only."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(software, "_wheel_answers", {})
    monkeypatch.setenv("UV_DEFAULT_INDEX", _folder_index(tmp_path, "xgboost", "1.0.2", tag))
    assert software.match_installable("xgboost", "1.0") is answer
    assert not list((tmp_path / software.ENVS_DIR).glob("xgboost*"))  # nothing installed


def test_an_index_that_does_not_answer_leaves_the_question_open(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(software, "_wheel_answers", {})
    monkeypatch.setattr(software, "WHEEL_CHECK_TIMEOUT_S", 1.0)
    with silent_port() as port:
        monkeypatch.setenv("UV_DEFAULT_INDEX", f"http://127.0.0.1:{port}/simple")
        started = time.monotonic()
        assert software.match_installable("xgboost", "0.72") is None
        assert time.monotonic() - started < 5
    assert not (tmp_path / software.ENVS_DIR / software.WHEEL_ANSWERS).exists()

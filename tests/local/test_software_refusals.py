"""Installs that cannot happen on this machine are refused before any host starts (exit 2), with
the cause uv reported: a URL this machine cannot reach (the network, not requirements.txt), a
framework version with no wheel for this Python (and what would run instead). No real network:
the URLs are closed or silent ports on 127.0.0.1, the index a folder."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sagelaunch.errors import UsageError
from sagelaunch.local import install_errors, software
from tests.local.conftest import clean_env, run_local
from tests.local.software_data import IMPORTER, write_wheel

NO_RETRIES = {"UV_HTTP_RETRIES": "0"}  # uv retries a failed request 3 times by default
_PY = install_errors.this_python()


@contextmanager
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 nothing listens on: a connection to it is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    yield port


@contextmanager
def silent_port() -> Iterator[int]:
    """A port on 127.0.0.1 that takes connections and never answers: a request times out."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def _said(text: str) -> str:
    return " ".join(text.split())


def _index_with(tmp_path: Path, name: str, version: str, tag: str) -> str:
    """A PEP 503 index (file://) holding one wheel of ``name`` built for ``tag``."""
    wheel = write_wheel(tmp_path / "wheels", name, version, tag=tag)
    page = tmp_path / "simple" / name / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text(f'<a href="{wheel.as_uri()}">{wheel.name}</a>\n')
    return (tmp_path / "simple").as_uri()


def test_an_unreachable_find_links_url_is_the_networks_fault(write_config, tmp_path):
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}/wheels"
        config = write_config(
            {
                "name": "unreachable",
                "framework": "pytorch",
                "framework_version": "2.8.0",
                "entry_point": "train.py",
                "source_dir": "code",
                "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 1},
                "distribution": {"strategy": "none"},
            },
            code={"train.py": IMPORTER, "requirements.txt": f"--find-links {url}\ntinypkg==0.1\n"},
        )
        done = run_local(config, env=clean_env(**NO_RETRIES))
    assert done.returncode == 2, done.stdout[-3000:] + done.stderr[-3000:]
    error = _said(done.stderr.split("error:", 1)[-1])
    assert f"needs {url} (--find-links in requirements.txt)" in error, error
    assert "the connection was refused" in error and "not requirements.txt" in error
    assert f"reaches 127.0.0.1:{port}" in error and "fix requirements.txt" not in error
    assert "Traceback" not in done.stderr
    assert not list((tmp_path / ".sagelaunch" / "runs").rglob("*.log"))  # no host started


@pytest.mark.parametrize("option", ["--index-url", "--extra-index-url", "-i"])
def test_an_unreachable_index_is_named_with_its_option(tmp_path, monkeypatch, option):
    monkeypatch.chdir(tmp_path)
    for name, value in NO_RETRIES.items():
        monkeypatch.setenv(name, value)
    with closed_port() as port:
        (tmp_path / "requirements.txt").write_text(
            f"{option} http://127.0.0.1:{port}/simple\nsome-package-sagelaunch==1.0\n"
        )
        with pytest.raises(UsageError) as refused:
            software.overlay(tmp_path, [], lambda _: None)
    message = _said(refused.value.message)
    assert f"needs http://127.0.0.1:{port}/simple/some-package-sagelaunch/ ({option} in" in message
    assert "the connection was refused" in message
    assert not list((tmp_path / software.ENVS_DIR).glob("*"))  # nothing half-installed


def test_a_silent_index_is_a_timeout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("UV_HTTP_RETRIES", "0")
    monkeypatch.setenv("UV_HTTP_TIMEOUT", "1")
    with silent_port() as port:
        (tmp_path / "requirements.txt").write_text(
            f"--index-url http://127.0.0.1:{port}/simple\nsome-package-sagelaunch==1.0\n"
        )
        with pytest.raises(UsageError) as refused:
            software.overlay(tmp_path, [], lambda _: None)
    assert "the connection timed out" in refused.value.message
    assert "--index-url in requirements.txt" in _said(refused.value.message)


def test_a_dns_failure_reads_as_one(tmp_path):
    """uv's own words for a host name that does not resolve (captured: no resolver is asked)."""
    stderr = (
        "error: Request failed after 3 retries in 9.5s\n"
        "  cause: Failed to fetch: http://no-such-host.invalid/simple/x/\n"
        "  cause: error sending request for url (http://no-such-host.invalid/simple/x/)\n"
        "  cause: client error (Connect)\n  cause: dns error\n  cause: error resolving DNS\n"
        "  cause: failed to lookup address information: Name or service not known\n"
    )
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("--index-url http://no-such-host.invalid/simple\nx\n")
    error = install_errors.requirements_failure(stderr, requirements, "requirements.txt")
    assert "its host name does not resolve (DNS)" in error.message
    assert (
        "http://no-such-host.invalid/simple/x/ (--index-url in requirements.txt)" in error.message
    )
    assert error.hint and "no-such-host.invalid" in error.hint


def test_match_refuses_a_version_without_a_wheel_for_this_python(write_config, tmp_path):
    """XGBoost 1.0's wheels are for CPython 3.5-3.7: no requirements.txt is involved, and what
    would run instead is this machine's XGBoost."""
    index = _index_with(tmp_path, "xgboost", "1.0.2", "cp37-cp37m-manylinux2010_x86_64")
    config = write_config(
        {
            "name": "xgb-old",
            "framework": "xgboost",
            "framework_version": "1.0-1",
            "entry_point": "show.py",
            "source_dir": "code",
            "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 1},
            "local": {"framework": "match"},
        },
        code={"show.py": "import xgboost\n"},
    )
    done = run_local(config, env=clean_env(UV_DEFAULT_INDEX=index))
    assert done.returncode == 2, done.stdout[-3000:] + done.stderr[-3000:]
    error = _said(done.stderr.split("error:", 1)[-1])
    installed = software.installed_framework("xgboost")
    assert "local.framework: match cannot install xgboost 1.0 on this machine" in error, error
    assert f"no wheel of xgboost 1.0 for {install_errors.this_python()}" in error
    assert "with the following Python ABI tag: `cp37m`" in error  # uv's own reason
    assert f"local.framework: installed to run this machine's xgboost {installed} instead" in error
    assert "requirements.txt" not in done.stderr and "Traceback" not in done.stderr
    assert not list((tmp_path / ".sagelaunch" / "runs").rglob("*.log"))  # no host started


def test_match_names_the_versions_the_index_has(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = _index_with(tmp_path, "tensorflow", "2.1.4", "cp37-cp37m-manylinux2010_x86_64")
    monkeypatch.setenv("UV_DEFAULT_INDEX", index)
    with pytest.raises(UsageError) as refused:
        software.framework_overlay("tensorflow", "2.99.0", lambda _: None)
    message = _said(refused.value.message)
    assert "cannot install tensorflow 2.99 on this machine" in message
    assert "the package index has no tensorflow==2.99.* (only tensorflow==2.1.4)" in message
    assert "local.framework: installed" in (refused.value.hint or "")


def test_match_tells_a_torch_without_a_build_for_this_python(tmp_path, monkeypatch):
    """torch 1.8 was built for CPython 3.6-3.9 only, on the index and on download.pytorch.org:
    the index is asked, and the hint says what runs instead."""
    monkeypatch.chdir(tmp_path)
    index = _index_with(tmp_path, "torch", "1.8.1", "cp39-cp39-manylinux1_x86_64")
    monkeypatch.setenv("UV_DEFAULT_INDEX", index)
    with pytest.raises(UsageError) as refused:
        software.framework_overlay("pytorch", "1.8.1", lambda _: None)
    message, hint = _said(refused.value.message), refused.value.hint or ""
    assert f"cannot install torch 1.8 on this machine: no torch 1.8 is built for {_PY}" in message
    assert "with the following Python ABI tag: `cp39`" in message
    installed = software.installed_framework("pytorch")
    assert f"local.framework: installed to run this machine's torch {installed} instead" in hint
    assert "download.pytorch.org" not in hint  # no command that cannot work
    assert not (tmp_path / software.ENVS_DIR).exists()

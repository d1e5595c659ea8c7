"""Install hints name where this sagelaunch came from, never the public index's `sagelaunch`."""

from __future__ import annotations

import ast
import json
import re
import sys

import pytest

from sagelaunch import install_hint
from tests.conftest import REPO


class Installed:
    """A distribution whose direct_url.json is ``recorded`` (None: pip wrote none)."""

    def __init__(self, recorded: object) -> None:
        self.recorded = recorded

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return None if self.recorded is None else json.dumps(self.recorded)


@pytest.mark.parametrize(
    ("recorded", "target"),
    [
        (
            {"url": "file:///src/sage%20launch", "dir_info": {"editable": True}},
            "-e '/src/sage launch[local]'",
        ),
        (
            {"url": "file:///tmp/dist/sagelaunch-0.1.0-py3-none-any.whl", "archive_info": {}},
            "'/tmp/dist/sagelaunch-0.1.0-py3-none-any.whl[local]'",
        ),
        ({"url": "file:///src/sagelaunch", "dir_info": {}}, "'/src/sagelaunch[local]'"),
    ],
)
def test_the_hint_installs_the_extra_from_where_sagelaunch_came(monkeypatch, recorded, target):
    monkeypatch.setattr(install_hint.metadata, "distribution", lambda name: Installed(recorded))
    command = install_hint.install_extra("local")
    assert command == f"{sys.executable} -m pip install {target}"


@pytest.mark.parametrize(
    "recorded",
    [None, {"url": "https://example.com/x.whl"}, {"url": "file:///x", "vcs_info": {}}, ["no"]],
)
def test_without_a_local_origin_the_hint_asks_for_it(monkeypatch, recorded):
    monkeypatch.setattr(install_hint.metadata, "distribution", lambda name: Installed(recorded))
    command = install_hint.install_extra("charts")
    assert f"install '{install_hint.UNKNOWN}[charts]'" in command
    assert "the wheel or checkout this sagelaunch was installed from" in command


def test_this_checkout_is_named_in_its_own_hint() -> None:
    assert install_hint.install_extra("local").endswith(f"-e '{REPO}[local]'")


def test_no_hint_installs_sagelaunch_by_name_from_an_index() -> None:
    """`pip install 'sagelaunch[...]'` or `pip install sagelaunch` resolve on the public index,
    where a package of that name is not this project (dependency confusion)."""
    by_name = re.compile(r"pip install (?:-U )?['\"]?sagelaunch(?:\[|['\"\s,)]|$)")
    found = []
    for path in sorted((REPO / "cli" / "sagelaunch").rglob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and ast.get_docstring(node)
        }
        found += [
            f"{path.relative_to(REPO)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and by_name.search(node.value)
        ]
    assert found == []


def test_docs_call_uv_where_make_setup_put_it() -> None:
    """After `make setup`, uv is .venv/bin/uv; a bare `uv` in a command is not on PATH."""
    bare = re.compile(r"^(?:[A-Z_]+=\S+ )*uv (?:build|tool|pip)\b", re.MULTILINE)
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    found = [str(page.relative_to(REPO)) for page in pages if bare.search(page.read_text())]
    assert found == []

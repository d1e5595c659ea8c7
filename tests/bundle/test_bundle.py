"""The code bundle: same tree, same bytes; secrets never in it; .sagelaunchignore honoured."""

from __future__ import annotations

import io
import os
import tarfile

from sagelaunch import bundle


def tree(root, files: dict[str, str]):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def names(data: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return tar.getnames()


def test_same_tree_gives_the_same_bytes_whatever_the_mtimes_and_order(tmp_path):
    first = tree(tmp_path / "a", {"train.py": "x", "pkg/util.py": "y", "b.txt": "z"})
    second = tree(tmp_path / "b", {"b.txt": "z", "pkg/util.py": "y", "train.py": "x"})
    os.utime(second / "train.py", (1, 1))
    one, two = bundle.build(first), bundle.build(second)
    assert one.data == two.data and one.sha256 == two.sha256
    assert names(one.data) == ["b.txt", "pkg/util.py", "train.py"]
    (second / "train.py").write_text("changed")
    assert bundle.build(second).sha256 != one.sha256


def test_content_addressed_uri_changes_only_with_the_code(tmp_path):
    code = bundle.build(tree(tmp_path, {"train.py": "x"}))
    uri = code.s3_uri("s3://bucket/out/")
    assert uri == f"s3://bucket/out/sagelaunch-code/{code.sha256[:32]}/sourcedir.tar.gz"


def test_secrets_and_vcs_are_never_bundled_even_if_re_included(tmp_path):
    root = tree(
        tmp_path,
        {
            "train.py": "x",
            ".env": "TOKEN=1",
            ".env.prod": "x",
            ".git/config": "x",
            "keys/id_rsa": "x",
            "server.pem": "x",
            ".aws/credentials": "x",
            "credentials": "x",
            ".netrc": "x",
            "__pycache__/m.cpython-311.pyc": "x",
            ".sagelaunchignore": "!.env\n!credentials\n",
        },
    )
    assert names(bundle.build(root).data) == [".sagelaunchignore", "train.py"]


def test_sagelaunchignore_excludes_with_gitignore_syntax(tmp_path):
    root = tree(
        tmp_path,
        {
            "train.py": "x",
            "data/big.bin": "x",
            "notes/a.md": "x",
            "notes/keep.md": "x",
            ".sagelaunchignore": "data/\nnotes/*\n!notes/keep.md\n",
        },
    )
    assert names(bundle.build(root).data) == [".sagelaunchignore", "notes/keep.md", "train.py"]


def test_extract_round_trips(tmp_path):
    root = tree(tmp_path / "src", {"train.py": "print(1)", "pkg/a.py": "a"})
    bundle.extract(bundle.build(root).data, tmp_path / "code")
    assert (tmp_path / "code" / "pkg" / "a.py").read_text() == "a"

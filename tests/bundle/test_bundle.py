"""The code bundle: same tree, same bytes; secrets never in it; .sagelaunchignore honoured."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import pytest

from sagelaunch import bundle
from sagelaunch.caches import CACHE_DIR_ENV


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
    assert one.source_bytes == 3 and one.files == ("b.txt", "pkg/util.py", "train.py")
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


def test_extract_takes_the_bundle_file_into_a_new_or_existing_folder(tmp_path):
    built = bundle.build(tree(tmp_path / "src", {"train.py": "print(1)", "pkg/a.py": "a"}))
    bundle.extract(built, tmp_path / "new" / "code")  # from disk, as local reads it
    assert (tmp_path / "new" / "code" / "pkg" / "a.py").read_text() == "a"
    bundle.extract(built.data, tmp_path / "new" / "code")  # a second time: the folder exists
    assert (tmp_path / "new" / "code" / "train.py").read_text() == "print(1)"


def test_extract_refuses_a_member_that_leaves_the_folder(tmp_path):
    """A bundle is read back from the plan file or S3: one whose member reaches out of the target
    (a tampered archive) writes nothing there, as the container's own extraction would not."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        member = tarfile.TarInfo("../escaped.py")
        member.size = 1
        tar.addfile(member, io.BytesIO(b"x"))
    with pytest.raises(tarfile.OutsideDestinationError):
        bundle.extract(data.getvalue(), tmp_path / "code")
    assert not (tmp_path / "escaped.py").exists()


def test_a_tar_gz_source_is_the_bundle_byte_for_byte(tmp_path):
    """SDK v3 uploads the tarball it is given (source_archive.py): same bytes, same sha256, its
    files named without "./", their sizes summed."""
    archive = tmp_path / "code.tar.gz"
    with tarfile.open(archive, mode="w:gz") as tar:
        for name, text in (("./train.py", b"print(1)\n"), ("./pkg/a.py", b"a")):
            member = tarfile.TarInfo(name)
            member.size = len(text)
            tar.addfile(member, io.BytesIO(text))
        folder = tarfile.TarInfo("./pkg")
        folder.type = tarfile.DIRTYPE  # not a file: not in the file list
        tar.addfile(folder)
    built = bundle.build(archive, entry_point="train.py")
    assert built.data == archive.read_bytes() and built.path == archive
    assert built.sha256 == hashlib.sha256(archive.read_bytes()).hexdigest()
    assert built.files == ("pkg/a.py", "train.py") and built.source_bytes == 10
    assert built.compressed_bytes == archive.stat().st_size
    assert (built.source_dir, built.entry_point) == (archive, "train.py")


def test_the_description_says_what_ships_and_what_the_ignore_files_left_out(tmp_path):
    """The line `plan` and `submit` show: a left-out folder or file (the code a user forgot to
    ship, or a data folder that would have been uploaded) is told either way."""
    root = tree(tmp_path / "src", {"train.py": "x" * 10, "notes.md": "n" * 30, "data/a": "y"})
    (root / ".sagelaunchignore").write_text("data/\nnotes.md\n")
    assert bundle.build(root, entry_point="train.py").description() == (
        f"train.py from {root} (2 files, 25 B); "
        ".gitignore/.sagelaunchignore left out 1 file (30 B) and 1 folder"
    )
    (root / ".sagelaunchignore").write_text("data/\n")
    assert bundle.build(root).description() == (
        f"the code from {root} (3 files, 46 B); "
        ".gitignore/.sagelaunchignore left out 0 files (0 B) and 1 folder"
    )
    (root / ".sagelaunchignore").write_text("")
    assert bundle.build(root).description() == f"the code from {root} (4 files, 41 B)"


def test_a_file_gone_between_the_walk_and_the_tar_is_left_out_and_named(tmp_path, monkeypatch):
    """A file deleted (or made unreadable) while the bundle is built: the rest is bundled and
    the file is named, never a crash."""
    src = tree(tmp_path / "src", {"a_gone.py": "x", "train.py": "y"})
    walked = bundle.walk

    def walk_then_delete(*args, **kwargs):
        found = walked(*args, **kwargs)
        (src / "a_gone.py").unlink()
        return found

    monkeypatch.setattr(bundle, "walk", walk_then_delete)
    code = bundle.build(src)
    assert (code.files, code.source_bytes, names(code.data)) == (("train.py",), 1, ["train.py"])
    (line,) = [w for w in code.warnings() if "cannot be read" in w]
    assert line == (
        f"source_dir {src} has entries that cannot be read, skipped: "
        "a_gone.py (No such file or directory)"
    )


@pytest.fixture
def fresh_process(tmp_path, monkeypatch):
    """This process as if it had built no bundle yet, its cache folder in tmp_path (not there
    yet) and the system's temporary folder there too."""
    monkeypatch.setattr(bundle, "_SCRATCH", None)
    cache = tmp_path / "deep" / "cache"
    monkeypatch.setenv(CACHE_DIR_ENV, str(cache))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return cache / bundle.BUNDLES


def test_a_process_bundles_in_a_folder_of_its_own_and_clears_those_killed_processes_left(
    tmp_path, fresh_process, monkeypatch
):
    src = tree(tmp_path / "src", {"train.py": "x"})
    first = bundle.build(src).path.parent
    assert first.parent == fresh_process and first.name.startswith("sagelaunch-bundles-")
    assert bundle.build(tree(tmp_path / "other", {"b.py": "y"})).path.parent == first
    # Another process: a folder two days untouched was left by a killed one; a recent one is
    # another process's, still running; what is not a bundle folder is not ours to delete.
    monkeypatch.setattr(bundle, "_SCRATCH", None)
    stale = time.time() - bundle._STALE_S - 60
    for name in ("sagelaunch-bundles-killed", "unrelated-old"):
        (fresh_process / name).mkdir()
        os.utime(fresh_process / name, (stale, stale))
    second = bundle.build(src).path.parent
    assert second.parent == fresh_process and second != first
    left = sorted(p.name for p in fresh_process.iterdir())
    assert left == sorted([first.name, second.name, "unrelated-old"])


def test_without_a_cache_folder_bundles_go_to_the_temporary_folder_else_it_says_so(
    tmp_path, fresh_process
):
    fresh_process.parent.parent.mkdir(parents=True)
    fresh_process.parent.write_text("a file where the cache folder would be")
    src = tree(tmp_path / "src", {"train.py": "x"})
    assert bundle.build(src).path.parent.parent == tmp_path / "tmp"
    bundle._SCRATCH = None
    shutil.rmtree(tmp_path / "tmp")
    (tmp_path / "tmp").write_text("nor a temporary folder")
    with pytest.raises(OSError) as raised:
        bundle.build(src)
    assert str(raised.value) == "no folder to write the code bundle in"


def test_the_processes_bundle_folder_goes_when_it_ends(tmp_path):
    src = tree(tmp_path / "src", {"train.py": "x"})
    script = "import sys; from pathlib import Path; from sagelaunch import bundle\n"
    script += "print(bundle.build(Path(sys.argv[1])).path.parent)"
    env = {**os.environ, CACHE_DIR_ENV: str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", script, str(src)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder.parent == tmp_path / "cache" / bundle.BUNDLES
    assert folder.parent.is_dir() and not folder.exists()

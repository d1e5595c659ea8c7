"""What the walk puts in the bundle: links as the SDK follows them (and said), credentials never,
ignore files as git reads them, bounded memory, the same bytes as before."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import subprocess
import sys
import tarfile
import textwrap

import pytest

from sagelaunch import bundle, bundle_walk
from sagelaunch.config.loader import load
from sagelaunch.services.local_run import refuse_workdir_in_code
from tests.bundle.test_bundle import tree

CONFIG = """\
name: walk
framework: pytorch
entry_point: train.py
framework_version: "2.2.0"
region: us-east-1
role: arn:aws:iam::123456789012:role/SageMakerRole
output_path: s3://sagelaunch-examples/out/
compute: {instance_type: ml.g5.2xlarge}
"""


def names(code: bundle.Bundle) -> list[str]:
    with tarfile.open(code.path, mode="r:gz") as tar:
        return sorted(m.name for m in tar.getmembers())


def test_folder_and_file_links_are_followed_and_those_leaving_the_folder_named(tmp_path):
    tree(tmp_path / "shared_lib", {"util.py": "X = 1"})
    (tmp_path / "outside.txt").write_text("o")
    src = tree(tmp_path / "src", {"train.py": "x", "pkg/a.py": "a"})
    (src / "lib").symlink_to("../shared_lib")
    (src / "notes.txt").symlink_to("../outside.txt")
    (src / "alias.py").symlink_to("pkg/a.py")  # inside: followed, not named
    code = bundle.build(src)
    assert names(code) == ["alias.py", "lib/util.py", "notes.txt", "pkg/a.py", "train.py"]
    (found,) = code.walks
    assert found.outside_links == [
        ("lib", str(tmp_path / "shared_lib")),
        ("notes.txt", str(tmp_path / "outside.txt")),
    ]
    (line,) = found.link_warnings()
    assert "lib -> " in line and "notes.txt -> " in line and "alias.py" not in line


def test_a_link_to_an_ancestor_or_a_cycle_is_named_and_not_followed(tmp_path):
    src = tree(tmp_path / "src", {"train.py": "x", "a/b.py": "b"})
    (src / "a" / "up").symlink_to("..")
    (src / "a" / "c").symlink_to("../d")
    (src / "d").mkdir()
    (src / "d" / "back").symlink_to("../a")  # a/c -> d, d/back -> a: a cycle
    found = bundle_walk.walk(src)
    loops = dict(found.loops)
    assert "a/up" in loops and "a/c/back" in loops and "d/back/c" in loops
    assert [e.name for e in found.files] == ["a/b.py", "d/back/b.py", "train.py"]
    assert "a loop" in found.link_warnings()[0]


EVERY_CREDENTIAL = [
    ".ssh/id_rsa",
    "keys/id_ed25519",
    "deploy/id_ecdsa.pub",
    ".aws/credentials",
    ".config/gcloud/application_default_credentials.json",
    ".azure/accessTokens.json",
    ".oci/config",
    ".kube/config",
    ".docker/config.json",
    ".npmrc",
    ".pypirc",
    "pip.conf",
    ".pgpass",
    ".netrc",
    ".git-credentials",
    ".gnupg/private-keys-v1.d/k.key",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".env",
    ".env.production",
    "secrets.json",
    "conf/db_secret.yaml",
    "credentials",
    "tls/server.pem",
    "tls/server.key",
    "certs/client.p12",
]


def test_no_credential_is_bundled_whatever_the_ignore_files_say_and_each_is_named(tmp_path):
    files = {"train.py": "x", "secrets_util.py": "def f(): ..."}
    files |= {name: "s" for name in EVERY_CREDENTIAL}
    negations = "".join(f"!{name}\n" for name in EVERY_CREDENTIAL)
    files |= {".sagelaunchignore": negations, ".gitignore": negations}
    src = tree(tmp_path / "src", files)
    (src / "model_weights.bin").symlink_to(src / ".ssh" / "id_rsa")  # a key by another name
    code = bundle.build(src)
    assert names(code) == [".gitignore", ".sagelaunchignore", "secrets_util.py", "train.py"]
    (line,) = [w for w in code.warnings() if "credential files" in w]
    left_out = code.as_json()["credentials_left_out"]
    assert isinstance(left_out, list)
    for name in EVERY_CREDENTIAL:
        top = name.split("/")[0]
        shown = name if top not in {".ssh", ".aws", ".azure", ".oci", ".gnupg", ".config"} else None
        if shown is None:  # the folder is left out whole, named with its slash
            shown = ".config/gcloud/" if top == ".config" else f"{top}/"
        assert shown in left_out and shown in line, name
    assert "model_weights.bin" in left_out


def test_a_file_holding_a_private_key_is_left_out_and_a_token_value_named_without_it(tmp_path):
    token = "hf_" + "aB3" * 12
    src = tree(
        tmp_path / "src",
        {
            "train.py": "x = 1\n",
            "weights.txt": "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n",
            "settings.py": f'MODEL = "gpt2"\nHF = "{token}"\n',
        },
    )
    code = bundle.build(src)
    assert names(code) == ["settings.py", "train.py"]
    (line,) = [w for w in code.warnings() if "token-looking" in w]
    assert "settings.py:2" in line and "Hugging Face" in line and token not in line


def test_gitignore_nested_negations_and_folders_as_git_reads_them(tmp_path):
    src = tree(
        tmp_path / "src",
        {
            ".gitignore": "*.log\n!keep.log\nbuild/\n",
            "train.py": "x",
            "a.log": "1234",
            "keep.log": "k",
            "build/out.o": "o",
            "pkg/.gitignore": "data.csv\n!a.log\n",
            "pkg/data.csv": "1,2",
            "pkg/a.log": "again",
            "other/data.csv": "kept: pkg's rule applies below pkg only",
            ".sagelaunchignore": "notes/\n",
            "notes/n.md": "n",
        },
    )
    code = bundle.build(src)
    assert names(code) == [
        ".gitignore",
        ".sagelaunchignore",
        "keep.log",
        "other/data.csv",
        "pkg/.gitignore",
        "pkg/a.log",
        "train.py",
    ]
    assert code.ignored() == {"files": 2, "bytes": 4 + 3, "folders": 2}
    assert "left out 2 files (7 B) and 2 folders" in code.description()


def test_gitignore_of_the_repository_above_source_dir_counts(tmp_path):
    tree(tmp_path, {".git/HEAD": "ref", ".gitignore": "*.ckpt\n"})
    src = tree(tmp_path / "code", {"train.py": "x", "model.ckpt": "c"})
    assert [e.name for e in bundle_walk.walk(src).files] == ["train.py"]
    assert [e.name for e in bundle_walk.walk(src, gitignore=False).files] == [
        "model.ckpt",
        "train.py",
    ]


def test_a_source_dir_the_repository_ignores_is_shipped_with_the_rules_inside_it(tmp_path):
    # Generated code under build/, a run's copy under .sagelaunch/: the config names the folder.
    tree(tmp_path, {".git/HEAD": "ref", ".gitignore": "build/\n*.ckpt\n"})
    src = tree(tmp_path / "build" / "code", {"train.py": "x", ".gitignore": "*.log\n"})
    tree(src, {"a.log": "l", "util.py": "u"})
    assert [e.name for e in bundle_walk.walk(src).files] == [".gitignore", "train.py", "util.py"]


def test_respect_gitignore_false_turns_gitignore_off_not_sagelaunchignore(tmp_path):
    tree(tmp_path / "code", {"train.py": "x", "a.log": "l", "b.tmp": "t"})
    tree(tmp_path / "code", {".gitignore": "*.log\n", ".sagelaunchignore": "*.tmp\n"})
    config = tmp_path / "job.yaml"
    config.write_text(CONFIG + "source_dir: code\nrespect_gitignore: false\n")
    assert "a.log" in names(bundle.for_config(load(config)))
    assert "b.tmp" not in names(bundle.for_config(load(config)))
    config.write_text(CONFIG + "source_dir: code\n")
    assert "a.log" not in names(bundle.for_config(load(config)))


def test_a_dependencies_folder_goes_through_the_same_walk(tmp_path):
    tree(tmp_path / "code", {"train.py": "x"})
    tree(tmp_path / "mylib", {"__init__.py": "", ".env": "T=1", "id_rsa": "k", "x.log": "l"})
    tree(tmp_path / "mylib", {".gitignore": "*.log\n"})
    config = tmp_path / "job.yaml"
    config.write_text(CONFIG + "source_dir: code\ndependencies: [mylib]\n")
    code = bundle.for_config(load(config))
    assert names(code) == ["mylib/.gitignore", "mylib/__init__.py", "train.py"]
    (line,) = [w for w in code.warnings() if "credential" in w]
    assert line.startswith("dependency") and ".env" in line and "id_rsa" in line


def test_broken_links_and_unreadable_entries_are_skipped_and_named(tmp_path):
    src = tree(tmp_path / "src", {"train.py": "x"})
    (src / "gone.py").symlink_to(tmp_path / "nowhere.py")
    code = bundle.build(src)
    assert names(code) == ["train.py"]
    assert any("gone.py (a broken link)" in w for w in code.warnings())


def _old_bundle(entries: list[tuple[str, bytes, int]]) -> bytes:
    """The bundle as it was built in memory before it was streamed (the bytes must not move)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, content, mode in entries:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.uid, info.gid = len(content), 0, 0, 0
            info.uname = info.gname = ""
            info.mode = mode
            tar.addfile(info, io.BytesIO(content))
    compressed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=compressed, mtime=0) as gz:
        gz.write(raw.getvalue())
    return compressed.getvalue()


def test_the_streamed_bundle_has_the_bytes_built_in_memory_before(tmp_path):
    big = os.urandom(3 * 1024 * 1024)  # spans many write chunks
    src = tree(tmp_path / "src", {"train.py": "print(1)\n", "pkg/é.py": "u = 'ü'\n"})
    (src / "data.bin").write_bytes(big)
    (src / "run.sh").write_text("#!/bin/sh\n")
    (src / "run.sh").chmod(0o755)
    code = bundle.build(src)
    expected = _old_bundle(
        [
            ("data.bin", big, 0o644),
            ("pkg/é.py", "u = 'ü'\n".encode(), 0o644),
            ("run.sh", b"#!/bin/sh\n", 0o755),
            ("train.py", b"print(1)\n", 0o644),
        ]
    )
    assert code.path.read_bytes() == expected
    assert code.sha256 == hashlib.sha256(expected).hexdigest()
    assert code.compressed_bytes == len(expected) and os.fspath(code) == str(code.path)


BUNDLE_A_BIG_TREE = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path

    def peak_kb():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])

    from sagelaunch import bundle
    before = peak_kb()
    code = bundle.build(Path(sys.argv[1]))
    print(peak_kb() - before, code.source_bytes)
    """
)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads VmHWM (Linux)")
def test_memory_stays_flat_whatever_the_file_sizes(tmp_path):
    src = tree(tmp_path / "src", {"train.py": "x"})
    with (src / "weights.bin").open("wb") as file:
        file.truncate(300 * 1024**2)  # sparse: costs no disk
    env = {**os.environ, "SAGELAUNCH_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-c", BUNDLE_A_BIG_TREE, str(src)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    growth_kb, size = map(int, result.stdout.split())
    assert size > 300 * 1024**2
    assert growth_kb < 40 * 1024, f"peak RSS grew by {growth_kb} KB bundling 300 MB"
    assert not list((tmp_path / "cache").rglob("*.tar.gz"))  # removed when the process ended


def test_big_files_are_named_with_their_size(tmp_path, monkeypatch):
    monkeypatch.setattr(bundle_walk, "BIG_FILE", 1000)
    src = tree(tmp_path / "src", {"train.py": "x", "data/blob.bin": "b" * 5000})
    (line,) = [w for w in bundle.build(src).warnings() if "big files" in w]
    assert "data/blob.bin (4.9 KB)" in line and ".sagelaunchignore" in line


def test_a_workdir_inside_source_dir_is_refused_unless_left_out(tmp_path):
    tree(tmp_path / "code", {"train.py": "x", ".gitignore": "runs/\n"})
    config = tmp_path / "job.yaml"
    config.write_text(CONFIG + "source_dir: code\n")
    loaded = load(config)
    with pytest.raises(Exception, match="inside source_dir") as raised:
        refuse_workdir_in_code(loaded, tmp_path / "code" / "out")
    assert raised.value.exit_code == 2 and ".sagelaunchignore" in str(raised.value.hint)
    refuse_workdir_in_code(loaded, tmp_path / "code" / "runs" / "one")  # gitignored
    refuse_workdir_in_code(loaded, tmp_path / "code" / ".sagelaunch" / "runs")  # never bundled
    refuse_workdir_in_code(loaded, tmp_path / "elsewhere")


def test_with_dependencies_each_tree_is_walked_scanned_and_named_as_what_it_is(tmp_path):
    """source_dir and a dependencies folder each honour their .gitignore, are scanned for
    token-looking values and are named as what they are in the warnings; a dependency's links
    out are its own warning (source_dir's are the config's, at its line: rules/code.py)."""
    token = "hf_" + "aB3" * 12
    tree(tmp_path, {"outside.py": "o"})
    code_dir = tree(
        tmp_path / "code",
        {"train.py": "x", ".gitignore": "*.log\n", "a.log": "l", "keys.py": f'HF = "{token}"\n'},
    )
    lib = tree(tmp_path / "mylib", {"__init__.py": "", "conf.py": f'HF = "{token}"\n'})
    (code_dir / "linked.py").symlink_to(tmp_path / "outside.py")
    (lib / "linked.py").symlink_to(tmp_path / "outside.py")
    config = tmp_path / "job.yaml"
    config.write_text(CONFIG + "source_dir: code\ndependencies: [mylib]\n")
    code = bundle.for_config(load(config))
    assert names(code) == [
        ".gitignore",
        "keys.py",
        "linked.py",
        "mylib/__init__.py",
        "mylib/conf.py",
        "mylib/linked.py",
        "train.py",
    ]
    secrets = [w for w in code.warnings() if "token-looking" in w]
    assert [line.split(" ", 2)[:2] for line in secrets] == [
        ["source_dir", str(code_dir)],
        ["dependency", str(lib)],
    ]
    assert "keys.py:1" in secrets[0] and "conf.py:1" in secrets[1]
    (links,) = [w for w in code.warnings() if "links to files outside" in w]
    assert links.startswith(f"dependency {lib} ") and links.endswith(
        f"linked.py -> {tmp_path / 'outside.py'}"
    )
    assert code.as_json() == {
        "source_dir": str(code_dir),
        "entry_point": "train.py",
        "ignored": {"files": 1, "bytes": 1, "folders": 0},
        "credentials_left_out": [],
    }
    assert code.description().startswith(f"train.py from {code_dir} (7 files, ")


@pytest.mark.parametrize(("mode", "executable"), [(0o755, True), (0o645, True), (0o644, False)])
def test_a_script_uploaded_alone_and_a_dependency_file_keep_any_execute_bit(
    tmp_path, mode, executable
):
    """Any execute bit (even the others' alone) makes the member 0755, none 0644, as for a
    folder's files: a shell entry point must still run in the container."""
    for name in ("train.sh", "tool.sh"):
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(mode)
    config = tmp_path / "job.yaml"
    config.write_text(CONFIG.replace("train.py", "train.sh") + "dependencies: [tool.sh]\n")
    code = bundle.for_config(load(config))
    with tarfile.open(code.path, mode="r:gz") as tar:
        modes = {member.name: member.mode for member in tar.getmembers()}
    assert modes == dict.fromkeys(("train.sh", "tool.sh"), 0o755 if executable else 0o644)
    assert code.as_json()["source_dir"] == str(tmp_path)
    assert code.as_json()["entry_point"] == "train.sh"

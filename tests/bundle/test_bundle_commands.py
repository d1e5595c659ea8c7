"""What validate and plan say about the code they would ship (through the CLI)."""

from __future__ import annotations

import json

from tests.bundle.test_walk import CONFIG, tree


def project(tmp_path, extra: str = "source_dir: code\n"):
    tree(tmp_path / "code", {"train.py": "print(1)\n"})
    config = tmp_path / "job.yaml"
    config.write_text(CONFIG + extra)
    return config


def test_validate_names_a_link_out_of_source_dir_at_its_line_and_strict_refuses(cli, tmp_path):
    config = project(tmp_path)
    tree(tmp_path / "shared_lib", {"util.py": "X = 1"})
    (tmp_path / "code" / "lib").symlink_to("../shared_lib")
    result = cli("validate", config)
    assert result.exit_code == 0
    assert f"{config}:9:1: source_dir:" in result.output
    assert f"lib -> {tmp_path / 'shared_lib'}" in result.output
    assert cli("validate", config, "--strict").exit_code == 2


def test_validate_cache_sees_a_new_link(cli, tmp_path):
    config = project(tmp_path)
    assert "links" not in cli("validate", config).output
    (tmp_path / "elsewhere.txt").write_text("x")
    (tmp_path / "code" / "notes.txt").symlink_to("../elsewhere.txt")
    assert "notes.txt ->" in cli("validate", config).output


def test_an_entry_point_outside_source_dir_is_refused_at_its_line(cli, tmp_path):
    config = project(tmp_path)
    (tmp_path / "x.py").write_text("print(1)\n")
    for written in ("../x.py", str(tmp_path / "x.py")):
        config.write_text(CONFIG.replace("train.py", written) + "source_dir: code\n")
        result = cli("validate", config)
        assert result.exit_code == 2
        assert f"{config}:3:1: entry_point: {written} is outside the code folder" in result.output


def test_source_dir_root_is_refused_not_a_crash(cli, tmp_path):
    config = project(tmp_path, "source_dir: /\n")
    config.write_text(CONFIG.replace("train.py", "etc/hostname") + "source_dir: /\n")
    result = cli("validate", config)
    assert result.exit_code == 2
    assert "source_dir / is the root of the disk" in result.output


def test_plan_says_what_it_ships_and_what_it_left_out(cli, tmp_path):
    config = project(tmp_path)
    tree(tmp_path / "code", {".gitignore": "*.log\n", "run.log": "1234", ".env": "T=1"})
    tree(tmp_path / "shared_lib", {"util.py": "X = 1"})
    (tmp_path / "code" / "lib").symlink_to("../shared_lib")
    result = cli("plan", config, "--output", "json", "--no-check-quota")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    upload = plan["upload"]
    assert upload["source_dir"] == str(tmp_path / "code") and upload["entry_point"] == "train.py"
    assert upload["files"] == [".gitignore", "lib/util.py", "train.py"]
    assert upload["ignored"] == {"files": 1, "bytes": 4, "folders": 0}
    assert upload["credentials_left_out"] == [".env"]
    messages = [w["message"] for w in plan["warnings"]]
    assert any("lib -> " in m for m in messages) and any(".env" in m for m in messages)
    table = cli("plan", config, "--no-check-quota")
    assert f"code train.py from {tmp_path / 'code'} (3 files," in table.stdout
    assert "left out 1 file (4 B)" in table.stdout
    strict = cli("plan", config, "--strict", "--no-check-quota")
    assert strict.exit_code == 2 and "--strict" in strict.output

"""`sagelaunch import` round trip: for every example (and so every golden request), importing the
planned CreateTrainingJob request gives a config that plans to the same request."""

from __future__ import annotations

import pytest
import yaml

from sagelaunch.config.loader import load
from sagelaunch.translate.importer import ImportRefused, import_request
from tests.conftest import EXAMPLES, REPO
from tests.golden.regenerate import golden_plan, unordered

CONFIGS = sorted(EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.stem)
def test_imported_config_plans_the_same_request(tmp_path, config):
    original = golden_plan(config)["request"]
    # The repository's entry points: every example's script is there (the plan's bundle is
    # golden_plan's fixed source tree either way).
    framework = load(config).config.framework
    imported = import_request(original, source_dir=str(REPO / "entrypoints" / framework))
    path = tmp_path / "imported.yaml"
    path.write_text(yaml.safe_dump(imported, sort_keys=False))
    assert unordered(golden_plan(path)["request"]) == unordered(original)


def test_a_field_without_a_config_key_is_refused_by_name():
    request = golden_plan(EXAMPLES / "smddp-p4d.yaml")["request"]
    with pytest.raises(ImportRefused, match="sets MlflowConfig"):
        import_request({**request, "MlflowConfig": {"x": True}}, source_dir=".")


def test_an_algorithm_specification_member_without_a_key_is_refused_by_name():
    request = golden_plan(EXAMPLES / "smddp-p4d.yaml")["request"]
    spec = {**request["AlgorithmSpecification"], "ContainerEntrypoint": ["python"]}
    with pytest.raises(ImportRefused, match=r"AlgorithmSpecification\.ContainerEntrypoint"):
        import_request({**request, "AlgorithmSpecification": spec}, source_dir=".")


def test_cli_imports_a_saved_plan_file(cli, tmp_path):
    import json

    from tests.conftest import REPO

    saved, out = tmp_path / "plan.json", tmp_path / "back.yaml"
    config = EXAMPLES / "smddp-p4d.yaml"
    assert cli("plan", config, "--out", saved, "--job-name", "j-1", "-o", "json").exit_code == 0
    source_dir = REPO / "entrypoints" / "pytorch"
    result = cli("import", saved, "--out", out, "--source-dir", source_dir)
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("# Imported by `sagelaunch import")
    replanned = json.loads(cli("plan", out, "--job-name", "j-1", "-o", "json").stdout)
    assert replanned["request"] == json.loads(saved.read_text())["request"]

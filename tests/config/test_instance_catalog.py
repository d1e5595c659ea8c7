"""The instance catalog (data/instances.json) is generated, not typed: the shipped file is the
generator's output from the installed botocore and moto, it covers botocore's TrainingInstanceType
enum (every accelerated type present or excluded with a reason), and what plan, validate and
recommend read from it holds for the types 2024's hand-written catalog lacked. Oracles: botocore's
own loaded model (its enum), moto's EC2 server answering DescribeInstanceTypes, and the SDK."""

from __future__ import annotations

import json

import pytest
import yaml

from sagelaunch.catalog import facts, instance_catalog
from tests.conftest import EXAMPLES
from tests.golden.regenerate import golden_plan


def botocore_training_types() -> list[str]:
    """The enum as botocore itself loads it (independent of the generator's reading)."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("sagemaker")
    return list(model.shape_for("TrainingInstanceType").enum)


def test_the_shipped_catalog_is_the_generators_output():
    """Regenerate with `make catalog` when botocore or moto (EC2's data) changes."""
    shipped = instance_catalog.CATALOG_FILE.read_text(encoding="utf-8")
    assert shipped == instance_catalog.render(instance_catalog.generated_file())
    assert instance_catalog.main(["--check"]) == 0


def test_every_accelerated_training_type_is_known_or_excluded_with_a_reason():
    catalog = facts.load("instances")
    enum = botocore_training_types()
    accelerated = [t for t in enum if instance_catalog.accelerated(t)]
    assert len(accelerated) >= 58  # the API's own list, botocore 1.44: p*, g*, trn*
    for instance_type in accelerated:
        if instance_type in catalog["excluded"]:
            assert catalog["excluded"][instance_type].strip(), instance_type
            continue
        known = catalog["instances"][instance_type]
        assert known["kind"] in {"gpu", "trainium"}, instance_type
        assert known["accelerators"] >= 1 and known["accelerator"], instance_type
        assert known["source"], instance_type
    assert set(catalog["instances"]) <= set(enum), "a type the API does not take"
    assert set(catalog["instances"]) | set(catalog["excluded"]) >= set(accelerated)


def test_no_figure_is_blank_each_missing_one_says_why():
    for instance_type, known in facts.load("instances")["instances"].items():
        assert None not in known.values(), instance_type
        if known["kind"] == "cpu":
            continue
        for figure in ("bf16_tflops", "network_gbps"):
            assert figure in known or known["unknown"][figure], (instance_type, figure)


def test_each_accelerators_figures_cite_a_source():
    for name, figures in facts.load("accelerators")["accelerators"].items():
        assert "https://" in figures["source"], name
        if "fp8_tflops" in figures:
            assert figures["fp8_tflops"] >= figures["bf16_tflops"], name


@pytest.mark.parametrize(
    ("instance_type", "accelerator", "count", "ranks"),
    [
        ("ml.p6-b200.48xlarge", "B200", 8, 8),
        ("ml.p6-b300.48xlarge", "B300", 8, 8),
        ("ml.p6e-gb200.36xlarge", "GB200", 4, 4),  # AWS's published figures: EC2's data lacks it
        ("ml.p5.4xlarge", "H100", 1, 1),
        ("ml.g6e.12xlarge", "L40S", 4, 4),
        ("ml.g6.48xlarge", "L4", 8, 8),
        ("ml.g7e.48xlarge", "RTX PRO Server 6000", 8, 8),
        ("ml.g7.2xlarge", "RTX PRO 4500", 1, 1),
        ("ml.trn2.48xlarge", "Trainium2", 16, 64),  # 4 logical NeuronCores a chip (LNC=2)
    ],
)
def test_the_new_accelerators_per_host(instance_type, accelerator, count, ranks):
    known = facts.instance(instance_type)
    assert (known["accelerator"], known["accelerators"]) == (accelerator, count)
    assert facts.accelerators_per_host(instance_type) == ranks
    assert known["bf16_tflops"] > 0 and known["hbm_gb_per_s"] > 0


def test_network_text_as_ec2_writes_it():
    assert instance_catalog.network_gbps("3200 Gigabit") == 3200
    assert instance_catalog.network_gbps("Up to 12.5 Gigabit") == 12.5
    assert instance_catalog.network_gbps("16x 200 Gigabit") == 3200
    assert instance_catalog.network_gbps("High") is None


def test_the_generated_file_names_its_inputs():
    content = json.loads(instance_catalog.CATALOG_FILE.read_text(encoding="utf-8"))
    assert content["sources"]["types"].startswith("botocore ")
    assert "moto" in content["sources"]["ec2"]


@pytest.mark.parametrize(
    ("instance_type", "hosts", "per_host"),
    [("ml.p6-b200.48xlarge", 2, 8), ("ml.g6e.12xlarge", 1, 4), ("ml.p5.4xlarge", 1, 1)],
)
def test_plan_runs_one_process_per_accelerator(tmp_path, instance_type, hosts, per_host):
    """The toolkit's torchrun launcher starts one process per GPU it finds: the plan says the
    same for the types 2024's catalog lacked (a blank world size before)."""
    plan = golden_plan(_fsdp_example(tmp_path, instance_type, hosts))
    topology = plan["topology"]
    assert (topology["processes_per_host"], topology["world_size"]) == (per_host, hosts * per_host)
    assert "unknown" not in topology


def test_plan_says_unknown_for_a_type_the_catalog_lacks(tmp_path, cli):
    config = _fsdp_example(tmp_path, "ml.p7.48xlarge", 2)
    assert "not in sagelaunch's catalog" in golden_plan(config)["topology"]["unknown"]
    shown = cli("plan", config, "--no-check-quota")
    assert shown.exit_code == 0, shown.output
    assert "2 hosts × unknown processes = world size unknown" in shown.output
    assert "did you mean ml.g7.48xlarge or ml.p5.48xlarge?" in shown.output  # validate's advice


def _fsdp_example(tmp_path, instance_type: str, hosts: int):
    config = yaml.safe_load((EXAMPLES / "fsdp-g5.yaml").read_text())
    config["extends"] = str(EXAMPLES / "bases" / "team.yaml")
    config["source_dir"] = str(EXAMPLES.parent / "entrypoints" / "pytorch")
    config["compute"] = {"instance_type": instance_type, "instance_count": hosts}
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(config))
    return path

"""Hugging Face jobs are the SDK's HuggingFace estimator's, byte for byte.

Each setup of tests/sdk/huggingface_setups.py (Hugging Face's notebooks, the SDK's own tests) is
captured from the SDK's estimator offline; `import` turns it into a `framework: huggingface`
config with the versions read from the image tag, `plan` of that config sends the same request,
and the `export --sdk v2` script of that plan (a ``HuggingFace(...)``) sends it again. The image
resolution `validate` uses is held to the SDK's own for every entry of its table, and what the
SDK cannot resolve (Trainium) to the Deep Learning Containers' published tags.
"""

from __future__ import annotations

import json
import runpy

import pytest
import yaml
from sagemaker.huggingface import HuggingFace
from sagemaker.parameter import ContinuousParameter
from sagemaker.tuner import HyperparameterTuner

from sagelaunch.catalog import sdk_data
from sagelaunch.plan import hf_images
from sagelaunch.plan.images import ImageUnavailable
from sagelaunch.plan_model import Plan
from sagelaunch.sdk.capture import capture
from sagelaunch.services.exporting import script
from sagelaunch.services.planning import make_plan
from sagelaunch.translate.importer import import_request
from tests.golden.regenerate import ROLE
from tests.sdk.huggingface_setups import LOG_METRICS, SETUPS
from tests.sdk.test_import_exact import without_code_location
from tests.sdk.test_public_setups import JOB
from tests.sdk.test_public_setups import sdk_request as setup_request
from tests.sdk.test_tuning_equivalence import ours


def imported_plan(request: dict, folder, monkeypatch) -> tuple[dict, Plan]:
    """import -> a config beside a one-line script -> `plan`'s own path (as
    test_public_setups.imported_then_planned, keeping the plan for export)."""
    config = import_request(request, source_dir="code")
    script_path = folder / "code" / config["entry_point"]
    script_path.parent.mkdir(parents=True, exist_ok=True)
    script_path.write_text("print('train')\n")
    for name, value in (request.get("Environment") or {}).items():
        monkeypatch.setenv(name, value)
    path = folder / "imported.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return config, make_plan(path, None, None, JOB, cache_dir=folder / "cache").plan


def exported_request(plan: Plan, folder) -> dict:
    path = folder / "exported.py"
    path.write_text(script(plan, "v2", source="imported.yaml", name=path.name))
    namespace = runpy.run_path(str(path))
    return capture(lambda session: namespace["main"](session, wait=False), plan.region)


def test_the_collection_covers_what_the_issue_names():
    assert len(SETUPS) >= 8
    written = json.dumps({name: s.kwargs for name, s in SETUPS.items()})
    for feature in (
        "tensorflow_version", "torch_distributed", "dataparallel", "modelparallel", "mpi",
        "use_spot_instances", "checkpoint_s3_uri", "metric_definitions", "ml.p4d.24xlarge",
        "environment", "disable_output_compression",
    ):  # fmt: skip
        assert feature in written, feature


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_import_plan_and_export_send_what_the_sdk_sent(tmp_path, monkeypatch, name):
    request = setup_request(SETUPS[name])
    config, plan = imported_plan(request, tmp_path, monkeypatch)
    kwargs = SETUPS[name].kwargs
    assert config["framework"] == "huggingface" and "image_uri" not in config
    assert config["transformers_version"] == kwargs["transformers_version"]
    base = "pytorch_version" if "pytorch_version" in kwargs else "tensorflow_version"
    assert config[base] == kwargs[base] and config["py_version"] == kwargs["py_version"]
    assert without_code_location(plan.request) == without_code_location(request)
    assert plan.estimator.class_name == "sagemaker.huggingface.HuggingFace"
    assert exported_request(plan, tmp_path) == plan.request


# --- images -------------------------------------------------------------------------------------

GPU_TYPES = ("ml.g5.2xlarge", "ml.p3.16xlarge", "ml.p4d.24xlarge")
REGIONS = ("us-east-1", "eu-west-1", "cn-north-1", "us-gov-west-1")


def _table_cases() -> list[tuple[str, str, str, str]]:
    table = hf_images.table(False)
    cases = []
    for transformers in [*table["versions"], *table.get("version_aliases", {})]:
        _, entry = hf_images.version_entry(table, transformers)
        for key in [*entry, *entry.get("version_aliases", {})]:
            if key == "version_aliases":
                continue
            framework = "tensorflow" if key.startswith("tensorflow") else "pytorch"
            base = hf_images.base_entry(entry, framework, key.removeprefix(framework))
            for py in base["py_versions"]:
                cases.append((transformers, framework, key.removeprefix(framework), py))
    return cases


def test_the_image_validate_resolves_is_the_sdks_for_every_table_entry():
    from sagemaker import image_uris

    cases = _table_cases()
    assert len(cases) > 40
    for (transformers, framework, version, py), region, instance in (
        (case, REGIONS[i % len(REGIONS)], GPU_TYPES[i % len(GPU_TYPES)])
        for i, case in enumerate(cases)
    ):
        ours = hf_images.sdk_image(region, transformers, framework, version, py, instance).uri
        theirs = image_uris.get_training_image_uri(
            region,
            "huggingface",
            transformers,
            py,
            instance_type=instance,
            **{f"{framework}_version": version},
        )
        assert ours == theirs, (transformers, framework, version, py, region, instance)


def test_cpu_instances_have_no_sdk_image_and_validate_says_so():
    from sagemaker import image_uris

    with pytest.raises(ValueError, match="Unsupported processor: cpu"):
        image_uris.get_training_image_uri(
            "us-east-1", "huggingface", "4.36.0", "py310", pytorch_version="2.1.0",
            instance_type="ml.c5.xlarge",
        )  # fmt: skip
    with pytest.raises(ImageUnavailable, match="gpu instances only"):
        hf_images.sdk_image("us-east-1", "4.36.0", "pytorch", "2.1.0", "py310", "ml.c5.xlarge")


# Tags AWS publishes for these (Deep Learning Containers' available_images, Neuron containers).
PUBLISHED_NEURONX = {
    ("4.34.1", "1.13.1"): "1.13.1-transformers4.34.1-neuronx-py310-sdk2.15.0-ubuntu20.04",
    ("4.36.2", "1.13.1"): "1.13.1-transformers4.36.2-neuronx-py310-sdk2.18.0-ubuntu20.04",
    ("4.43.2", "2.1.2"): "2.1.2-transformers4.43.2-neuronx-py310-sdk2.20.0-ubuntu20.04",
}


@pytest.mark.parametrize("versions", sorted(PUBLISHED_NEURONX))
def test_the_trainium_image_is_the_published_one(versions):
    image = hf_images.neuronx_image("us-east-1", *versions, None).uri
    assert image == (
        "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-training-neuronx:"
        + PUBLISHED_NEURONX[versions]
    )


# --- setups written here: Trainium, pytorchddp, a tuning job -------------------------------------


def _planned(tmp_path, config: dict) -> Plan:
    (tmp_path / "train.py").write_text("print('train')\n")
    base = {
        "name": "hf",
        "framework": "huggingface",
        "entry_point": "train.py",
        "role": ROLE,
        "region": "us-east-1",
        "output_path": "s3://bucket/output/",
    }
    path = tmp_path / "hf.yaml"
    path.write_text(yaml.safe_dump({**base, **config}, sort_keys=False))
    return make_plan(path, None, None, JOB, cache_dir=tmp_path / "cache").plan


def _sdk(plan: Plan, **kwargs) -> dict:
    code = plan.estimator.kwargs["source_dir"]

    def fit(session) -> None:
        estimator = HuggingFace(
            entry_point="train.py",
            source_dir=code,
            role=ROLE,
            output_path="s3://bucket/output/",
            sagemaker_session=session,
            **kwargs,
        )
        estimator.fit(wait=False, logs=False, job_name=JOB)

    return capture(fit, "us-east-1")


def test_trainium_torch_distributed_passes_the_neuronx_image(tmp_path, monkeypatch):
    compute = {"instance_type": "ml.trn1.32xlarge", "instance_count": 2}
    versions = {"transformers_version": "4.36.2", "pytorch_version": "1.13.1"}
    plan = _planned(
        tmp_path, {**versions, "compute": compute, "distribution": {"strategy": "torchrun"}}
    )
    image = hf_images.neuronx_image("us-east-1", "4.36.2", "1.13.1", None).uri
    expected = _sdk(
        plan,
        image_uri=image,
        py_version="py310",
        instance_type="ml.trn1.32xlarge",
        instance_count=2,
        distribution={"torch_distributed": {"enabled": True}},
        **versions,
    )
    assert plan.request == expected
    config = import_request(plan.request, source_dir=".")
    assert {k: config.get(k) for k in versions} == versions and "image_uri" not in config
    assert exported_request(plan, tmp_path) == plan.request


def test_export_v3_is_a_model_trainer_on_the_same_image(tmp_path):
    """`export --sdk v3` renders (the v3 SDK itself builds it under `make test-sdk-v3`)."""
    from sagelaunch.errors import UsageError

    versions = {"transformers_version": "4.36.0", "pytorch_version": "2.1.0"}
    compute = {"instance_type": "ml.p4d.24xlarge", "instance_count": 2}
    plan = _planned(
        tmp_path, {**versions, "compute": compute, "distribution": {"strategy": "torchrun"}}
    )
    text = script(plan, "v3", source="hf.yaml", name="hf.py")
    compile(text, "hf.py", "exec")
    image = plan.request["AlgorithmSpecification"]["TrainingImage"]
    assert f'training_image="{image}"' in text and "distributed=Torchrun()" in text
    assert "huggingface-pytorch-training:2.1.0-transformers4.36.0-gpu" in image
    ddp = _planned(
        tmp_path, {**versions, "compute": compute, "distribution": {"strategy": "pytorchddp"}}
    )
    with pytest.raises(UsageError, match="no pytorchddp option"):
        script(ddp, "v3", source="hf.yaml", name="hf.py")


def test_pytorchddp_is_the_estimators_own_key(tmp_path):
    compute = {"instance_type": "ml.p4d.24xlarge", "instance_count": 2}
    versions = {"transformers_version": "4.28.1", "pytorch_version": "2.0.0"}
    plan = _planned(
        tmp_path, {**versions, "compute": compute, "distribution": {"strategy": "pytorchddp"}}
    )
    expected = _sdk(
        plan,
        py_version="py310",
        distribution={"pytorchddp": {"enabled": True}},
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        **versions,
    )
    assert plan.request == expected
    assert plan.request["HyperParameters"]["sagemaker_pytorch_ddp_enabled"] == "true"
    assert plan.topology.launcher == "mpirun"
    assert import_request(plan.request, source_dir=".")["distribution"] == {
        "strategy": "pytorchddp"
    }


def test_tuning_a_huggingface_estimator(tmp_path, sdk_tuning_request):
    """06_sagemaker_metrics' estimator (its metric definitions) under a tuner written here."""
    metrics = [{"name": m["Name"], "regex": m["Regex"]} for m in LOG_METRICS]
    request, code = ours(
        tmp_path,
        {
            "name": "hf-tune",
            "framework": "huggingface",
            "framework_version": None,
            "entry_point": "train_pytorch.py",
            "transformers_version": "4.26",
            "pytorch_version": "1.13",
            "compute": {"instance_type": "ml.p3.2xlarge"},
            "hyperparameters": {"epochs": 3, "model_name": "distilbert-base-uncased"},
            "metrics": metrics,
            "tuning": {
                "objective": {"metric": "eval_loss", "type": "Minimize"},
                "ranges": {"learning_rate": {"min": 1.0e-5, "max": 1.0e-3}},
                "max_jobs": 4,
                "max_parallel_jobs": 2,
            },
        },
    )
    expected = sdk_tuning_request(
        lambda s: HyperparameterTuner(
            HuggingFace(
                entry_point="train_pytorch.py",
                source_dir=code,
                transformers_version="4.26",
                pytorch_version="1.13",
                py_version="py39",
                role=ROLE,
                instance_type="ml.p3.2xlarge",
                instance_count=1,
                volume_size=30,
                max_run=86400,
                output_path="s3://bucket/output/",
                hyperparameters={"epochs": 3, "model_name": "distilbert-base-uncased"},
                metric_definitions=LOG_METRICS,
                sagemaker_session=s,
            ),
            objective_metric_name="eval_loss",
            objective_type="Minimize",
            hyperparameter_ranges={"learning_rate": ContinuousParameter(1e-5, 1e-3)},
            max_jobs=4,
            max_parallel_jobs=2,
            metric_definitions=LOG_METRICS,
        )
    )
    assert request == expected
    assert sdk_data.training_config("huggingface")  # read as data, the same table

"""Setups nobody here wrote (tests/sdk/public_setups.py): each request is captured from the SDK's
own estimator, offline; `import` turns it into a config and `plan` of that config must send the
same request, field for field (only the job name and the code location may move). A job the
source names exactly (fit(job_name=...)) keeps its name too: the config says job_name, and plan
sends it without being told."""

from __future__ import annotations

import dataclasses
import json

import pytest
import yaml

from sagelaunch.sdk.capture import SdkRejected, build_estimator, capture, fit_inputs
from sagelaunch.sdk.estimator import EstimatorSpec
from sagelaunch.services.planning import make_plan
from sagelaunch.translate.importer import import_request
from tests.sdk.public_setups import SETUPS, PublicSetup
from tests.sdk.test_import_exact import without_code_location

JOB = "public-setup-2026-01-01-00-00-00-000"
DEFAULT_BUCKET = "amzn-s3-demo-bucket"


def sdk_request(setup: PublicSetup) -> dict:
    """What the SDK sends for ``setup``, offline. Most setups leave output_path to the session's
    default bucket, which the SDK finds through STS and S3; here it is one the session has
    already found (the SDK then asks nothing)."""
    spec = EstimatorSpec(setup.cls, setup.kwargs, setup.inputs, setup.set_hyperparameters)

    def fit(session) -> None:
        session._default_bucket = DEFAULT_BUCKET
        estimator = build_estimator(spec, session)
        name = setup.job_name or JOB
        estimator.fit(fit_inputs(spec) or None, wait=False, logs=False, job_name=name)

    return capture(fit, setup.region)


def imported_then_planned(request: dict, folder, monkeypatch, job_name: str | None = JOB) -> dict:
    """import -> a config beside its code folder (a one-line script under the entry point's
    name) -> `plan`'s own path (the region and role the config names; the secret-looking
    environment values, which import writes as references, set in the shell as a user has them)."""
    config = import_request(request, source_dir="code")
    if "entry_point" in config:
        script = folder / "code" / config["entry_point"]
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text("print('train')\n")
    for name, value in (request.get("Environment") or {}).items():
        monkeypatch.setenv(name, value)
    path = folder / "imported.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    plan = make_plan(path, None, None, job_name, cache_dir=folder / "cache").plan
    return plan.request


def test_the_collection_covers_what_the_issue_names():
    assert len(SETUPS) >= 25
    written = json.dumps({name: s.kwargs for name, s in SETUPS.items()}, default=str)
    for feature in (
        "torch_distributed", "smdistributed", "mpi", "pytorchddp", "parameter_server",
        "multi_worker_mirrored_strategy", "checkpoint_s3_uri", "use_spot_instances",
        "enable_network_isolation", "metric_definitions", "environment", "instance_groups",
        "ml.trn1", "image_uris.retrieve",
    ):  # fmt: skip
        assert feature in written, feature


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_import_then_plan_sends_what_the_sdk_sent(tmp_path, monkeypatch, name):
    setup = SETUPS[name]
    request = sdk_request(setup)
    # An exact name is the config's: plan is not told one (a generated name moves, as planned).
    told = None if setup.job_name else JOB
    replanned = imported_then_planned(request, tmp_path, monkeypatch, told)
    assert without_code_location(replanned) == without_code_location(request)


EXACT = sorted(name for name, setup in SETUPS.items() if setup.job_name)


@pytest.mark.parametrize("name", EXACT)
def test_a_job_the_source_names_exactly_imports_its_name_as_job_name(name):
    setup = SETUPS[name]
    config = import_request(sdk_request(setup), source_dir="code")
    assert config["job_name"] == setup.job_name
    assert "model_dir" not in config  # TensorFlow's default, derived from that name again


def test_the_collection_names_jobs_exactly():
    assert len(EXACT) >= 2 and any(SETUPS[n].cls.endswith("TensorFlow") for n in EXACT)


# Two setups as their sources write them, which the installed SDK refuses: validate refuses the
# same job (the setting, then the key it names), as the SDK's reason says.
REFUSED_AS_WRITTEN = {
    "sdk-torch-distributed-trn1": ({"py_version": "py3"}, "py_version", "offers py38"),
    "sdk-smddp-tensorflow": (
        {"framework_version": "2.13.0", "py_version": "py310"},
        "framework_version",
        "supports TensorFlow 2.3",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED_AS_WRITTEN))
def test_what_the_sdk_refuses_validate_refuses(tmp_path, cli, name):
    change, key, reason = REFUSED_AS_WRITTEN[name]
    setup = SETUPS[name]
    with pytest.raises(SdkRejected):
        sdk_request(dataclasses.replace(setup, kwargs={**setup.kwargs, **change}))
    config = import_request(sdk_request(setup), source_dir=".")
    (tmp_path / config["entry_point"]).write_text("print('train')\n")
    path = tmp_path / "as-written.yaml"
    path.write_text(yaml.safe_dump({**config, **change}, sort_keys=False))
    result = cli("validate", path, "-o", "json")
    assert result.exit_code == 2
    (report,) = json.loads(result.stdout)
    assert any(e["path"] == key and reason in e["message"] for e in report["errors"])

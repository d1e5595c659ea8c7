"""sagelaunch's image resolution equals the SDK's own `image_uris.get_training_image_uri`, for every
training version and alias the SDK's tables list (a test each): in every region of the version's
table with one Python version and instance type (where it is offered at all), and in a sample of
regions (with the partitions whose ECR hostnames differ) for every Python version and instance
family. A region is one lookup in the version's registry table, so its answer does not depend on
the Python version or the instance: the full product of the three would check the same lookups
again (1.7× the CPU time)."""

from __future__ import annotations

import functools

import pytest

from sagelaunch.catalog import sdk_data
from sagelaunch.plan import images

# One instance type per processor the tables distinguish, plus the families with special rules.
INSTANCE_TYPES = (
    "ml.c5.xlarge",  # cpu
    "ml.g5.2xlarge",  # gpu
    "ml.p3.16xlarge",  # gpu
    "ml.p4d.24xlarge",  # gpu + the SDK's p4d CUDA-suffix table
    "ml.p5.48xlarge",  # gpu (SMP picks cu121 on p5)
    "ml.trn1.32xlarge",  # Trainium -> pytorch-neuron
    "ml.m6g.xlarge",  # Graviton -> the inference_graviton scope
    "ml.p2.xlarge",  # deprecated for PyTorch >= 1.13
)


def _cases(framework: str) -> list[tuple[str, str]]:
    config = sdk_data.training_config(framework)
    versions = [*config["versions"], *config.get("version_aliases", {})]
    return [(framework, version) for version in versions]


CASES = [
    *_cases("pytorch"),
    *_cases("xgboost"),
    *_cases("tensorflow"),
    *[("smp", v) for _, v in _cases("pytorch-smp")],
    *[("neuron", v) for _, v in _cases("pytorch-neuron")],
]


@pytest.fixture(scope="module")
def sdk_retrieve():
    from sagelaunch.sdk.runtime import sagemaker

    sdk = sagemaker()
    # The SDK re-reads its image table on every call; caching the reader keeps this whole-table
    # test quick and leaves its resolution logic untouched (the endpoint table it also reads is
    # parsed once by sagelaunch.sdk.runtime for every caller).
    reader = sdk.image_uris.config_for_framework
    sdk.image_uris.config_for_framework = functools.cache(reader)
    yield sdk.image_uris.get_training_image_uri
    sdk.image_uris.config_for_framework = reader


def _version_table(framework: str, version: str) -> dict:
    name = {"smp": "pytorch-smp", "neuron": "pytorch-neuron"}.get(framework, framework)
    config = sdk_data.training_config(name)
    return config["versions"][config.get("version_aliases", {}).get(version, version)]


def _py_versions(framework: str, version: str) -> list[str | None]:
    table = _version_table(framework, version)
    offered = table.get("py_versions") or [k for k in table if k.startswith("py")]
    return [*offered, None, "py27"]


def _registries(framework: str, version: str) -> list[str]:
    table = _version_table(framework, version)
    registries = table.get("registries") or next(iter(table.values()))["registries"]
    return [*registries, "mars-east-1"]


def _sampled(regions: list[str]) -> list[str]:
    special = [r for r in regions if r.startswith(("cn-", "us-gov-", "us-iso"))]
    return [*regions[:2], *special[:3], "mars-east-1"]


def _ours(framework, region, version, py, instance_type):
    try:
        return images.sdk_training_image(
            "pytorch" if framework in {"smp", "neuron"} else framework,
            region,
            version,
            py,
            instance_type,
            smp_v2=framework == "smp",
        ).uri
    except images.ImageUnavailable:
        return "unavailable"


def _sdk(retrieve, framework, region, version, py, instance_type):
    distribution = None
    if framework == "smp":
        distribution = {
            "torch_distributed": {"enabled": True},
            "smdistributed": {"modelparallel": {"enabled": True}},
        }
    try:
        return retrieve(
            region,
            "pytorch" if framework in {"smp", "neuron"} else framework,
            framework_version=version,
            py_version=py,
            distribution=distribution,
            instance_type=instance_type,
        )
    except (ValueError, KeyError):
        return "unavailable"


@pytest.mark.parametrize(("framework", "version"), CASES, ids=[f"{f}-{v}" for f, v in CASES])
def test_image_equals_sdk_retrieve(sdk_retrieve, framework, version):
    instance_types = INSTANCE_TYPES
    if framework == "neuron":
        instance_types = ("ml.trn1.32xlarge", "ml.trn1n.32xlarge", "ml.trn2.48xlarge")
    py_versions = _py_versions(framework, version)
    regions = _registries(framework, version)
    # Every region with one combination the version offers (if it offers any here).
    py, instance_type = next(
        (
            (py, instance_type)
            for py in py_versions
            for instance_type in instance_types
            if _sdk(sdk_retrieve, framework, regions[0], version, py, instance_type)
            != "unavailable"
        ),
        (py_versions[0], instance_types[0]),
    )
    combinations = [(region, py, instance_type) for region in regions]
    combinations += [
        (region, py, instance_type)
        for region in _sampled(regions)
        for py in py_versions
        for instance_type in instance_types
    ]
    mismatches, resolved = [], 0
    for region, py, instance_type in combinations:
        ours = _ours(framework, region, version, py, instance_type)
        theirs = _sdk(sdk_retrieve, framework, region, version, py, instance_type)
        resolved += theirs != "unavailable"
        if ours != theirs:
            mismatches.append((region, py, instance_type, ours, theirs))
    assert not mismatches, mismatches[:5]
    assert resolved, "the SDK resolved no combination: the test would prove nothing"

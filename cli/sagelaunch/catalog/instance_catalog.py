"""The instance catalog (data/instances.json), generated, not typed.

Every instance type CreateTrainingJob takes (botocore's ``TrainingInstanceType`` enum) gets an
entry built from EC2's own instance data (``DescribeInstanceTypes``: accelerator kind, name,
count and memory, vCPUs, host memory, network, EFA), as moto ships a copy of it, or, for a type
that copy lacks, from AWS's published specification written in the same shape
(data/instances_published.json). The per-accelerator figures EC2 does not publish (dense peaks,
memory bandwidth, the memory CUDA reports) come from the vendors' datasheets
(data/accelerators.json).

``python -m sagelaunch.catalog.instance_catalog`` (``make catalog``) writes data/instances.json
from the installed botocore and moto; tests/catalog/test_instance_catalog.py holds the shipped file
to that output and to botocore's enum. ``sagelaunch catalog refresh`` builds the same entries
from a live ``ec2:DescribeInstanceTypes`` answer into the cache folder (catalog/refresh.py).
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sagelaunch.catalog import facts, sdk_data

CATALOG_FILE = Path(__file__).resolve().parent.parent / "data" / "instances.json"
MOTO_EC2_DATA = "ec2/resources/instance_types.json.gz"  # inside the moto package

# EC2's NetworkPerformance: "3200 Gigabit", "Up to 25 Gigabit", "4x 100 Gigabit".
_GIGABIT = re.compile(r"^(?:Up to )?(?:(\d+)x )?([\d.]+) Gigabit$")


def ec2_name(instance_type: str) -> str:
    """The EC2 name of a SageMaker type: ml.p5.48xlarge -> p5.48xlarge."""
    return instance_type.removeprefix("ml.")


def accelerated(instance_type: str) -> bool:
    """Whether the family letter says GPU or Trainium (p*, g*, trn*): the types the catalog must
    know, each of whose processes per host depends on its accelerators."""
    family = ec2_name(instance_type).split(".")[0]
    return family.startswith(("p", "g", "trn"))


def network_gbps(performance: str) -> float | None:
    """EC2's NetworkPerformance text in Gbps; None for the words it uses for old types ("High")."""
    match = _GIGABIT.match(performance.strip())
    if match is None:
        return None
    return _number(float(match[2]) * int(match[1] or 1))


def _number(value: float) -> float:
    """A whole number as an int (1152, not 1152.0), else two decimals."""
    return int(value) if float(value).is_integer() else round(value, 2)


def _variant(name: str, memory_mib: int | None) -> dict[str, Any]:
    """The datasheet figures of the accelerator EC2 names ``name`` with ``memory_mib`` each."""
    known = facts.load("accelerators")["accelerators"]
    matches = [
        figures
        for figures in known.values()
        if figures["ec2_name"] == name and figures.get("ec2_memory_mib", memory_mib) == memory_mib
    ]
    return matches[0] if len(matches) == 1 else {}


def entry(info: Mapping[str, Any]) -> dict[str, Any]:
    """One catalog entry from an EC2 ``InstanceTypeInfo`` (DescribeInstanceTypes' shape)."""
    gpus = (info.get("GpuInfo") or {}).get("Gpus") or []
    neuron = (info.get("NeuronInfo") or {}).get("NeuronDevices") or []
    network = info.get("NetworkInfo") or {}
    found: dict[str, Any] = {}
    unknown: dict[str, str] = {}
    device = (gpus or neuron or [None])[0]
    if device is None:
        found.update(kind="cpu", accelerators=0)
    else:
        memory_mib = (device.get("MemoryInfo") or {}).get("SizeInMiB")
        figures = _variant(device["Name"], memory_mib)
        found.update(
            kind="gpu" if gpus else "trainium",
            accelerator=device["Name"],
            accelerators=int(device["Count"]),
        )
        if neuron:
            per_device = figures.get("neuron_cores_per_device") or device["CoreInfo"]["Count"]
            found["neuron_cores"] = int(device["Count"]) * int(per_device)
        nominal = figures.get("accelerator_memory_gb")
        if nominal is None and memory_mib:
            nominal = _number(round(memory_mib * 2**20 / 1e9, 1))
        found["accelerator_memory_gb"] = nominal
        if "cuda_memory_gib" in figures:
            found["cuda_memory_gib"] = figures["cuda_memory_gib"]
        for key in ("bf16_tflops", "fp8_tflops", "hbm_gb_per_s"):
            if key in figures:
                found[key] = figures[key]
        if not figures:
            unknown["bf16_tflops"] = f"accelerators.json has no figures for {device['Name']}"
        elif "bf16_tflops" not in figures:
            unknown["bf16_tflops"] = f"{device['Name']} has no bf16 or fp16 tensor units"
    found["vcpus"] = int(info["VCpuInfo"]["DefaultVCpus"])
    found["memory_gib"] = _number(info["MemoryInfo"]["SizeInMiB"] / 1024)
    performance = str(network.get("NetworkPerformance", ""))
    gbps = network_gbps(performance)
    if gbps is None:
        unknown["network_gbps"] = f"EC2 states its network only as {performance or 'nothing'!r}"
    else:
        found["network_gbps"] = gbps
    found["efa"] = bool(network.get("EfaSupported"))
    if found["efa"] and "EfaInfo" in network:
        found["efa_interfaces"] = int(network["EfaInfo"]["MaximumEfaInterfaces"])
    found["architecture"] = (info.get("ProcessorInfo") or {}).get(
        "SupportedArchitectures", ["x86_64"]
    )[0]
    if unknown:
        found["unknown"] = unknown
    return found


def generate(
    training_types: list[str],
    ec2: Mapping[str, Mapping[str, Any]],
    published: Mapping[str, Mapping[str, Any]],
    ec2_source: str,
) -> dict[str, Any]:
    """Entries for every training type, EC2's data first, AWS's published figures for the rest;
    the accelerated types neither has are listed under ``excluded`` with the reason."""
    instances: dict[str, Any] = {}
    excluded: dict[str, str] = {}
    for instance_type in training_types:
        name = ec2_name(instance_type)
        if name in ec2:
            instances[instance_type] = {**entry(ec2[name]), "source": ec2_source}
        elif name in published:
            source = published[name]["Source"]
            instances[instance_type] = {**entry(published[name]), "source": source}
        elif accelerated(instance_type):
            excluded[instance_type] = (
                "neither EC2's instance data nor instances_published.json describes it"
            )
    return {"instances": instances, "excluded": excluded}


def moto_ec2_data() -> dict[str, Any]:
    """EC2's DescribeInstanceTypes answers as moto ships them, by EC2 name."""
    path = sdk_data.package_dir("moto") / MOTO_EC2_DATA
    return dict(json.loads(gzip.decompress(path.read_bytes())))


def generated_file(
    ec2: Mapping[str, Mapping[str, Any]] | None = None, ec2_from: str | None = None
) -> dict[str, Any]:
    """The contents of data/instances.json, from the installed botocore and moto; or, given EC2's
    live answers (``ec2``) and where they came from (``ec2_from``), the refreshed catalog."""
    botocore = sdk_data.package_version("botocore")
    published = facts.load("instances_published")
    accelerators = facts.load("accelerators")
    if ec2 is None:
        moto = sdk_data.package_version("moto")
        ec2, ec2_from = moto_ec2_data(), f"as moto {moto} ships it (moto/{MOTO_EC2_DATA})"
    body = generate(
        sdk_data.training_instance_types(), ec2, published["instance_types"], ec2_source="ec2"
    )
    return {
        "description": (
            "Written by `python -m sagelaunch.catalog.instance_catalog` (make catalog): every "
            "type of CreateTrainingJob's TrainingInstanceType enum, from EC2's instance data, "
            "AWS's published specifications and the accelerators' datasheets; do not edit."
        ),
        "sources": {
            "types": f"botocore {botocore}: the sagemaker model's TrainingInstanceType enum",
            "ec2": f"EC2 DescribeInstanceTypes, {ec2_from}",
            "published": f"data/instances_published.json (as of {published['as_of']})",
            "accelerators": f"data/accelerators.json (as of {accelerators['as_of']})",
        },
        **body,
    }


def render(content: Mapping[str, Any]) -> str:
    return json.dumps(content, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write data/instances.json (``--check``: exit 1 when the shipped file differs)."""
    args = sys.argv[1:] if argv is None else argv
    text = render(generated_file())
    if "--check" in args:
        same = CATALOG_FILE.read_text(encoding="utf-8") == text
        print("instances.json is up to date" if same else "instances.json differs: make catalog")
        return 0 if same else 1
    CATALOG_FILE.write_text(text, encoding="utf-8")
    content = json.loads(text)
    print(
        f"wrote {CATALOG_FILE} ({len(content['instances'])} types, "
        f"{len(content['excluded'])} excluded)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

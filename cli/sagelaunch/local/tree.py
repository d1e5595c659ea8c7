"""One emulated host's folder, shaped like the container's /opt/ml, and the config files in it."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GROUP = "homogeneousCluster"  # SageMaker's group name when the job has no instance groups
NETWORK_INTERFACE = "eth0"


@dataclass(frozen=True)
class HostTree:
    """``root`` plays /opt/ml for host ``name`` (algo-1, algo-2, …)."""

    name: str
    root: Path

    @property
    def code(self) -> Path:
        return self.root / "code"

    @property
    def input(self) -> Path:
        return self.root / "input"

    @property
    def input_config(self) -> Path:
        return self.input / "config"

    @property
    def model(self) -> Path:
        return self.root / "model"

    @property
    def output(self) -> Path:
        return self.root / "output"

    @property
    def output_data(self) -> Path:
        return self.output / "data"

    @property
    def output_intermediate(self) -> Path:
        return self.output / "intermediate"

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def failure_file(self) -> Path:
        return self.output / "failure"

    def channel(self, name: str) -> Path:
        return self.input / "data" / name

    def config_file(self, name: str) -> Path:
        return self.input_config / f"{name}.json"


def host_names(count: int) -> list[str]:
    return [f"algo-{i}" for i in range(1, count + 1)]


def resource_config(host: str, hosts: list[str], instance_type: str) -> dict[str, Any]:
    """resourceconfig.json as SageMaker writes it for a homogeneous cluster."""
    return {
        "current_host": host,
        "current_instance_type": instance_type,
        "current_group_name": GROUP,
        "hosts": hosts,
        "instance_groups": [
            {"instance_group_name": GROUP, "instance_type": instance_type, "hosts": hosts}
        ],
        "network_interface_name": NETWORK_INTERFACE,
    }


def input_data_config(request: dict[str, Any]) -> dict[str, dict[str, str]]:
    """inputdataconfig.json from the request's InputDataConfig (file systems count as
    FullyReplicated: every host mounts the whole file system)."""
    default_mode = request["AlgorithmSpecification"].get("TrainingInputMode", "File")
    config: dict[str, dict[str, str]] = {}
    for channel in request.get("InputDataConfig", []):
        s3 = channel["DataSource"].get("S3DataSource", {})
        entry = {"ContentType": channel["ContentType"]} if "ContentType" in channel else {}
        entry["TrainingInputMode"] = channel.get("InputMode", default_mode)
        entry["S3DistributionType"] = s3.get("S3DataDistributionType", "FullyReplicated")
        entry["RecordWrapperType"] = channel.get("RecordWrapperType", "None")
        config[channel["ChannelName"]] = entry
    return config


def create(
    tree: HostTree,
    *,
    hyperparameters: dict[str, str],
    resources: dict[str, Any],
    channels: dict[str, dict[str, str]],
) -> None:
    """A fresh tree: empty model/output/checkpoint dirs, one dir per channel, the three configs."""
    if tree.root.exists():
        shutil.rmtree(tree.root)
    for folder in (
        tree.code,
        tree.input_config,
        tree.input / "data",
        tree.model,
        tree.output_data,
        tree.output_intermediate,
        tree.checkpoints,
    ):
        folder.mkdir(parents=True)
    for name in channels:
        tree.channel(name).mkdir()
    _write_json(tree.config_file("hyperparameters"), hyperparameters)
    _write_json(tree.config_file("resourceconfig"), resources)
    _write_json(tree.config_file("inputdataconfig"), channels)


def _write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

"""The instance catalog rebuilt from EC2's live answers (`sagelaunch instances --refresh`): every
training type of botocore's enum asked with DescribeInstanceTypes, built by the generator's own
code (catalog/instance_catalog.py), written atomically to the cache folder, where
`catalog.facts.catalog()` reads it in place of the shipped file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sagelaunch import atomic
from sagelaunch.aws.ec2_instances import describe_instance_types
from sagelaunch.aws.session import Clients
from sagelaunch.catalog import facts, instance_catalog, sdk_data


@dataclass(frozen=True)
class Refreshed:
    path: Path
    from_ec2: int
    total: int
    changes: list[str]

    @property
    def summary(self) -> str:
        differ = (
            f"{len(self.changes)} differ from the shipped catalog"
            if self.changes
            else ("the same as the shipped catalog")
        )
        return (
            f"wrote {self.path}: {self.from_ec2} types from EC2, "
            f"{self.total - self.from_ec2} from AWS's published figures; {differ}"
        )


def refresh(aws: Clients, progress: Callable[[str], None]) -> Refreshed:
    names = sdk_data.training_instance_types()
    progress(f"asking EC2 in {aws.region} for {len(names)} training instance types…")
    answers = describe_instance_types(names, aws=aws)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    content = instance_catalog.generated_file(answers, f"asked in {aws.region} at {when}")
    path = facts.refreshed_catalog_file()
    atomic.write_text(path, instance_catalog.render(content))
    found = sum(1 for entry in content["instances"].values() if entry["source"] == "ec2")
    changes = changes_from(facts.load("instances"), content)
    return Refreshed(path, found, len(content["instances"]), changes)


def changes_from(shipped: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """The types and figures where EC2's live answer differs from the shipped catalog."""
    found = []
    for name, entry in fresh["instances"].items():
        before = shipped["instances"].get(name)
        if before is None:
            found.append(f"{name}: new")
            continue
        for key in sorted(set(entry) | set(before)):
            if key != "source" and entry.get(key) != before.get(key):
                found.append(f"{name}: {key} {before.get(key)} -> {entry.get(key)}")
    return found

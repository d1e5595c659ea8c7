"""The instance catalog rebuilt from EC2's live answers (`sagelaunch instances --refresh`): every
training type of botocore's enum asked with DescribeInstanceTypes, built by the generator's own
code (catalog/instance_catalog.py: EC2's answers first, AWS's published figures for the rest),
written atomically to the cache folder, where `catalog.facts.catalog()` reads it in place of the
shipped file.

EC2 answers for the types it offers in the region asked. A type the shipped catalog describes and
neither EC2 there nor the published figures do keeps its shipped entry (its source says so): a
refresh in a region without, say, Trainium must not make plan forget what a trn2 is."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sagelaunch import atomic
from sagelaunch.aws.ec2_instances import describe_instance_types
from sagelaunch.aws.session import Clients
from sagelaunch.catalog import facts, instance_catalog, sdk_data

Progress = Callable[[str], AbstractContextManager[object]]


@dataclass(frozen=True)
class Refreshed:
    path: Path
    region: str
    from_ec2: int
    total: int
    changes: list[str]
    kept: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        differ = (
            f"{len(self.changes)} differences from the shipped catalog"
            if self.changes
            else "the same figures as the shipped catalog"
        )
        kept = (
            f", {len(self.kept)} kept from the shipped catalog (EC2 does not offer them in "
            f"{self.region})"
            if self.kept
            else ""
        )
        published = self.total - self.from_ec2 - len(self.kept)
        return (
            f"wrote {self.path}: {self.from_ec2} types from EC2 in {self.region}, "
            f"{published} from AWS's published figures{kept}; {differ}"
        )


def refresh(aws: Clients, progress: Progress | None = None) -> Refreshed:
    """Ask EC2 in ``aws.region`` for every training type and write the refreshed catalog."""
    names = sdk_data.training_instance_types()
    asking = f"asking EC2 in {aws.region} for {len(names)} training instance types…"
    with (progress or (lambda _: nullcontext()))(asking):
        answers = describe_instance_types(names, clients=aws)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    shipped = facts.load("instances")
    content = build(names, answers, shipped, aws.region, when)
    path = facts.refreshed_catalog_file()
    atomic.write_text(path, instance_catalog.render(content))
    source = ec2_source(aws.region, when)
    return Refreshed(
        path,
        aws.region,
        from_ec2=sum(1 for e in content["instances"].values() if e["source"] == source),
        total=len(content["instances"]),
        changes=changes_from(shipped, content),
        kept=sorted(n for n, e in content["instances"].items() if e["source"].startswith(KEPT)),
    )


def ec2_source(region: str, when: str) -> str:
    """The source of an entry built from EC2's live answer."""
    return f"ec2 DescribeInstanceTypes {region} {when}"


KEPT = "the shipped catalog"  # the source of an entry kept from it starts so


def build(
    names: list[str],
    answers: dict[str, dict[str, Any]],
    shipped: dict[str, Any],
    region: str,
    when: str,
) -> dict[str, Any]:
    """The refreshed catalog: the shipped file's shape, built by the generator from EC2's
    answers (each entry's source names the call, region and time), AWS's published figures for
    the types EC2 did not describe, and the shipped entry for any type neither describes."""
    content = instance_catalog.generated_file(answers, f"asked in {region} at {when}")
    published = facts.load("instances_published")["instance_types"]
    body = instance_catalog.generate(names, answers, published, ec2_source(region, when))
    for name, entry in shipped["instances"].items():
        if name in names and name not in body["instances"]:
            body["instances"][name] = {**entry, "source": f"{KEPT} ({entry['source']})"}
            body["excluded"].pop(name, None)
    content.update(body)
    content["description"] = (
        "Written by `sagelaunch instances --refresh` from EC2's live DescribeInstanceTypes "
        "answers, AWS's published specifications and the accelerators' datasheets; read in "
        "place of the shipped data/instances.json. Delete it to go back to the shipped catalog."
    )
    return content


def changes_from(shipped: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """The types and figures where the refreshed catalog differs from the shipped one."""
    found = []
    for name, entry in fresh["instances"].items():
        before = shipped["instances"].get(name)
        if before is None:
            found.append(f"{name}: added ({entry['source']})")
            continue
        for key in sorted(set(entry) | set(before)):
            if key != "source" and entry.get(key) != before.get(key):
                found.append(f"{name}: {key} {_shown(before.get(key))} -> {_shown(entry.get(key))}")
    for name in shipped["instances"]:
        if name not in fresh["instances"]:
            found.append(f"{name}: no longer a training type")
    return found


def _shown(value: Any) -> str:
    return "(none)" if value is None else str(value)

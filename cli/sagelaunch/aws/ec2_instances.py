"""EC2's own instance data (``DescribeInstanceTypes``) for SageMaker's training types: the source
the instance catalog is generated from (catalog/instance_catalog.py), asked live by
`sagelaunch instances --refresh`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sagelaunch.aws.errors import translated
from sagelaunch.aws.session import Clients, clients

# DescribeInstanceTypes takes up to 100 instance types per request (EC2 API reference); the
# filter form is used so that a type EC2 does not offer in the region is absent, not an error
# (explicit InstanceTypes refuse the whole request with InvalidInstanceType).
CHUNK = 100


def describe_instance_types(
    names: Iterable[str], region: str | None = None, aws: Clients | None = None
) -> dict[str, dict[str, Any]]:
    """EC2's InstanceTypeInfo of each SageMaker type (``ml.p5.48xlarge`` -> ``p5.48xlarge``)
    that EC2 offers in the region, by EC2 name."""
    aws = aws or clients(region)
    return _describe(aws.client("ec2"), [name.removeprefix("ml.") for name in names])


@translated
def _describe(ec2: Any, ec2_names: list[str]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    paginator = ec2.get_paginator("describe_instance_types")
    for start in range(0, len(ec2_names), CHUNK):
        chunk = ec2_names[start : start + CHUNK]
        filters = [{"Name": "instance-type", "Values": chunk}]
        for page in paginator.paginate(Filters=filters):
            for info in page.get("InstanceTypes", []):
                found[info["InstanceType"]] = info
    return found

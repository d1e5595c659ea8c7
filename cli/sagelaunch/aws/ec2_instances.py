"""EC2's own instance data (``DescribeInstanceTypes``) for SageMaker's training types: the source
the instance catalog is generated from (catalog/instance_catalog.py), asked live by
`sagelaunch instances --refresh`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sagelaunch.aws import session
from sagelaunch.aws.errors import translated

# Names per request: DescribeInstanceTypes takes at most 100 InstanceTypes (EC2 API reference),
# and 100 values stay within the values EC2 takes per filter. The filter form is used, not
# InstanceTypes: with InstanceTypes, one type the region does not offer refuses the whole
# request (InvalidInstanceType, as moto does too); with the ``instance-type`` filter it is only
# absent from the answer. Each chunk's answer comes in pages (NextToken), read by the paginator.
CHUNK = 100


def describe_instance_types(
    names: Iterable[str], region: str | None = None, clients: session.Clients | None = None
) -> dict[str, dict[str, Any]]:
    """EC2's InstanceTypeInfo of each SageMaker type (``ml.p5.48xlarge`` -> ``p5.48xlarge``)
    that EC2 offers in the region, by EC2 name; a type it does not offer there is absent."""
    aws = clients or session.clients(region)
    ec2_names = list(dict.fromkeys(name.removeprefix("ml.") for name in names))
    return _describe(aws.client("ec2"), ec2_names)


@translated
def _describe(ec2: Any, ec2_names: list[str]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    paginator = ec2.get_paginator("describe_instance_types")
    for start in range(0, len(ec2_names), CHUNK):
        filters = [{"Name": "instance-type", "Values": ec2_names[start : start + CHUNK]}]
        for page in paginator.paginate(Filters=filters):
            for info in page.get("InstanceTypes", []):
                found[info["InstanceType"]] = info
    return found

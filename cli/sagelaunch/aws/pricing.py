"""The AWS Price List API (`pricing:GetProducts`, service code AmazonSageMaker): each instance
type's on-demand training products in a region, as the API answers them (PriceList: JSON
strings), for catalog/prices.py to read.

The API is served from us-east-1 (and eu-central-1, ap-south-1) for every region's prices; like
any botocore client it honours AWS_ENDPOINT_URL_PRICING (or the profile's `endpoint_url`).

The products are asked for by region and by usage type, ``<region prefix>-Train:<type>``
(CONTAINS ``Train:<type>``), the form AWS bills training under, rather than by the
`instanceType` attribute, whose value differs by use (``ml.g5.xlarge-Training`` for training);
the parser keeps only the on-demand training use of the region.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sagelaunch.aws.errors import translated

SERVICE_CODE = "AmazonSageMaker"
ENDPOINT_REGION = "us-east-1"
PAGE_SIZE = 100  # the API's largest page


def filters(instance_type: str, region: str) -> list[dict[str, str]]:
    """GetProducts filters for the training products of ``instance_type`` in ``region``."""
    return [
        {"Type": "TERM_MATCH", "Field": "regionCode", "Value": region},
        {"Type": "CONTAINS", "Field": "usagetype", "Value": f"Train:{instance_type}"},
    ]


def products(pricing: Any, instance_types: Iterable[str], region: str) -> dict[str, list[str]]:
    """{instance type: its PriceList entries in ``region``} (an empty list: the API lists none).
    Any failure is an `AwsError`; an endpoint that does not serve the API at all (a stand-in
    such as moto's) is `NotServed`, and says so."""
    from sagelaunch.aws.quotas import served_by

    with served_by(pricing, "the Price List API"):
        return {name: _products(pricing, name, region) for name in instance_types}


@translated
def _products(pricing: Any, instance_type: str, region: str) -> list[str]:
    found: list[str] = []
    pages = pricing.get_paginator("get_products").paginate(
        ServiceCode=SERVICE_CODE,
        Filters=filters(instance_type, region),
        FormatVersion="aws_v1",
        PaginationConfig={"PageSize": PAGE_SIZE},
    )
    for page in pages:
        found.extend(str(item) for item in page.get("PriceList", []))
    return found

"""Prices for plan and submit: the AWS Price List API asked, with credentials, for the types a
day-old (or absent) cached answer does not cover; advisory, like the quota pre-flight, so an
API that is unreachable, throttled or denied leaves the shipped snapshot in use, with one warning.
"""

from __future__ import annotations

from collections.abc import Iterable

from sagelaunch.catalog import prices
from sagelaunch.errors import SagelaunchError


def refresh_if_possible(instance_types: Iterable[str], region: str) -> str | None:
    """Ask the API for the types whose answer is not kept fresh; the warning to show when it
    could not answer (None: asked, nothing to ask, or no credentials to ask with)."""
    from sagelaunch.services.quota_check import credentials_configured

    missing = prices.missing(instance_types, region)
    if not missing or not credentials_configured():
        return None
    from sagelaunch.aws import pricing
    from sagelaunch.aws.session import clients

    try:
        client = clients(pricing.ENDPOINT_REGION).advisory("pricing")
        prices.store(region, pricing.products(client, missing, region))
    except SagelaunchError as exc:
        return (
            f"prices not asked of the AWS Price List API ({exc.message}); the shipped snapshot's "
            "are shown"
        )
    return None

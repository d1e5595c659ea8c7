"""On-demand training prices, read in the Price List API's own shape.

`pricing:GetProducts` (service code AmazonSageMaker) answers with `PriceList`: JSON strings, one
product each, whose `product.attributes.usagetype` names the use (``USE1-Train:ml.p5.48xlarge``:
training, in US East (N. Virginia)) and whose `terms.OnDemand` hold the USD per hour with its
effective date. `parse` reads them; the same code reads

- answers `plan` fetched with AWS credentials (aws/pricing.py), kept a day under the cache folder
  (``prices/<region>.json``: the answer and when it came), and
- the shipped snapshot (data/prices.json), written in the same shape, each entry with the source
  and date of its figure.

A type neither holds has no price (None), and `unknown_reason` says why; nothing is guessed.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sagelaunch.catalog import facts

CACHE_KIND = "prices"
FRESH_S = 86400  # an API answer is used for a day, then asked again
# ``USE1-Train:ml.p5.48xlarge``: a region's prefix, the training use, the instance type (spot and
# other uses, e.g. ``USE1-Spot-Train:``, ``USE1-Host:``, are not on-demand training).
_TRAINING_USE = re.compile(r"^[A-Z0-9]+-Train:(ml\.[a-z0-9-]+\.[a-z0-9-]+)$")


@dataclass(frozen=True)
class Price:
    """One type's on-demand training price in one region, and where it comes from."""

    usd_per_hour: float
    region: str
    source: str  # "AWS Price List API" or the snapshot entry's source
    as_of: str  # the price's effective date (YYYY-MM-DD)
    fetched_s: float | None = None  # when the API answered (None: the shipped snapshot)

    def describe(self, now: float | None = None) -> str:
        """Source and date, as plan shows them."""
        if self.fetched_s is None:
            return f"{self.source}, as of {self.as_of}"
        hours = max(0.0, ((now or time.time()) - self.fetched_s) / 3600)
        age = f"{hours * 60:.0f} min" if hours < 1 else f"{hours:.0f} h"
        return f"{self.source}, effective {self.as_of}, asked {age} ago"


def parse(price_list: Iterable[str | dict[str, Any]], region: str) -> dict[str, tuple[float, str]]:
    """{instance type: (USD per hour, effective date)} of the on-demand training products of
    ``region`` in a GetProducts `PriceList` (JSON strings, or their parsed form)."""
    found: dict[str, tuple[float, str]] = {}
    for item in price_list:
        product = json.loads(item) if isinstance(item, str) else item
        attributes = product.get("product", {}).get("attributes", {})
        use = _TRAINING_USE.match(str(attributes.get("usagetype", "")))
        if use is None or attributes.get("regionCode", region) != region:
            continue
        for term in product.get("terms", {}).get("OnDemand", {}).values():
            for dimension in term.get("priceDimensions", {}).values():
                usd = dimension.get("pricePerUnit", {}).get("USD")
                if usd is not None and dimension.get("unit", "Hrs").lower().startswith("hr"):
                    found[use[1]] = (float(usd), str(term.get("effectiveDate", ""))[:10])
    return found


def snapshot(region: str) -> dict[str, Price]:
    """The shipped snapshot's prices for ``region`` (data/prices.json)."""
    found: dict[str, Price] = {}
    for entry in facts.load("prices")["snapshot"]:
        parsed = parse([entry["product"]], region)
        for instance_type, (usd, effective) in parsed.items():
            found[instance_type] = Price(usd, region, entry["source"], entry["as_of"] or effective)
    return found


def cache_file(region: str) -> Path:
    from sagelaunch import caches

    return caches.folder(CACHE_KIND) / f"{region}.json"


def cached(region: str, now: float | None = None) -> dict[str, Any] | None:
    """The API's answers kept for ``region`` ({"fetched_s", "types": {type: PriceList}}) while
    fresh; None when there are none, they are a day old, or the file is not one of ours."""
    try:
        content = json.loads(cache_file(region).read_text(encoding="utf-8"))
        fetched = float(content["fetched_s"])
        types = dict(content["types"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if (now or time.time()) - fetched > FRESH_S:
        return None
    return {"fetched_s": fetched, "types": types}


def store(region: str, answers: dict[str, list[str]], now: float | None = None) -> None:
    """Keep the API's answers for ``region`` (merged over the fresh ones already kept)."""
    from sagelaunch import atomic

    kept = cached(region, now) or {"types": {}}
    content = {"fetched_s": now or time.time(), "types": {**kept["types"], **answers}}
    atomic.write_text(cache_file(region), json.dumps(content))


def missing(instance_types: Iterable[str], region: str) -> list[str]:
    """The types whose API answer is not kept fresh for ``region`` (what plan would ask)."""
    kept = (cached(region) or {}).get("types", {})
    return sorted({t for t in instance_types if t not in kept})


def price(instance_type: str, region: str | None) -> Price | None:
    """The price of ``instance_type`` in ``region``: a fresh API answer, else the snapshot."""
    region = region or facts.load("prices")["default_region"]
    kept = cached(region)
    if kept is not None and instance_type in kept["types"]:  # the API's word is the last
        parsed = parse(kept["types"][instance_type], region)
        if instance_type not in parsed:
            return None
        usd, effective = parsed[instance_type]
        return Price(usd, region, "AWS Price List API", effective, kept["fetched_s"])
    return snapshot(region).get(instance_type)


def hourly_price(instance_type: str, region: str | None = None) -> float | None:
    """USD per hour of ``instance_type`` in ``region``; None when no price is known."""
    found = price(instance_type, region)
    return found.usd_per_hour if found else None


def unknown_reason(instance_type: str, region: str | None) -> str:
    """Why ``instance_type`` has no price: said, never a guessed number."""
    region = region or facts.load("prices")["default_region"]
    kept = cached(region)
    if kept is not None and instance_type in kept["types"]:
        return (
            f"the AWS Price List API lists no on-demand training price for {instance_type} in "
            f"{region}"
        )
    return (
        f"no public price for {instance_type} in {region} in sagelaunch's snapshot; with AWS "
        "credentials plan asks the AWS Price List API"
    )

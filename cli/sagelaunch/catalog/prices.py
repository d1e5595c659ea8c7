"""On-demand training prices, read in the AWS Price List API's own shape.

`pricing:GetProducts` (service code AmazonSageMaker) answers with `PriceList`: JSON strings, one
product each. A training product's `product.attributes.usagetype` names its use and region
(``USE1-Train:ml.p5.48xlarge``: on-demand training in US East (N. Virginia); AWS documents the
form as ``REGION-Train:instanceType``), its `regionCode` the region, and its `terms.OnDemand`
hold the USD per hour with the date it took effect. `parse` reads them; the same code reads

- the API's answers `plan` asked for with AWS credentials (aws/pricing.py, services/prices.py),
  kept a day under the cache folder, one file per region and instance type
  (``prices/<region>/<type>.json``: the answer and when it came), and
- the shipped snapshot (data/prices.json): entries written in the same shape from a public
  figure, each with the source (a URL) and date of that figure.

Lookup: a fresh API answer for the type and region, else the snapshot's entry for them, else no
price (None), and `unknown_reason` says why. Nothing is guessed, and a price of one region is
never another region's.
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
API_SOURCE = "AWS Price List API"
# ``USE1-Train:ml.p5.48xlarge``: the region's prefix, the on-demand training use, the instance
# type. Other uses of the same type (``USE1-Spot-Train:``, ``USE1-Host:``, warm pools, notebooks)
# are not an on-demand training price.
_TRAINING_USE = re.compile(r"^(?:[A-Z0-9]+-)?Train:(ml\.[a-z0-9-]+\.[a-z0-9]+)$")


@dataclass(frozen=True)
class Price:
    """One type's on-demand training price in one region, and where it comes from."""

    usd_per_hour: float
    region: str
    source: str  # API_SOURCE, or the snapshot entry's source with its URL
    as_of: str  # the figure's date (YYYY-MM-DD): the API's effective date, the source's date
    fetched_s: float | None = None  # when the API answered (None: the shipped snapshot)

    @property
    def from_api(self) -> bool:
        return self.fetched_s is not None

    def age(self, now: float | None = None) -> str:
        """How long ago the API answered: "12 min", "5 h"."""
        seconds = max(0.0, (time.time() if now is None else now) - (self.fetched_s or 0.0))
        return f"{seconds / 60:.0f} min" if seconds < 3600 else f"{seconds / 3600:.0f} h"

    def describe(self, now: float | None = None) -> str:
        """Source and date, as plan shows them."""
        if self.from_api:
            return f"{self.source}, effective {self.as_of}, asked {self.age(now)} ago"
        return f"sagelaunch's snapshot, as of {self.as_of}: {self.source}"


def parse(price_list: Iterable[str | dict[str, Any]], region: str) -> dict[str, tuple[float, str]]:
    """{instance type: (USD per hour, effective date)} of the on-demand training products of
    ``region`` in a GetProducts `PriceList` (JSON strings, or their parsed form). Entries that
    are not products, other uses, other regions and zero placeholders are left out; of several
    terms for one type the latest effective one counts."""
    found: dict[str, tuple[float, str]] = {}
    for item in price_list:
        product = _product(item)
        attributes = product.get("product", {}).get("attributes", {})
        use = _TRAINING_USE.match(str(attributes.get("usagetype", "")))
        if use is None or attributes.get("regionCode", region) != region:
            continue
        for term in (product.get("terms", {}).get("OnDemand") or {}).values():
            effective = str(term.get("effectiveDate", ""))[:10]
            for dimension in (term.get("priceDimensions") or {}).values():
                usd = _usd(dimension)
                if usd is None or not str(dimension.get("unit", "Hrs")).lower().startswith("hr"):
                    continue
                if use[1] not in found or effective >= found[use[1]][1]:
                    found[use[1]] = (usd, effective)
    return found


def _product(item: str | dict[str, Any]) -> dict[str, Any]:
    try:
        product = json.loads(item) if isinstance(item, str) else item
    except ValueError:
        return {}
    return product if isinstance(product, dict) else {}


def _usd(dimension: dict[str, Any]) -> float | None:
    try:
        usd = float(dimension.get("pricePerUnit", {}).get("USD"))
    except (TypeError, ValueError):
        return None
    return usd if usd > 0 else None  # a $0 row is a placeholder (free tier), not a price


def snapshot_entries() -> list[dict[str, Any]]:
    """The shipped snapshot's entries (data/prices.json): source, detail, url, as_of, product."""
    return list(facts.load("prices")["snapshot"])


def snapshot(region: str) -> dict[str, Price]:
    """The shipped snapshot's prices for ``region``."""
    found: dict[str, Price] = {}
    for entry in snapshot_entries():
        for instance_type, (usd, effective) in parse([entry["product"]], region).items():
            source = f"{entry['source']} <{entry['url']}>"
            found[instance_type] = Price(usd, region, source, entry.get("as_of") or effective)
    return found


def default_region() -> str:
    return str(facts.load("prices")["default_region"])


def cache_file(instance_type: str, region: str) -> Path:
    from sagelaunch import caches

    return caches.folder(CACHE_KIND) / region / f"{instance_type}.json"


def cached(instance_type: str, region: str, now: float | None = None) -> dict[str, Any] | None:
    """The API's answer kept for the type in ``region`` ({"fetched_s", "price_list"}) while
    it is fresh (a day); None when there is none, it is older, or the file is not one of ours."""
    try:
        content = json.loads(cache_file(instance_type, region).read_text(encoding="utf-8"))
        fetched = float(content["fetched_s"])
        price_list = list(content["price_list"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not 0 <= (time.time() if now is None else now) - fetched <= FRESH_S:
        return None
    return {"fetched_s": fetched, "price_list": price_list}


def store(region: str, answers: dict[str, list[str]], now: float | None = None) -> None:
    """Keep the API's answer for each type in ``region``, each stamped with when it came."""
    from sagelaunch import atomic

    fetched = time.time() if now is None else now
    for instance_type, price_list in answers.items():
        content = {"fetched_s": fetched, "region": region, "price_list": price_list}
        atomic.write_text(cache_file(instance_type, region), json.dumps(content))


def missing(instance_types: Iterable[str], region: str) -> list[str]:
    """The types whose API answer is not kept fresh for ``region`` (what plan would ask)."""
    return sorted({t for t in instance_types if t and cached(t, region) is None})


def price(instance_type: str, region: str | None) -> Price | None:
    """The price of ``instance_type`` in ``region``: a fresh API answer, else the snapshot."""
    if not instance_type:
        return None
    region = region or default_region()
    kept = cached(instance_type, region)
    if kept is not None:  # the API's word is the last: a type it lists no price for has none
        parsed = parse(kept["price_list"], region).get(instance_type)
        if parsed is None:
            return None
        return Price(parsed[0], region, API_SOURCE, parsed[1], kept["fetched_s"])
    return snapshot(region).get(instance_type)


def hourly_price(instance_type: str, region: str | None = None) -> float | None:
    """USD per hour of ``instance_type`` in ``region``; None when no price is known."""
    found = price(instance_type, region)
    return found.usd_per_hour if found else None


def unknown_reason(instance_type: str, region: str | None) -> str:
    """Why ``instance_type`` has no price in ``region``: said, never a guessed number."""
    return unknown_reasons([instance_type], region)


def unknown_reasons(instance_types: Iterable[str], region: str | None) -> str:
    """Why the types have no price in ``region``, one clause per reason (the API answered
    without one; no public price in the snapshot)."""
    region = region or default_region()
    asked: list[tuple[str, float]] = []
    unasked: list[str] = []
    for instance_type in dict.fromkeys(instance_types):
        kept = cached(instance_type, region)
        if kept is not None:
            asked.append((instance_type, kept["fetched_s"]))
        else:
            unasked.append(instance_type)
    clauses = []
    if asked:
        age = Price(0, region, API_SOURCE, "", max(f for _, f in asked)).age()
        clauses.append(
            f"the AWS Price List API lists no on-demand training price for "
            f"{', '.join(t for t, _ in asked)} in {region} (asked {age} ago)"
        )
    if unasked:
        clauses.append(
            f"no public price for {', '.join(unasked)} in {region} in sagelaunch's snapshot; "
            "with AWS credentials, plan asks the AWS Price List API"
        )
    return "; ".join(clauses)

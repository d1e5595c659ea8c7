"""Saved plans (`plan --out plan.json`): the reviewed request plus its code bundle beside it.

Terraform's plan/apply pattern: review the file in a pull request, `submit plan.json` on merge.
The bundle's sha256 is recorded, so a bundle that changed after review is refused.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from sagelaunch.errors import UsageError

FORMAT = "sagelaunch-plan/1"


def bundle_path_for(plan_path: Path) -> Path:
    return plan_path.with_name(plan_path.stem + ".sourcedir.tar.gz")


def save(plan_path: Path, plan: dict[str, Any], bundle_data: bytes | None) -> None:
    document = {"format": FORMAT, **plan}
    if bundle_data is not None:
        bundle_path = bundle_path_for(plan_path)
        bundle_path.write_bytes(bundle_data)
        document["bundle_path"] = bundle_path.name
    plan_path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def load(plan_path: Path) -> tuple[dict[str, Any], bytes | None]:
    """A saved plan and its bundle bytes, verified against the recorded sha256."""
    try:
        document = json.loads(plan_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"{plan_path}: not a readable plan file: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise UsageError(f"{plan_path}: not a sagelaunch plan (expected format {FORMAT})")
    if "bundle_path" not in document:
        return document, None
    bundle_path = plan_path.parent / document["bundle_path"]
    try:
        data = bundle_path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{plan_path}: its bundle {bundle_path} is missing: {exc}") from None
    if hashlib.sha256(data).hexdigest() != document["upload"]["sha256"]:
        raise UsageError(
            f"{bundle_path} changed after the plan was made (sha256 mismatch)",
            hint="make a new plan: sagelaunch plan CONFIG --out " + plan_path.name,
        )
    return document, data

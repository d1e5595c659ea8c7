"""Every CreateTrainingJob field is set by a launch-config key or listed, with the reason, as one
the SDK v2 estimator cannot set (checks/request_fields.py) — walked from botocore's own model."""

from __future__ import annotations

import json

import botocore.session

from sagelaunch.checks.request_fields import NOT_SETTABLE, SET_BY, WALKED
from tests.golden.regenerate import GOLDEN


def _walked_fields() -> set[str]:
    model = botocore.session.get_session().get_service_model("sagemaker")
    request = model.operation_model("CreateTrainingJob").input_shape
    fields = set(request.members)
    for structure in WALKED:
        fields |= {f"{structure}.{m}" for m in model.shape_for(structure).members}
    return fields


def test_every_request_field_is_set_by_a_key_or_listed_once_with_a_reason():
    fields = _walked_fields()
    assert not set(SET_BY) & set(NOT_SETTABLE), "a field is listed in both tables"
    missing = sorted(fields - set(SET_BY) - set(NOT_SETTABLE))
    assert not missing, f"new CreateTrainingJob fields with no config key or reason: {missing}"
    assert not (set(SET_BY) | set(NOT_SETTABLE)) - fields, "fields botocore no longer has"
    assert all(reason.strip() for reason in NOT_SETTABLE.values())


def _fields_in(request: dict) -> set[str]:
    found = set(request)
    for structure in ("ResourceConfig", "CheckpointConfig", "OutputDataConfig"):
        found |= {f"{structure}.{m}" for m in request.get(structure, {})}
    for channel in request.get("InputDataConfig", []):
        found |= {f"Channel.{m}" for m in channel}
    return found


def test_every_field_a_key_sets_appears_in_a_planned_request(everything_plan, preferred_plan):
    """The table's claims are real: each field shows up in a golden request or in the plan of
    a config that sets every key (tests/config/conftest.py; the keys the API makes exclusive of
    those in the second)."""
    seen = _fields_in(everything_plan["request"]) | _fields_in(preferred_plan["request"])
    for golden in GOLDEN.glob("*.json"):
        seen |= _fields_in(json.loads(golden.read_text())["request"])
    assert sorted(set(SET_BY) - seen) == []

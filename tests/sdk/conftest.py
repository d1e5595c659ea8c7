"""The SDK oracles as fixtures (tests/sdk/oracles.py), with the SDK's telemetry muted: a
hand-written estimator would otherwise send its usage GET on every fit()."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sagemaker.telemetry.telemetry_logging as telemetry

from tests.sdk.oracles import fitted, tuned


@pytest.fixture
def no_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(telemetry, "_send_telemetry_request", lambda *a, **k: None)


@pytest.fixture
def sdk_request(no_telemetry: None) -> Callable[..., dict]:
    """What a hand-written `estimator.fit()` sends (oracles.fitted)."""
    return fitted


@pytest.fixture
def sdk_tuning_request(no_telemetry: None) -> Callable[..., dict]:
    """What a hand-written `tuner.fit()` sends (oracles.tuned)."""
    return tuned

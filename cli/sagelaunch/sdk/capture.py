"""Build the estimator from its spec and capture the CreateTrainingJob request, offline.

A Session subclass intercepts the request at the SDK's own hook (`_intercept_create_request`, the
one PipelineSession uses), so the dict is exactly what `create_training_job(**request)` would get;
botocore's service model then validates it as the client would. No credentials, no network.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from typing import Any

from sagelaunch.aws.session import offline_session, validate_request
from sagelaunch.errors import SagelaunchError
from sagelaunch.sdk.estimator import EstimatorSpec
from sagelaunch.sdk.objects import materialize
from sagelaunch.sdk.runtime import offline, sagemaker


class SdkRejected(SagelaunchError):
    """The SDK's own validation refused the estimator (a rule sagelaunch does not have yet)."""


def _capture_session_class() -> type:
    sdk = sagemaker()

    class CaptureSession(sdk.session.Session):  # type: ignore[name-defined,misc]
        captured: dict[str, Any] | None = None

        def _intercept_create_request(self, request, create, func_name=None):
            self.captured = request

    return CaptureSession


def _parsed_models() -> Any:
    """The botocore loader of the session the SDK makes when it is imported (JumpStart's
    default), which has parsed SageMaker's service models (~0.1 s for its largest) and the
    endpoint data already: our session reads them from its cache instead of parsing them again.
    None when this SDK has no such session (then botocore parses as usual)."""
    sagemaker()
    constants = sys.modules.get("sagemaker.jumpstart.constants")
    default = getattr(constants, "DEFAULT_JUMPSTART_SAGEMAKER_SESSION", None)
    try:
        return default.boto_session._session.get_component("data_loader")  # type: ignore[union-attr]
    except AttributeError:
        return None


def capture_session(region: str) -> Any:
    """A session that keeps the request it would send (``.captured``) instead of sending it."""
    boto_session = offline_session(region, models=_parsed_models())
    return _capture_session_class()(boto_session=boto_session)


def build_estimator(spec: EstimatorSpec, session: Any) -> Any:
    sdk = sagemaker()
    classes = {
        "sagemaker.pytorch.PyTorch": sdk.pytorch.PyTorch,
        "sagemaker.xgboost.XGBoost": sdk.xgboost.XGBoost,
        "sagemaker.tensorflow.TensorFlow": sdk.tensorflow.TensorFlow,
        "sagemaker.huggingface.HuggingFace": sdk.huggingface.HuggingFace,
        "sagemaker.estimator.Estimator": sdk.estimator.Estimator,
    }
    # A deep copy: the SDK adds its sagemaker_* keys into the hyperparameters dict it is given,
    # and the spec must stay what a user would pass.
    # Materialized per estimator: SDK objects (instance groups, rules) are described as data.
    kwargs = materialize(copy.deepcopy(spec.kwargs))
    estimator = classes[spec.cls](sagemaker_session=session, **kwargs)
    if spec.builtin_hyperparameters is not None:
        estimator.set_hyperparameters(**spec.builtin_hyperparameters)
    return estimator


def fit_inputs(spec: EstimatorSpec) -> dict[str, Any]:
    inputs = sagemaker().inputs
    return {
        name: getattr(inputs, channel.kind)(**materialize(channel.kwargs))
        for name, channel in spec.inputs.items()
    }


# What the service documents beyond the SDK, laid over its request (plan/service_fields.py).
Overlay = Callable[[dict[str, Any]], dict[str, Any]]


def capture_request(
    spec: EstimatorSpec, region: str, job_name: str, overlay: Overlay | None = None
) -> dict[str, Any]:
    """The CreateTrainingJob parameters the SDK would send for ``spec`` (with ``overlay``'s
    members, validated with it)."""

    def fit(session: Any) -> None:
        estimator = build_estimator(spec, session)
        estimator.fit(
            fit_inputs(spec) or None,
            wait=False,
            logs=False,
            job_name=job_name,
            **copy.deepcopy(spec.fit_kwargs),
        )

    return capture(fit, region, overlay=overlay)


def capture(
    create: Callable[[Any], object],
    region: str,
    operation: str = "CreateTrainingJob",
    overlay: Overlay | None = None,
) -> dict[str, Any]:
    """The CreateTrainingJob request that ``create(session)`` makes through the SDK, captured
    offline (``overlay`` laid over it) and validated against botocore's model. Planning passes
    its estimator; tests pass an exported script's ``main``."""
    session = capture_session(region)
    try:
        with offline():
            create(session)
    except (ValueError, TypeError, RuntimeError) as exc:
        # The SDK's own checks (versions, distribution, images): the config cannot be sent.
        raise SdkRejected(f"the SageMaker SDK rejects this job: {exc}") from None
    if session.captured is None:  # pragma: no cover - the SDK changed its request path
        raise SagelaunchError("the SageMaker SDK did not build a CreateTrainingJob request")
    request = overlay(session.captured) if overlay else session.captured
    validate_request(operation, request, model=session.sagemaker_client.meta.service_model)
    return request

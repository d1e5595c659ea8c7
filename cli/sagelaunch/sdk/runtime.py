"""Import the SageMaker SDK without its side effects on our process and output.

`import sagemaker` prints INFO lines to stdout, warns about v3, and sagemaker_core replaces
sys.excepthook; `fit()` sends telemetry (an STS call plus an HTTPS GET). We keep our output, our
error boundary and the network to ourselves, and collect the SDK's warnings for the plan instead.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from types import ModuleType


class WarningCollector(logging.Handler):
    """Keeps the SDK's warnings so that `plan` can show them among its own."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "SAGEMAKER_SUPPRESS_V2_WARNING" not in message:  # the v2 -> v3 nudge, not about the job
            self.messages.append(message)


SDK_WARNINGS = WarningCollector()


@cache
def sagemaker() -> ModuleType:
    """The `sagemaker` package, imported once, quietly."""
    logger = logging.getLogger("sagemaker")
    logger.addHandler(SDK_WARNINGS)  # before import: the SDK adds a stdout handler only if none
    logger.propagate = False
    logger.setLevel(logging.WARNING)
    excepthook = sys.excepthook
    root = logging.getLogger()
    root_handlers, root_level = list(root.handlers), root.level
    with offline(), _trimmed_service_models():
        import sagemaker as sdk
        import sagemaker.estimator
        import sagemaker.huggingface
        import sagemaker.inputs
        import sagemaker.parameter
        import sagemaker.pytorch
        import sagemaker.telemetry.telemetry_logging
        import sagemaker.tensorflow
        import sagemaker.tuner
        import sagemaker.xgboost

    # sagemaker_core replaces the excepthook and sagemaker.experiments calls basicConfig(INFO),
    # which would make botocore chatter on our stderr: put both back.
    sys.excepthook = excepthook
    root.handlers[:], root.level = root_handlers, root_level
    _endpoint_table_read_once(sdk)
    return sdk


def _endpoint_table_read_once(sdk: ModuleType) -> None:
    """The SDK parses botocore's endpoints.json (~90 ms) each time it resolves an image's or
    STS's host name: twice per estimator, in a sweep or an import hundreds of times. The file
    does not change while we run, so one resolver serves every call (sagemaker() runs once per
    process). Only a speed-up: an SDK without this helper resolves as it always did."""
    resolver = getattr(sdk.utils, "_botocore_resolver", None)
    if callable(resolver):
        sdk.utils._botocore_resolver = cache(resolver)


@contextmanager
def offline() -> Iterator[None]:
    """Around the SDK's import and estimator building: no v2-to-v3 FutureWarnings, and no probe
    of the EC2 metadata endpoint. `import sagemaker` builds a JumpStart session and every
    estimator a `boto3.client` (for TensorBoard); off EC2 without credentials each would spend
    seconds timing out on 169.254.169.254 before giving up."""
    with warnings.catch_warnings(), _no_instance_metadata(), _no_telemetry(), _root_logging():
        warnings.simplefilter("ignore", FutureWarning)
        yield


@contextmanager
def _root_logging() -> Iterator[None]:
    """Modules the SDK imports late (sagemaker.experiments, on the tuner's path) call
    `logging.basicConfig(INFO)`: botocore's INFO lines must not reach our stderr."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        root.handlers[:], root.level = handlers, level


@contextmanager
def _trimmed_service_models() -> Iterator[None]:
    """`import sagemaker` builds JumpStart's default session: a dozen botocore clients, each parsing
    its service model, SageMaker's alone megabytes of JSON (~0.3 s). With the trimmed models
    (`aws.models`: the operations sagelaunch calls, their shapes equal to botocore's) first on
    $AWS_DATA_PATH for the import, those parse in milliseconds. The capture reuses that session's
    loader, so requests are still validated against botocore's CreateTrainingJob shape. Only the
    import sees the variable: sessions made later (local mode's) get botocore's full models."""
    from sagelaunch.aws.models import trimmed_models_path

    trimmed, previous = trimmed_models_path(), os.environ.get("AWS_DATA_PATH")
    if trimmed is not None:
        os.environ["AWS_DATA_PATH"] = os.pathsep.join(p for p in (trimmed, previous) if p)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("AWS_DATA_PATH", None)
        else:
            os.environ["AWS_DATA_PATH"] = previous


@contextmanager
def _no_instance_metadata() -> Iterator[None]:
    previous = os.environ.get("AWS_EC2_METADATA_DISABLED")
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["AWS_EC2_METADATA_DISABLED"]
        else:
            os.environ["AWS_EC2_METADATA_DISABLED"] = previous


@contextmanager
def _no_telemetry() -> Iterator[None]:
    """Planning is offline: `fit()` must make no STS call and no telemetry GET. Patched for the
    duration of each call (not once), so that nobody else's restore can bring it back."""
    telemetry = sys.modules.get("sagemaker.telemetry.telemetry_logging")
    if telemetry is None:
        yield
        return
    original = getattr(telemetry, "_send_telemetry_request")  # noqa: B009 - private SDK hook
    setattr(telemetry, "_send_telemetry_request", _skip)  # noqa: B010
    try:
        yield
    finally:
        setattr(telemetry, "_send_telemetry_request", original)  # noqa: B010


def _skip(*args: object, **kwargs: object) -> None:
    return None

"""boto3 sessions and botocore's service model, from one place."""

from __future__ import annotations

from typing import Any

import boto3
import botocore.session
from botocore.exceptions import ParamValidationError
from botocore.validate import validate_parameters

from sagelaunch.errors import SagelaunchError

# Credentials that cannot reach AWS: an offline session never looks for real ones (no IMDS, no
# profile), so planning works on a laptop without credentials and never talks to the network.
_OFFLINE_KEYS = {"aws_access_key_id": "offline", "aws_secret_access_key": "offline"}


def offline_session(region: str) -> boto3.Session:
    """A boto3 session for building requests offline: the SDK needs one, AWS never sees it."""
    return boto3.Session(region_name=region, **_OFFLINE_KEYS)


def default_region() -> str | None:
    """The region boto3 would use: $AWS_REGION / $AWS_DEFAULT_REGION, then the profile's."""
    return botocore.session.Session().get_config_variable("region")


def validate_request(operation: str, params: dict[str, Any], service: str = "sagemaker") -> None:
    """Check a request against botocore's service model, as the client would before sending."""
    model = botocore.session.Session().get_service_model(service)
    try:
        validate_parameters(params, model.operation_model(operation).input_shape)
    except ParamValidationError as exc:
        raise SagelaunchError(
            f"the {operation} request does not match the AWS API: {exc}",
            hint="this is a sagelaunch bug if the config validated; please report it",
        ) from None

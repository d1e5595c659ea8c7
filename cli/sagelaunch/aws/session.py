"""boto3 sessions, clients (retries, timeouts) and botocore's service model, from one place."""

from __future__ import annotations

import os
from typing import Any

import boto3
import botocore.session
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ParamValidationError
from botocore.validate import validate_parameters

from sagelaunch.errors import SagelaunchError, UsageError

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


# Adaptive mode: botocore's standard retries (throttling, 5xx, timeouts, connection errors) plus a
# client-side rate limiter that backs off when AWS throttles. Bounded, so "throttled" ends in exit
# 3 rather than a hang. boto3's own AWS_MAX_ATTEMPTS / AWS_RETRY_MODE still win, as users expect.
DEFAULT_MAX_ATTEMPTS = 8
CONNECT_TIMEOUT_S = 10
READ_TIMEOUT_S = 60


def client_config() -> Config:
    """Retries and timeouts for every client sagelaunch creates."""
    return Config(
        retries={
            "mode": os.environ.get("AWS_RETRY_MODE") or "adaptive",  # type: ignore[typeddict-item]
            "max_attempts": int(os.environ.get("AWS_MAX_ATTEMPTS") or DEFAULT_MAX_ATTEMPTS),
        },
        connect_timeout=CONNECT_TIMEOUT_S,
        read_timeout=READ_TIMEOUT_S,
        user_agent_extra="sagelaunch",
    )


class Clients:
    """The AWS clients of one command, created on first use from one session.

    Commands take a `Clients` and hand its clients to the `aws` functions, so a test can pass in
    clients of its own (e.g. one wrapped in botocore's Stubber) through the same door.
    """

    def __init__(self, session: boto3.Session | None = None, **prebuilt: Any) -> None:
        self._session = session
        self._clients: dict[str, Any] = dict(prebuilt)

    @property
    def region(self) -> str:
        if self._session is not None:
            return str(self._session.region_name)
        return str(next(iter(self._clients.values())).meta.region_name)

    def client(self, service: str) -> Any:
        if service not in self._clients:
            if self._session is None:
                raise SagelaunchError(f"no {service} client was given and no session to make one")
            self._clients[service] = self._session.client(service, config=client_config())
        return self._clients[service]

    @property
    def sagemaker(self) -> Any:
        return self.client("sagemaker")

    @property
    def s3(self) -> Any:
        return self.client("s3")

    @property
    def logs(self) -> Any:
        return self.client("logs")


def clients(region: str | None, profile: str | None = None) -> Clients:
    """Clients for ``region`` with the usual credential chain (``profile`` or $AWS_PROFILE, env,
    SSO, instance roles); $AWS_ENDPOINT_URL and $AWS_ENDPOINT_URL_<SERVICE> are honoured by boto3."""
    from sagelaunch.aws.errors import translate

    try:
        session = boto3.Session(region_name=region, profile_name=profile)
    except BotoCoreError as exc:  # e.g. ProfileNotFound
        raise translate(exc) from None
    if not session.region_name:
        raise UsageError(
            "no AWS region", hint="pass --region, or export AWS_REGION, or set it in the profile"
        )
    return Clients(session)

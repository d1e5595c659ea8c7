"""botocore's exceptions as `AwsError`: one line saying what went wrong, and a hint to fix it.

The `aws` functions are wrapped with `@translated`, so nothing botocore-shaped reaches the
commands and the app's error boundary prints a clean message with exit code 3.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    CredentialRetrievalError,
    HTTPClientError,
    NoCredentialsError,
    NoRegionError,
    PartialCredentialsError,
    ProfileNotFound,
    TokenRetrievalError,
)
from botocore.exceptions import ConnectionError as BotoConnectionError

from sagelaunch.errors import AwsError, QuotaExceeded

P = ParamSpec("P")
R = TypeVar("R")

EXPIRED = {"ExpiredToken", "ExpiredTokenException", "RequestExpired", "TokenRefreshRequired"}
DENIED = {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "403", "Forbidden"}
BAD_CREDENTIALS = {
    "UnrecognizedClientException",
    "InvalidClientTokenId",
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "InvalidSignatureException",
}
THROTTLED = {
    "ThrottlingException",
    "Throttling",
    "ThrottledException",
    "RequestThrottled",
    "RequestThrottledException",
    "RequestLimitExceeded",
    "TooManyRequestsException",
    "SlowDown",
    "ServiceUnavailable",
    "InternalFailure",
    "InternalError",
    "500",
    "502",
    "503",
    "504",
}
CREDENTIALS_HINT = (
    "configure credentials: `aws configure`, `aws sso login --profile P` + AWS_PROFILE=P, "
    "or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"
)


def translated(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` with botocore's exceptions turned into `AwsError`."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except (BotoCoreError, ClientError) as exc:
            raise translate(exc) from None

    return wrapper


def translate(exc: BaseException) -> AwsError:
    """The `AwsError` (message + hint) for one botocore exception."""
    if isinstance(exc, ClientError):
        return _client_error(exc)
    if isinstance(exc, (NoCredentialsError, PartialCredentialsError)):
        return AwsError("no AWS credentials found", hint=CREDENTIALS_HINT)
    if isinstance(exc, (CredentialRetrievalError, TokenRetrievalError)):
        return AwsError(f"could not get AWS credentials: {_line(exc)}", hint=CREDENTIALS_HINT)
    if isinstance(exc, ProfileNotFound):
        return _no_such_profile(str(getattr(exc, "kwargs", {}).get("profile", "")))
    if isinstance(exc, NoRegionError):
        return AwsError("no AWS region", hint="pass --region or export AWS_REGION")
    if isinstance(exc, (BotoConnectionError, HTTPClientError)):
        endpoint = getattr(exc, "kwargs", {}).get("endpoint_url", "")
        return AwsError(
            f"cannot reach AWS{' at ' + endpoint if endpoint else ''}: {_line(exc)}",
            hint="check the network, proxy settings and AWS_ENDPOINT_URL",
        )
    return AwsError(f"AWS call failed: {_line(exc)}")


def _no_such_profile(profile: str) -> AwsError:
    """The profile botocore was asked for is in neither AWS config file: where the name came
    from, and the two ways out."""
    variable = next(
        (v for v in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE") if os.environ.get(v) == profile), None
    )
    files = " or ".join(
        os.environ.get(variable) or default
        for variable, default in (
            ("AWS_CONFIG_FILE", "~/.aws/config"),
            ("AWS_SHARED_CREDENTIALS_FILE", "~/.aws/credentials"),
        )
    )
    origin = f" (from ${variable})" if variable else ""
    unset = f", or unset {variable}" if variable else ""
    return AwsError(
        f"AWS profile {profile!r}{origin} is not in {files}",
        hint=f"create it: `aws configure --profile {profile}` (or `aws configure sso`){unset}; "
        "`aws configure list-profiles` lists the profiles there are",
    )


def credential_source() -> tuple[str, str]:
    """Where botocore's chain finds the credentials now (" from ..."), and how to fix them
    there: asked only once AWS has refused them, never on the way to a call."""
    import botocore.session

    try:
        session = botocore.session.Session()
        found = session.get_credentials()
        method, profile = (found.method if found else ""), session.profile or "default"
    except BotoCoreError:
        method, profile = "", ""
    if method == "env":
        return (
            " from the environment (AWS_ACCESS_KEY_ID)",
            "the key in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) is "
            "wrong or deleted: export the right ones, or unset them to use a profile",
        )
    if method in ("shared-credentials-file", "config-file"):
        return (
            f" of profile {profile!r} ({method})",
            f"the profile's key is wrong or deleted: `aws configure --profile {profile}`",
        )
    if method == "sso":
        return f" of SSO profile {profile!r}", f"`aws sso login --profile {profile}`"
    return (f" ({method})" if method else ""), CREDENTIALS_HINT


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def error_message(exc: ClientError) -> str:
    error = exc.response.get("Error", {})
    return _line(error.get("Message") or error.get("Code") or exc)


def _client_error(exc: ClientError) -> AwsError:
    code, message = error_code(exc), error_message(exc)
    operation = exc.operation_name
    if code in EXPIRED:
        return AwsError(f"AWS credentials have expired ({operation})", hint=CREDENTIALS_HINT)
    if code in BAD_CREDENTIALS:
        where, fix = credential_source()
        return AwsError(
            f"AWS did not accept the credentials{where} ({operation}: {message})", hint=fix
        )
    if code in DENIED:
        return AwsError(
            f"access denied: {operation}: {message}",
            hint=f"the credentials' IAM policy must allow {operation}",
        )
    if code in THROTTLED:
        attempts = exc.response.get("ResponseMetadata", {}).get("RetryAttempts", 0) + 1
        return AwsError(
            f"AWS is throttling or unavailable: {operation} failed after "
            f"{attempts} attempts ({code})",
            hint="retry later; in CI, spread out parallel submits",
        )
    return _service_error(code, message, operation)


def _service_error(code: str, message: str, operation: str) -> AwsError:
    if code == "ResourceLimitExceeded":
        return QuotaExceeded(
            f"quota exceeded: {message}",
            hint="request a higher 'training job usage' quota for this instance type "
            "in Service Quotas, or use another instance type or region",
        )
    if code == "ValidationException" and _is_role_problem(message):
        return AwsError(
            f"SageMaker cannot use the role: {message}",
            hint="the role must exist and trust sagemaker.amazonaws.com; "
            "check `role` in the config or $SAGELAUNCH_ROLE",
        )
    if code == "ValidationException":
        return AwsError(f"SageMaker rejected {operation}: {message}")
    if code in ("NoSuchBucket", "404") and operation != "HeadObject":
        return AwsError(
            f"{operation}: {message}",
            hint="check the bucket in output_path / "
            "code_location exists in this account and region",
        )
    return AwsError(f"{operation} failed: {code}: {message}")


def _is_role_problem(message: str) -> bool:
    lowered = message.lower()
    return "role" in lowered and any(
        phrase in lowered for phrase in ("assume", "does not exist", "not authorized", "invalid")
    )


def _line(value: object) -> str:
    """One line: AWS messages sometimes carry newlines and runs of spaces."""
    return re.sub(r"\s+", " ", str(value)).strip()


def is_already_exists(exc: BaseException) -> bool:
    """A create that lost to an earlier attempt of itself (a retried timeout)."""
    if not isinstance(exc, ClientError):
        return False
    return error_code(exc) in ("ResourceInUse", "ResourceInUseException") or (
        error_code(exc) == "ValidationException" and "already exist" in error_message(exc).lower()
    )


def may_have_landed(exc: BaseException) -> bool:
    """Whether a request that ended in ``exc`` may have been carried out all the same.

    - The transport family botocore raises (and retries, as transient): `HTTPClientError`
      (`ConnectionClosedError`, `ReadTimeoutError`, `ResponseStreamingError`: sent, the answer
      lost) and `ConnectionError` (`EndpointConnectionError`, `ConnectTimeoutError`, SSL and
      proxy failures). The last attempt's class says nothing of the earlier ones: attempt 1 may
      have landed and timed out, and attempt 2 found the endpoint gone.
    - A ClientError after retries, or a 5xx: the earlier attempts failed in one of those ways,
      or the server failed after acting. A first-attempt 4xx (validation, access, quota) was
      refused before anything was done.
    """
    if isinstance(exc, (BotoConnectionError, HTTPClientError)):
        return True
    if isinstance(exc, ClientError):
        meta = exc.response.get("ResponseMetadata", {})
        return (
            int(meta.get("RetryAttempts") or 0) > 0 or int(meta.get("HTTPStatusCode") or 0) >= 500
        )
    return False


def unless_not_found(describe: Callable[[], Any]) -> dict[str, Any] | None:
    """A Describe* call's answer, or None when the resource does not exist."""
    try:
        return dict(describe())
    except ClientError as exc:
        if is_not_found(exc):
            return None
        raise


def is_not_found(exc: ClientError) -> bool:
    """SageMaker says "Could not find training job" as a ValidationException."""
    code, message = error_code(exc), error_message(exc).lower()
    return code in ("ResourceNotFound", "ResourceNotFoundException", "NoSuchKey", "404") or (
        code == "ValidationException" and ("could not find" in message or "not found" in message)
    )

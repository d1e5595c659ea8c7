"""botocore's exceptions become one-line `AwsError`s (exit 3) with a hint that says what to do."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, NoCredentialsError

from sagelaunch.aws.errors import is_already_exists, is_not_found, translate
from sagelaunch.errors import ExitCode


def client_error(code: str, message: str, operation: str = "CreateTrainingJob", retries: int = 0):
    response = {
        "Error": {"Code": code, "Message": message},
        "ResponseMetadata": {"RetryAttempts": retries},
    }
    return ClientError(response, operation)


@pytest.mark.parametrize(
    ("error", "message", "hint"),
    [
        (NoCredentialsError(), "no AWS credentials found", "aws configure"),
        (
            client_error(
                "ExpiredTokenException", "The security token included in the request is expired"
            ),
            "credentials have expired",
            "sso login",
        ),
        (
            client_error(
                "AccessDeniedException",
                "User: x is not authorized to perform: sagemaker:CreateTrainingJob",
            ),
            "access denied: CreateTrainingJob",
            "must allow CreateTrainingJob",
        ),
        (
            client_error(
                "ValidationException",
                "Could not assume role arn:aws:iam::1:role/R. Please "
                "ensure that the role exists and allows principal "
                "'sagemaker.amazonaws.com' to assume the role.",
            ),
            "SageMaker cannot use the role",
            "trust sagemaker.amazonaws.com",
        ),
        (
            client_error(
                "ResourceLimitExceeded",
                "The account-level service limit 'ml.p4d.24xlarge "
                "for training job usage' is 0 Instances",
            ),
            "quota exceeded: The account",
            "Service Quotas",
        ),
        (
            client_error(
                "ValidationException",
                "1 validation error detected: Value '0' at "
                "'resourceConfig.instanceCount'\n  failed to satisfy constraint",
            ),
            "SageMaker rejected CreateTrainingJob: 1 validation error detected: Value '0' at "
            "'resourceConfig.instanceCount' failed to satisfy constraint",
            None,
        ),
        (
            client_error("ThrottlingException", "Rate exceeded", retries=7),
            "failed after 8 attempts (ThrottlingException)",
            "retry later",
        ),
        (
            EndpointConnectionError(endpoint_url="https://api.sagemaker.us-east-1.amazonaws.com/"),
            "cannot reach AWS at https://api.sagemaker.us-east-1.amazonaws.com/",
            "AWS_ENDPOINT_URL",
        ),
    ],
)
def test_translation(error, message, hint):
    translated = translate(error)
    assert translated.exit_code == ExitCode.AWS
    assert message in translated.message and "\n" not in translated.message
    assert (hint is None and translated.hint is None) or hint in (translated.hint or "")


def test_attach_and_missing_job_recognition():
    assert is_already_exists(client_error("ResourceInUse", "already exists"))
    assert is_already_exists(client_error("ValidationException", "Job x already exists"))
    assert not is_already_exists(client_error("ValidationException", "bad instance count"))
    assert is_not_found(client_error("ValidationException", "Could not find training job 'x'"))
    assert not is_not_found(client_error("ValidationException", "bad instance count"))

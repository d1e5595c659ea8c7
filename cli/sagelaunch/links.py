"""Links for people: where a training job is in the AWS console."""

from __future__ import annotations


def console_url(region: str, name: str) -> str:
    return f"https://{region}.console.aws.amazon.com/sagemaker/home?region={region}#/jobs/{name}"


def tuning_console_url(region: str, name: str) -> str:
    return (
        f"https://{region}.console.aws.amazon.com/sagemaker/home?region={region}"
        f"#/hyper-tuning-jobs/{name}"
    )

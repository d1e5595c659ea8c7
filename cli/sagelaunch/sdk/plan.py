"""The plan: estimator kwargs, exact request, cost, topology, upload and warnings (SPEC §4)."""

from __future__ import annotations

import os
from typing import Any

from sagelaunch import bundle as bundles
from sagelaunch.aws.session import default_region
from sagelaunch.config import cost, topology
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import ConfigError, Problem
from sagelaunch.sdk.capture import SdkRejected, capture_request
from sagelaunch.sdk.estimator import estimator_spec
from sagelaunch.sdk.runtime import SDK_WARNINGS


def resolve_region(loaded: LoadedConfig, cli_region: str | None) -> str:
    region = cli_region or loaded.config.region or default_region()
    if not region:
        raise loaded.error(
            ("region",), "no region: set region in the config, pass --region, or export AWS_REGION"
        )
    return region


def resolve_role(loaded: LoadedConfig) -> str:
    role = loaded.config.role or os.environ.get("SAGELAUNCH_ROLE")
    if not role:
        raise loaded.error(
            ("role",), "no role: set role to an IAM role ARN or export SAGELAUNCH_ROLE"
        )
    return role


def require_plannable(loaded: LoadedConfig) -> None:
    """What `validate` allows for local runs but AWS needs: S3 locations."""
    config = loaded.config
    problems: list[Problem] = []
    if not config.output_path:
        problems.append(
            loaded.problem(
                ("output_path",),
                "plan/submit need output_path (s3://bucket/prefix/) for model artifacts",
            )
        )
    for name, channel in config.inputs.items():
        if channel.uri and not channel.uri.startswith("s3://"):
            problems.append(
                loaded.problem(
                    ("inputs", name, "uri"),
                    "SageMaker reads channels from S3: use an s3:// URI "
                    "(keep local paths under local.inputs)",
                )
            )
    if problems:
        raise ConfigError(problems)


def build_plan(
    loaded: LoadedConfig,
    *,
    job_name: str,
    region: str,
    role: str,
    bundle: bundles.Bundle | None,
    warnings: list[Problem] | None = None,
) -> dict[str, Any]:
    """Everything `plan` shows and `submit` sends. Volatile inputs (name, bundle) are passed in."""
    config = loaded.config
    require_plannable(loaded)
    code_uri = None
    if bundle is not None:
        code_uri = bundle.s3_uri(config.code_location or str(config.output_path))
    spec = estimator_spec(config, role=role, region=region, code_uri=code_uri)
    SDK_WARNINGS.messages.clear()
    try:
        request = capture_request(spec, region, job_name)
    except SdkRejected as exc:
        raise loaded.error(("framework",), exc.message) from None
    upload = {**bundle.summary(), "s3_uri": code_uri} if bundle else None
    return {
        "job_name": job_name,
        "region": region,
        "estimator": spec.as_json(),
        "request": request,
        "cost": cost.estimate(config),
        "topology": topology.topology(config).as_json(),
        "upload": upload,
        "warnings": [str(w) for w in warnings or []]
        + [f"sagemaker SDK: {message}" for message in SDK_WARNINGS.messages],
    }

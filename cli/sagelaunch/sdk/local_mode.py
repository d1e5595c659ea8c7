"""`sagelaunch local --docker`: the SageMaker SDK's own local mode (LocalSession + Docker Compose).

The estimator is the one `plan` builds, moved to local mode the way the SDK requires: instance
type ``local`` (``local_gpu`` for GPU types, which the SDK limits to one container), the code used
in place (``local_code``), channels with local paths as ``file://``, the model written to a local
folder, and none of the settings local mode rejects (spot, S3 checkpoints, VPC, KMS, retries).
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

from sagelaunch.aws.session import boto3_session
from sagelaunch.catalog import facts
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import SagelaunchError
from sagelaunch.sdk.capture import build_estimator, fit_inputs
from sagelaunch.sdk.estimator import ChannelSpec, EstimatorSpec, estimator_spec
from sagelaunch.sdk.runtime import sagemaker as import_sdk

REJECTED_IN_LOCAL_MODE = (
    "use_spot_instances",
    "max_wait",
    "checkpoint_s3_uri",
    "checkpoint_local_path",
    "max_retry_attempts",
    "keep_alive_period_in_seconds",
    "subnets",
    "security_group_ids",
    "volume_kms_key",
    "output_kms_key",
)


def local_mode_spec(
    loaded: LoadedConfig, *, role: str, region: str, hosts: int, output_dir: Path
) -> EstimatorSpec:
    """The plan's estimator, adapted to the SDK's local mode."""
    config = loaded.config
    spec = estimator_spec(config, role=role, region=region, code_uri=str(loaded.source_dir))
    kwargs = {k: v for k, v in spec.kwargs.items() if k not in REJECTED_IN_LOCAL_MODE}
    gpu = facts.instance_kind(config.compute.instance_type) == "gpu"
    kwargs.update(
        instance_type="local_gpu" if gpu else "local",
        instance_count=1 if gpu else hosts,
        output_path=f"file://{output_dir.resolve()}",
    )
    if spec.builtin_hyperparameters is None:
        kwargs["hyperparameters"] = {**kwargs["hyperparameters"], **config.local.hyperparameters}
    inputs = {name: _local_channel(loaded, name, ch) for name, ch in spec.inputs.items()}
    return replace(spec, kwargs=kwargs, inputs=inputs)


def _local_channel(loaded: LoadedConfig, name: str, channel: ChannelSpec) -> ChannelSpec:
    local_path = loaded.config.local.inputs.get(name)
    if local_path and not local_path.startswith("s3://"):
        path = (loaded.path.parent / local_path).resolve()
        return ChannelSpec(channel.kind, {**channel.kwargs, "s3_data": f"file://{path}"})
    if channel.kind == "FileSystemInput":
        raise loaded.error(("local", "inputs", name), "local mode needs a local path for FSx/EFS")
    return channel


def run(spec: EstimatorSpec, region: str) -> None:
    """Train in Docker through the SDK; its own logs stream to the terminal. Not `offline()`:
    local mode may read s3:// channels with the real credential chain."""
    import_sdk()  # quietly, before the submodule below
    from sagemaker.local import LocalSession

    session = LocalSession(boto_session=boto3_session(region))
    session.config = {"local": {"local_code": True}}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # the SDK's v2-to-v3 nudges
            estimator = build_estimator(spec, session)
            estimator.fit(fit_inputs(spec) or None, wait=True, logs=True)
    except (RuntimeError, ValueError, ImportError) as exc:
        raise SagelaunchError(f"SageMaker local mode failed: {exc}") from None

"""Failover chain rules (`compute.fallback`, `compute.spot.fallback_after`): an alternative that
moves the job to another region, and a spot limit that can never be reached."""

from __future__ import annotations

from collections.abc import Iterator

from sagelaunch.checks.rules.registry import rule, warning
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import Problem

# SageMaker API reference, S3DataSource: "Your input bucket must be in the same Amazon region as
# your training job." The main config's job reads its buckets from its own region.
SAME_REGION_FACT = (
    "SageMaker needs a training job's S3 input buckets in the job's own region: API reference, "
    "S3DataSource"
)


def s3_keys(config: LaunchConfig) -> list[str]:
    """The config's keys that name S3 locations (channels, checkpoints, output, code)."""
    keys = [
        f"inputs.{name}" for name, c in config.inputs.items() if (c.uri or "").startswith("s3:")
    ]
    if config.checkpoint:
        keys.append("checkpoint.s3_uri")
    keys += [key for key in ("output_path", "code_location") if getattr(config, key)]
    return keys


@rule
def fallback_region_buckets(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: an alternative in another region keeps the config's S3 locations, which are in
    the main config's region; its job reads across regions or fails."""
    config = loaded.config
    keys = s3_keys(config)
    for index, alternative in enumerate(config.compute.fallback):
        if not keys or not alternative.region or alternative.region == config.region:
            continue
        main = config.region or "the main config's region"
        yield warning(
            loaded,
            ("compute", "fallback", index, "region"),
            f"{alternative.region} is not the config's region ({main}), but this alternative "
            f"keeps the config's S3 locations ({', '.join(keys)}) in buckets of {main}: "
            + _effect(keys)
            + f"; give {alternative.region} buckets of its own (e.g. a config per region with "
            "extends:), or drop this alternative",
        )


def _effect(keys: list[str]) -> str:
    if any(key.startswith("inputs.") for key in keys):
        return f"its job would fail ({SAME_REGION_FACT})"
    return "its job would read and write across regions (slower; inter-region transfer is billed)"


@rule
def fallback_after_before_max_wait(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: a duration at or past spot.max_wait is never reached (SageMaker stops the job
    at max_wait first), so the chain never goes on demand for it."""
    spot = loaded.config.compute.spot
    if spot is None or spot.fallback_after is None or spot.fallback_after.seconds is None:
        return
    if spot.fallback_after.seconds >= spot.max_wait:
        yield warning(
            loaded,
            ("compute", "spot", "fallback_after"),
            f"{spot.fallback_after.seconds}s is not before max_wait ({spot.max_wait}s): "
            "SageMaker stops the job at max_wait first; pick a shorter duration",
        )

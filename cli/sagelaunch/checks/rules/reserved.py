"""Flexible instance selection and UltraServer placement (`compute.instance_preferences`,
`compute.placement`): what the API makes exclusive, and a job that must run on whichever
preference SageMaker picks.

The exclusions are the API's (ResourceConfig.InstancePreferences: "mutually exclusive with
InstanceType, InstanceGroups, InstancePlacementConfig, and EnableManagedSpotTraining";
InstancePreference.TrainingPlanArns: "mutually exclusive with the job-level TrainingPlanArn").
InstanceType and InstanceGroups are refused where the config is read
(config/instance_preferences.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sagelaunch.catalog.api_limits import ultraserver_types
from sagelaunch.checks.rules.registry import RULES, error, rule, warning
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import Problem
from sagelaunch.plan import images

EXCLUSIVE = "the API makes InstancePreferences exclusive of {} (ResourceConfig)"
PREFERENCES = ("compute", "instance_preferences")
_CUDA_BUILD = re.compile(
    r"-cu\d+"
)  # an image tag's CUDA build: pytorch-training:2.8.0-gpu-py311-cu121


@rule
def preferences_exclusions(loaded: LoadedConfig) -> Iterator[Problem]:
    """Refused: instance preferences with managed spot, UltraServer placement, a job-level
    training plan beside per-preference ones, or a tuning job (the SDK's tuner sends
    HyperParameterTuningResourceConfig, which has no InstancePreferences member)."""
    config = loaded.config
    compute = config.compute
    preferences = compute.instance_preferences
    if not preferences:
        return
    if compute.spot is not None:
        yield error(
            loaded,
            ("compute", "spot"),
            EXCLUSIVE.format("EnableManagedSpotTraining")
            + " (preferences run on training plans or on demand): drop compute.spot, or "
            "instance_preferences for a spot job with compute.fallback",
        )
    if compute.placement is not None:
        yield error(
            loaded,
            ("compute", "placement"),
            EXCLUSIVE.format("InstancePlacementConfig") + ": drop compute.placement, or name "
            "the UltraServer's instance_type instead of instance_preferences",
        )
    if compute.training_plan and any(p.training_plans for p in preferences):
        yield error(
            loaded,
            ("compute", "training_plan"),
            "the API makes a preference's TrainingPlanArns exclusive of the job-level "
            "TrainingPlanArn (InstancePreference): list the plan under the preference of its "
            "instance type and drop compute.training_plan",
        )
    if config.tuning is not None:
        yield error(
            loaded,
            PREFERENCES,
            "a tuning job's training jobs take their instances from "
            "HyperParameterTuningResourceConfig, which has no InstancePreferences (botocore's "
            "model, CreateHyperParameterTuningJob): set compute.instance_type for `tune`, or "
            "use `sagelaunch sweep` for one training job per trial",
        )
    for index, alternative in enumerate(compute.fallback):
        if alternative.instance_type or alternative.instance_count is not None:
            yield error(
                loaded,
                ("compute", "fallback", index),
                "compute.instance_preferences already moves between instance types on the "
                "service's side; an alternative of compute.fallback may change only the "
                "region: list its type as another preference",
            )


@rule
def preferences_share_an_image(loaded: LoadedConfig) -> Iterator[Problem]:
    """Refused: preferences whose types need different training images. The request names one
    AlgorithmSpecification.TrainingImage for whichever type the service selects, and a GPU
    image does not run on a Trainium or CPU instance (nor an arm64 one on x86). Advice where
    the SDK picks another CUDA build of the same image for a type: that type runs the first's."""
    config = loaded.config
    preferences = config.compute.instance_preferences or []
    if len(preferences) < 2 or config.image_uri or config.is_builtin_algorithm:
        return
    region = config.region or images.DEFAULT_REGION
    first = images.training_image(config, region)
    for index, preference in enumerate(preferences[1:], start=1):
        image = images.training_image(_on(config, index), region)
        if not first or not image or image == first:
            continue
        where = (*PREFERENCES, index, "instance_type")
        if _CUDA_BUILD.sub("", image) == _CUDA_BUILD.sub("", first):
            yield warning(
                loaded,
                where,
                f"the SDK picks {image} for {preference.instance_type}, but the job sends one "
                f"image for every preference: on {preference.instance_type} it runs the "
                f"first's, {first}",
            )
            continue
        yield error(
            loaded,
            where,
            f"{preference.instance_type} runs {image}, but the job sends one image for "
            f"every preference ({first}, the first's): keep preferences whose types take "
            "the same image (one accelerator kind and architecture), or submit a second "
            "config",
        )


@rule
def preferences_each_valid(loaded: LoadedConfig) -> Iterator[Problem]:
    """Refused: a preference the job cannot run on (its distribution, instance count or
    accelerators), found by every rule on the job as that preference would start it; what
    the first preference breaks is reported once, at the config's own keys."""
    preferences = loaded.config.compute.instance_preferences or []
    if len(preferences) < 2:
        return
    planned = {p.message for p in _errors(_variant(loaded, 0))}
    for index, preference in enumerate(preferences[1:], start=1):
        for found in _errors(_variant(loaded, index)):
            if found.message in planned:
                continue
            yield error(
                loaded,
                (*PREFERENCES, index),
                f"on {preference.instance_count} × {preference.instance_type} (preference "
                f"{index + 1}), {found.path}: {found.message}",
            )


@rule
def placement_on_ultraserver(loaded: LoadedConfig) -> Iterator[Problem]:
    """Refused: UltraServer placement for a type no UltraServer is made of (the model's
    UltraServer.InstanceType enum; InstancePlacementConfig is "only applicable for UltraServer
    capacity"), or more instances placed than the job has."""
    compute = loaded.config.compute
    if compute.placement is None:
        return
    known = ultraserver_types()
    if compute.instance_type not in known:
        yield error(
            loaded,
            ("compute", "placement"),
            f"InstancePlacementConfig is only applicable for UltraServer capacity, and no "
            f"UltraServer is made of {compute.instance_type} (the API's UltraServer instance "
            f"types: {', '.join(known)}): drop compute.placement",
        )
    placed = sum(s.InstanceCount for s in compute.placement.PlacementSpecifications or [])
    if placed > compute.instance_count:
        yield error(
            loaded,
            ("compute", "placement", "PlacementSpecifications"),
            f"the specifications place {placed} instances, but the job has "
            f"{compute.instance_count} (compute.instance_count): place at most that many",
        )


def _errors(loaded: LoadedConfig) -> list[Problem]:
    """Every rule's errors (RULES holds the strategies' rules too once the package is loaded)."""
    return [p for func in RULES.values() for p in func(loaded) if p.severity == "error"]


def _on(config: LaunchConfig, index: int) -> LaunchConfig:
    """``config`` as it runs when the service selects preference ``index``."""
    compute = config.compute
    preference = (compute.instance_preferences or [])[index]
    chosen = compute.model_copy(
        update={
            "instance_type": preference.instance_type,
            "instance_count": preference.instance_count,
            "instance_preferences": None,
        }
    )
    return config.model_copy(update={"compute": chosen})


def _variant(loaded: LoadedConfig, index: int) -> LoadedConfig:
    return LoadedConfig(
        path=loaded.path, config=_on(loaded.config, index), document=loaded.document
    )

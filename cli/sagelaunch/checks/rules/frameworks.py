"""Framework, version, image and entry-point rules."""

from __future__ import annotations

import os
from collections.abc import Iterator

from sagelaunch import source_archive
from sagelaunch.catalog import facts, sdk_data
from sagelaunch.checks.rules.registry import error, rule, warning
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem
from sagelaunch.plan import images
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import offered


def check_region(loaded: LoadedConfig) -> str:
    """The region images are checked for: the config's, else $AWS_REGION, else us-east-1."""
    return loaded.config.region or os.environ.get("AWS_REGION") or images.DEFAULT_REGION


@rule
def entry_point_present(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SDK tars source_dir with the entry point in it; a missing file fails `fit()`."""
    config = loaded.config
    if config.framework in {"pytorch", "tensorflow", "huggingface"} and not config.entry_point:
        example = f"train_{config.base_framework}.py"
        yield error(loaded, ("framework",), f"{config.framework} jobs need entry_point ({example})")
        return
    if config.entry_point and source_archive.is_archive(loaded.source_dir):
        yield from _archive_problems(loaded, str(config.entry_point))
    elif config.entry_point and not (loaded.source_dir / config.entry_point).is_file():
        yield error(
            loaded,
            ("entry_point",),
            f"{config.entry_point} not found in {loaded.source_dir}: fix entry_point or source_dir",
        )


def _archive_problems(loaded: LoadedConfig, entry_point: str) -> Iterator[Problem]:
    """SDK v3's SourceCode takes a local .tar.gz as source_dir; v2 takes only a folder."""
    if loaded.config.sdk != "v3":
        yield error(
            loaded,
            ("source_dir",),
            "a .tar.gz source_dir is SDK v3's (ModelTrainer): set sdk: v3, or unpack it and "
            "point source_dir at the folder",
        )
    elif problem := source_archive.entry_point_problem(loaded.source_dir, entry_point):
        yield error(loaded, ("source_dir",), f"{problem}: fix entry_point or source_dir")


@rule
def sdk_resolves_image(loaded: LoadedConfig) -> Iterator[Problem]:
    """Without image_uri the SDK must find the image in its image_uri_config tables, or `fit()`
    raises; sagelaunch resolves it the same way (and supplies the images the SDK lacks)."""
    config = loaded.config
    region = check_region(loaded)
    if config.image_uri or images.tool_known_image(config, region):
        return
    if config.framework == "huggingface":
        return  # its own table and estimator: rules/huggingface.py
    try:
        images.sdk_training_image(
            config.framework,
            region,
            config.framework_version,
            config.py_version or images.default_py_version(config),
            config.compute.instance_type,
            smp_v2=images.smp_image(config),
            smdistributed=registry.of(config).smdistributed,
        )
    except images.ImageUnavailable as exc:
        yield error(loaded, tuple(exc.field.split(".")), _image_message(loaded, exc.message))


@rule
def py_version_when_the_sdk_offers_several(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SDK's PyTorch and TensorFlow estimators refuse framework_version without py_version
    (fw_utils.validate_version_or_image_args). sagelaunch fills it only where the SDK's table
    leaves one choice; where it offers several (PyTorch <= 1.8, TensorFlow <= 2.1), so does
    the SDK's refusal."""
    config = loaded.config
    if config.framework not in {"pytorch", "tensorflow"} or config.py_version:
        return
    if not config.framework_version or config.image_uri or images.smp_image(config):
        return
    table = sdk_data.training_config(config.framework)
    version = table.get("version_aliases", {}).get(config.framework_version)
    entry = table["versions"].get(version or config.framework_version)
    choices = (
        (entry.get("py_versions") or [k for k in entry if k.startswith("py")]) if entry else []
    )
    if len(choices) > 1:
        yield error(
            loaded,
            ("framework_version",),
            "the SDK refuses framework_version without py_version ('framework_version or "
            f"py_version was None, yet image_uri was also None'): set py_version to one of "
            f"{', '.join(choices)}",
        )


def _image_message(loaded: LoadedConfig, reason: str) -> str:
    if facts.instance_kind(loaded.config.compute.instance_type) == "trainium":
        known = offered(facts.load("images")["neuronx"])
        return f"{reason}; neuronx images sagelaunch knows: PyTorch {known}, or set image_uri"
    return reason


@rule
def neuron_image_version(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: the SDK's only Neuron training table maps every version to its one image."""
    config = loaded.config
    if facts.instance_kind(config.compute.instance_type) != "trainium" or config.image_uri:
        return
    if config.framework != "pytorch" or images.tool_known_image(config, check_region(loaded)):
        return
    table = sdk_data.training_config("pytorch-neuron")["versions"]
    only = next(iter(table)) if len(table) == 1 else None
    if only and sdk_data.pytorch_version(str(config.framework_version)) != only:
        yield warning(
            loaded,
            ("framework_version",),
            f"the SDK's only Neuron training image is PyTorch {only}: the job runs {only}, not "
            f"{config.framework_version}; set image_uri to a pytorch-training-neuronx image",
        )


@rule
def xgboost_script_mode_versions(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SDK's XGBoost estimator accepts py_version py3 only and refuses its unsupported
    versions (sagemaker/xgboost/defaults.py) even with image_uri."""
    config = loaded.config
    if config.framework != "xgboost" or config.is_builtin_algorithm:
        return
    if config.py_version and config.py_version != "py3":
        yield error(loaded, ("py_version",), "the SDK's XGBoost estimator accepts only py3")
    unsupported = sdk_data.module_literal("xgboost/defaults.py", "XGBOOST_UNSUPPORTED_VERSIONS")
    reason = unsupported.get(str(config.framework_version).split("-")[0])
    if reason:
        yield error(loaded, ("framework_version",), f"the SDK refuses it: {reason}")


@rule
def image_python_end_of_life(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: an image whose Python is past its end of life gets no security fixes."""
    config = loaded.config
    if config.image_uri or images.tool_known_image(config, check_region(loaded)):
        return
    py_version = config.py_version or images.default_py_version(config)
    python = facts.load("python")
    ended = python["end_of_life"].get(str(py_version))
    if ended:
        yield warning(
            loaded,
            ("py_version",) if config.py_version else ("framework_version",),
            f"this image runs {py_version}, past its end of life ({ended}): "
            "pick a newer framework_version for security fixes",
        )


@rule
def image_without_framework_version(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: with image_uri alone, the version-dependent checks cannot run."""
    config = loaded.config
    if not config.image_uri or config.framework_version or config.transformers_version:
        return
    found = images.version_from_image(config.image_uri)
    taken = f"taken as {found} from the image tag" if found else "not readable from the image tag"
    yield warning(
        loaded,
        ("image_uri",),
        f"no framework_version ({taken}): the SDK's version tables for torchrun, SMDDP and SMP "
        "are not checked for this image; set framework_version to check them",
    )


@rule
def strategy_for_framework(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: the SDK's XGBoost estimators silently drop a distribution."""
    config = loaded.config
    if config.framework == "xgboost" and registry.distributed(config):
        yield warning(
            loaded,
            ("distribution", "strategy"),
            f"ignored: XGBoost jobs run no {config.distribution.strategy} launcher (the SDK drops "
            "distribution); XGBoost distributes across hosts through its own collective",
        )


@rule
def hyperparameters_not_reserved(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: sagemaker_* hyperparameters are the SDK's; setting one overrides what it derives
    from the config (legitimate, e.g. sagemaker_mpi_num_of_processes_per_host, but rarely meant)."""
    for key in loaded.config.hyperparameters:
        if key.startswith("sagemaker_"):
            yield warning(
                loaded,
                ("hyperparameters", key),
                "sagemaker_* hyperparameters are read by the container's toolkit and normally "
                "set by the SDK from distribution/compute: this one overrides it",
            )

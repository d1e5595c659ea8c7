"""The software a local run's hosts import, put together once per run: the framework's version
checked (and installed when local.framework: match), the job's requirements.txt, what the job's
image ships that the scripts import and this venv lacks (container_packages), and sagelaunch's
stand-ins for the containers' own libraries. software.py installs; container_packages.py knows
what each image ships."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sagelaunch.config.model import LaunchConfig
from sagelaunch.local import container_packages, image_software, job_packages, software

KERAS_3 = (2, 16)  # the first TensorFlow whose tf.keras is Keras 3
LEGACY_KERAS = "TF_USE_LEGACY_KERAS"


@dataclass(frozen=True)
class JobSoftware:
    """What the hosts import from: the overlays (first wins), the file naming what of this venv
    they may not import (None: all of it), and the warnings to show."""

    folders: list[Path] = field(default_factory=list)
    hidden: Path | None = None
    warnings: list[str] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)  # what the image's software needs


def prepare(
    config: LaunchConfig, code: Path, run_dir: Path, say: Callable[[str], None]
) -> JobSoftware:
    """The job's software, as its image would hold it (see the module docstring)."""
    # The framework that runs (a Hugging Face job's PyTorch) and the image whose packages it sees
    # (a Hugging Face job's by its transformers_version).
    framework, framework_version = config.base_framework, config.base_framework_version
    instance_type = config.compute.instance_type
    folders: list[Path] = []
    hugging_face = config.framework == image_software.HUGGINGFACE
    key = f"{framework}_version" if hugging_face else "framework_version"
    warning = software.version_warning(framework, framework_version, key)
    if warning and config.local.framework == "match":
        folders.append(software.framework_overlay(framework, str(framework_version), say))
        warning = None
    choice = image_software.choose(*image_key(config), instance_type)
    pins = container_packages.missing_pins(choice, code, say)
    image = _image(config, choice)
    keras = legacy_keras(image)
    if keras and image:
        say(f"  software: {keras} with TF_USE_LEGACY_KERAS=1, as the {image.label} had Keras 2")
    installed = software.overlay(code, [*pins, *([keras] if keras else [])], say)
    folders += [installed] if installed else []
    stand_ins = container_packages.stand_ins(framework, code)
    if stand_ins:
        say(f"  container library: sagelaunch's stand-in for {', '.join(stand_ins)}")
        folders.append(container_packages.STAND_INS_DIR)
    if image is not None:
        say(f"  software: what the {image.label} holds (local.software: image)")
    hidden = job_packages.hidden_modules_file(framework, image, code, run_dir)
    warnings = [warning] if warning else []
    if hidden and image and config.source_dir:  # the user's code (the shipped entry points
        # import optional libraries, such as deepspeed, only when a job asks for them)
        imports = job_packages.hidden_imports(hidden, code)
        warnings += filter(None, [_hidden_warning(imports, image)])
    environment = {LEGACY_KERAS: "1"} if keras else {}
    return JobSoftware(folders, hidden, warnings, environment)


def _hidden_warning(modules: list[str], image: image_software.Image) -> str | None:
    """The scripts import what this venv has and the image does not: they fail there, as on
    SageMaker, unless requirements.txt brings it."""
    if not modules:
        return None
    return (
        f"the code imports {', '.join(modules)}, which this venv has but the {image.label} does "
        "not hold: the job cannot import it, as on SageMaker; add it to requirements.txt beside "
        "the entry point, or set local.software: machine to run with this whole venv"
    )


def legacy_keras(image: image_software.Image | None) -> str | None:
    """tf-keras at this machine's TensorFlow release, where the job's image had Keras 2 inside
    TensorFlow (before 2.16) and this machine's TensorFlow has Keras 3: with TF_USE_LEGACY_KERAS
    set, ``tf.keras`` is then tf-keras, Keras 2's API (TensorFlow's own migration advice), so a
    script written for it saves and loads as it did. None where no such shim is needed."""
    if image is None or image.framework != "tensorflow":
        return None
    have = software.major_minor(software.installed_framework("tensorflow") or "")
    wanted = software.major_minor(image.version)
    if have is None or wanted is None or wanted >= KERAS_3 or have < KERAS_3:
        return None
    return f"tf-keras=={have[0]}.{have[1]}.*"


def _image(
    config: LaunchConfig, choice: image_software.Choice | None
) -> image_software.Image | None:
    """The image whose packages the job sees (the chosen one); None where it sees this whole venv
    (a custom image_uri, whose packages are not known, or local.software: machine)."""
    if config.local.software == "machine" or config.image_uri:
        return None
    return choice.image if choice else None


def image_key(config: LaunchConfig) -> tuple[str, str | None]:
    """The framework and version the job's image is stored under: a Hugging Face image under
    its Transformers version (one PyTorch per version in the SDK's huggingface.json)."""
    if config.framework == image_software.HUGGINGFACE:
        return config.framework, config.transformers_version
    return config.framework, config.framework_version

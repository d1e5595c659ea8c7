"""The settings `plan` needs that a config may leave to the environment: region, role, output path.

`validate` warns about each one missing, `plan` refuses with all of them at once, and `init`
fills what it finds. Offline and without botocore (the `validate` fast path): the AWS config
file is read as the INI file it is, honouring AWS_CONFIG_FILE and AWS_PROFILE as botocore does.
"""

from __future__ import annotations

import configparser
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a cached `validate` reads the fingerprint without loading pydantic
    from sagelaunch.config.loader import LoadedConfig
    from sagelaunch.errors import Problem

ROLE_VARIABLE = "SAGELAUNCH_ROLE"
REGION_VARIABLES = ("AWS_REGION", "AWS_DEFAULT_REGION")
_HINTS = {
    "region": "no region: set region in the config, pass --region, export AWS_REGION, or give "
    "the AWS profile a region (`aws configure set region us-east-1`)",
    "role": f"no role: set role to an IAM role ARN or export {ROLE_VARIABLE}",
    "output_path": "plan/submit need output_path (s3://bucket/prefix/) for model artifacts",
}


def aws_config_file() -> Path:
    return Path(os.environ.get("AWS_CONFIG_FILE") or Path.home() / ".aws" / "config").expanduser()


def profile_region() -> str | None:
    """The region of the active profile in the AWS config file, None when there is none."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(aws_config_file().read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None  # no file or a damaged one: botocore would find no region either
    profile = os.environ.get("AWS_PROFILE") or os.environ.get("AWS_DEFAULT_PROFILE") or "default"
    section = "default" if profile == "default" else f"profile {profile}"
    return parser.get(section, "region", fallback=None) or None


def environment_region() -> str | None:
    """The region a plan would take from outside the config: the variables, then the profile."""
    for variable in REGION_VARIABLES:
        if os.environ.get(variable):
            return os.environ[variable]
    return profile_region()


def environment_role() -> str | None:
    return os.environ.get(ROLE_VARIABLE) or None


def missing(
    loaded: LoadedConfig,
    *,
    region: str | None,
    role: str | None,
    severity: str = "error",
) -> list[Problem]:
    """One located problem per plan-time setting that has no value from anywhere."""
    found = {"region": region, "role": role, "output_path": loaded.config.output_path}
    return [
        loaded.problem((key,), _HINTS[key], severity) for key, value in found.items() if not value
    ]


def warnings_for(loaded: LoadedConfig) -> list[Problem]:
    """`validate`'s warnings: what `plan` would refuse for lack of a setting, as things stand."""
    config = loaded.config
    return missing(
        loaded,
        region=config.region or environment_region(),
        role=config.role or environment_role(),
        severity="warning",
    )


def fingerprint() -> dict[str, str | None]:
    """What `warnings_for` reads besides the config (a cached `validate` answer depends on it)."""
    names = [*REGION_VARIABLES, ROLE_VARIABLE, "AWS_PROFILE", "AWS_DEFAULT_PROFILE"]
    return {**{name: os.environ.get(name) for name in names}, "profile_region": profile_region()}

"""`sagelaunch schema`: the JSON schema of the launch config, generated from the model."""

from __future__ import annotations

import json
from typing import Any

from sagelaunch.output import print_json


def json_schema() -> dict[str, Any]:
    from sagelaunch.config.model import LaunchConfig  # not on the --help path

    schema = LaunchConfig.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    """What launch_configs/schema.json must contain (a test keeps it in sync)."""
    return json.dumps(json_schema(), indent=2) + "\n"


def schema() -> None:
    """Print the launch-config JSON schema (editors use it for completion and hover docs)."""
    print_json(json_schema())

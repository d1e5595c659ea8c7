"""The one base of every typed model sagelaunch reads or writes (the launch config, the plan)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Unknown keys are errors: a typo must never be silently ignored. Frozen: a model is a
    value, passed between layers, never patched on the way."""

    model_config = ConfigDict(extra="forbid", frozen=True)

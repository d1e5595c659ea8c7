"""A command's AWS clients: those handed in by the caller, else new ones for the region.

Commands never import aws/ (lint holds it); they pass along whatever the caller handed in
(`CliRunner.invoke(..., obj=Clients(...))`: how tests pass e.g. a client under botocore's
Stubber) and get the clients back from here; `Clients` is the name they type them by.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients


def given(handed_in: object) -> Clients | None:
    """``handed_in`` when it is a set of clients (a Typer context's ``obj``), else None."""
    from sagelaunch.aws.session import Clients

    return handed_in if isinstance(handed_in, Clients) else None


def connect(handed_in: object, region: str | None) -> Clients:
    """The clients handed in, else new ones for ``region`` (default: the profile's)."""
    from sagelaunch.aws.session import clients

    return given(handed_in) or clients(region)

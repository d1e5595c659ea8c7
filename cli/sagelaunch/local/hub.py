"""The Hugging Face Hub from a local job, which often has no way to it.

A job under ``network.isolation`` has no outbound route (network.py), as on SageMaker: its
Hugging Face libraries are told so (HF_HUB_OFFLINE), so that ``from_pretrained("gpt2")`` fails
at once, saying offline mode, instead of after the Hub client's retries. Without isolation a
machine may still have no internet. Either way, a host whose log shows the Hub unreachable is
told how a job gets a model without it: as a channel.
"""

from __future__ import annotations

from pathlib import Path

from sagelaunch.local.network import HostNetwork

OFFLINE = {"HF_HUB_OFFLINE": "1"}  # huggingface_hub's (transformers and datasets read it too)
# What transformers, datasets and huggingface_hub write when the Hub cannot be reached.
UNREACHABLE = (
    "couldn't connect to 'https://huggingface.co'",  # transformers' cached_files
    "host='huggingface.co'",  # urllib3's connection errors, beneath
    "cannot find the requested files in the local cache",  # huggingface_hub's LocalEntryNotFound
    "offline mode is enabled",  # HF_HUB_OFFLINE, set below
    "on the hub (localentrynotfounderror)",  # datasets' load_dataset
)
LOG_TAIL_BYTES = 256 * 1024  # the traceback is at the end; a log may be long before it


def offline_env(network: HostNetwork) -> dict[str, str]:
    """HF_HUB_OFFLINE=1 for hosts with a network of their own and no outbound route."""
    return dict(OFFLINE) if network.own and not network.outbound else {}


def unreachable_advice(log: Path, isolated: bool) -> str | None:
    """How to give the model as a channel, where ``log`` shows the Hub unreachable; None
    elsewhere. ``isolated``: the job runs with network.isolation."""
    try:
        with log.open("rb") as file:
            file.seek(max(0, log.stat().st_size - LOG_TAIL_BYTES))
            text = file.read().decode("utf-8", errors="replace").lower()
    except OSError:
        return None
    if not any(marker in text for marker in UNREACHABLE):
        return None
    why = (
        "the job runs with network.isolation: true, which has no internet (as on SageMaker)"
        if isolated
        else "this machine cannot reach huggingface.co"
    )
    return (
        f"the job could not download from the Hugging Face Hub: {why}. Give the model (and "
        "data) as a channel instead: save it where there is internet (save_pretrained), then "
        "add `inputs: {model: s3://...}` (and `local: {inputs: {model: path/to/folder}}`) and "
        "pass its folder to the script, e.g. --model_name_or_path /opt/ml/input/data/model"
    )

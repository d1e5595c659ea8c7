"""The SageMaker container contract, seen from inside a training script.

Entry points read everything the container gives them through this module: the ``SM_*``
environment the SageMaker training toolkit exports (no other module names an ``SM_*`` variable:
tests/cli/test_one_owner.py holds it), hyperparameters as the toolkit encodes them on
the command line, and the ``failure`` file SageMaker shows as FailureReason. Standard library only,
so it works unchanged in the SageMaker container, under ``sagelaunch local`` and on a laptop.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Where the container mounts everything; locally we fall back to a folder in the working directory
# so that a bare `python train_x.py` never writes outside it.
CONTAINER_BASE = Path("/opt/ml")
LOCAL_BASE = Path("opt_ml")
LOCAL_RUN = "SAGELAUNCH_LOCAL_RUN"  # set by `sagelaunch local` on every host process


class UsageError(ValueError):
    """Bad hyperparameters or input: reported in one line, without a traceback."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of exiting, so bad hyperparameters reach the
    failure file; unknown ``--key value`` pairs are left to the caller (parse_known_args)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"bad hyperparameters: {message}")


@dataclass(frozen=True)
class SageMakerEnv:
    """What the training toolkit tells the script about its job, host and directories."""

    model_dir: Path
    output_dir: Path
    output_data_dir: Path
    channels: dict[str, Path]
    hosts: list[str]
    current_host: str
    num_gpus: int
    num_cpus: int
    input_data_config: dict[str, dict]
    framework_params: dict[str, object]
    hyperparameters: dict[str, object]
    training_job_name: str | None = None
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def host_rank(self) -> int:
        return self.hosts.index(self.current_host)

    @property
    def in_sagemaker_job(self) -> bool:
        """True inside a real SageMaker job: the platform sets TRAINING_JOB_NAME, and so does
        ``sagelaunch local``, which also sets SAGELAUNCH_LOCAL_RUN."""
        return self.training_job_name is not None and not self.environ.get(LOCAL_RUN)

    @property
    def checkpoint_dir(self) -> Path:
        """SageMaker's checkpoint dir beside the model dir when it exists, else under output."""
        beside_model = self.model_dir.parent / "checkpoints"
        return beside_model if beside_model.is_dir() else self.output_dir / "checkpoints"

    @property
    def num_neurons(self) -> int:
        """The Neuron devices (Trainium, Inferentia) the toolkit counted: SM_NUM_NEURONS."""
        return int(self.environ.get("SM_NUM_NEURONS", "0") or 0)

    def hyperparameter_variable(self, name: str) -> str | None:
        """SM_HP_<NAME>: one hyperparameter as the toolkit exports it (JSON for anything but a
        string, so decode it with ``decode_value``); None when unset."""
        return self.environ.get(f"SM_HP_{name.upper()}")

    def channel(self, name: str) -> Path | None:
        return self.channels.get(name)

    def content_type(self, channel: str) -> str | None:
        return self.input_data_config.get(channel, {}).get("ContentType")


def _json_env(environ: Mapping[str, str], key: str, default: object) -> Any:
    """A JSON-valued SM_* variable, checked to have the default's type (list or dict)."""
    raw = environ.get(key)
    if raw is None:
        return default
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{key} is not valid JSON: {exc}") from None
    if not isinstance(value, type(default)):
        raise UsageError(f"{key} should be a JSON {type(default).__name__}, got {raw[:80]!r}")
    return value


def current_host(environ: Mapping[str, str]) -> str:
    """This host's name (SM_CURRENT_HOST), ``algo-1`` outside a job."""
    return environ.get("SM_CURRENT_HOST", "algo-1")


def master_host(environ: Mapping[str, str]) -> str | None:
    """The toolkit's master host, the first of SM_HOSTS; None when SM_HOSTS is unset, empty or
    no JSON list (read leniently: a launcher's fallback, where ``current`` would refuse it)."""
    hosts = decode_value(environ.get("SM_HOSTS", "[]"))
    return str(hosts[0]) if isinstance(hosts, list) and hosts else None


def instance_groups(environ: Mapping[str, str]) -> tuple[dict[str, Any], list[str]] | None:
    """A job with instance groups (SM_IS_HETERO): every group by name (SM_INSTANCE_GROUPS_DICT,
    each with its ``hosts``) and the names of the groups the distribution runs on
    (SM_DISTRIBUTION_INSTANCE_GROUPS); None for a job without instance groups."""
    if environ.get("SM_IS_HETERO", "false") != "true":
        return None
    groups = _json_env(environ, "SM_INSTANCE_GROUPS_DICT", {})
    return groups, _json_env(environ, "SM_DISTRIBUTION_INSTANCE_GROUPS", [])


def current(environ: Mapping[str, str] | None = None) -> SageMakerEnv:
    """Read the SageMaker environment, with local defaults for anything unset."""
    env = os.environ if environ is None else environ
    base = CONTAINER_BASE if CONTAINER_BASE.is_dir() else LOCAL_BASE
    channels = {
        key[len("SM_CHANNEL_") :].lower(): Path(value)
        for key, value in env.items()
        if key.startswith("SM_CHANNEL_")
    }
    hosts = _json_env(env, "SM_HOSTS", ["algo-1"])
    output_dir = Path(env.get("SM_OUTPUT_DIR", base / "output"))
    return SageMakerEnv(
        model_dir=Path(env.get("SM_MODEL_DIR", base / "model")),
        output_dir=output_dir,
        output_data_dir=Path(env.get("SM_OUTPUT_DATA_DIR", output_dir / "data")),
        channels=channels,
        hosts=list(hosts),
        current_host=current_host(env),
        num_gpus=int(env.get("SM_NUM_GPUS", "0")),
        num_cpus=int(env.get("SM_NUM_CPUS", str(os.cpu_count() or 1))),
        input_data_config=_json_env(env, "SM_INPUT_DATA_CONFIG", {}),
        framework_params=_json_env(env, "SM_FRAMEWORK_PARAMS", {}),
        hyperparameters=_json_env(env, "SM_HPS", {}),
        training_job_name=env.get("TRAINING_JOB_NAME"),
        environ=env,
    )


def parse_bool(text: str) -> bool:
    """Booleans as the toolkit passes them (``True``) and as users type them (``true``, ``1``)."""
    lowered = str(text).strip().lower()
    if lowered in {"true", "1", "yes", "on"}:
        return True
    if lowered in {"false", "0", "no", "off"}:
        return False
    raise UsageError(f"expected a boolean (true/false), got {text!r}")


def decode_value(text: str) -> object:
    """A hyperparameter value as SageMaker may encode it: JSON when it parses, else the raw text.

    Script-mode jobs JSON-encode values (``"\\"adam\\""``), the toolkit decodes them before building
    the command line, and users pass plain strings locally; all three end up the same.
    """
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def write_failure(output_dir: Path, message: str) -> None:
    """Write SageMaker's failure file (shown as the job's FailureReason); never raises."""
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        (output_dir / "failure").write_text(message[:1024] + "\n", encoding="utf-8")
    except OSError:
        pass


def run(main: Callable[[Sequence[str]], int], argv: Sequence[str] | None = None) -> int:
    """Run an entry point's ``main`` as the container would: errors become the failure file.

    A ``UsageError`` is one line (bad hyperparameters, bad input); anything else keeps its
    traceback on stderr for the job's logs, and its last line goes to the failure file.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return main(args)
    except UsageError as exc:
        message = f"{type(exc).__name__}: {exc}"
        print(message, file=sys.stderr)
    except Exception as exc:  # the container's last line of defence: keep the traceback
        traceback.print_exc()
        message = f"{type(exc).__name__}: {exc}"
    write_failure(current().output_dir, message)
    return 1

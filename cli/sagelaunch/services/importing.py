"""`sagelaunch import`: find the request (a saved JSON, or a live job through the aws layer),
fetch its code bundle, and turn it into a commented launch config."""

from __future__ import annotations

import io
import json
import os
import shutil
import tarfile
import tempfile
import zlib
from pathlib import Path
from typing import Any

from sagelaunch import secretscan
from sagelaunch.errors import UsageError
from sagelaunch.hyperparameters import decode
from sagelaunch.translate import importer, tuning_import

HEADER = (
    "# Imported by `sagelaunch import {source}`: `sagelaunch plan` of this file sends the same\n"
    "# request (job name and code location aside).\n"
)


def request_from_file(path: Path) -> dict[str, Any]:
    """A CreateTrainingJob request, a DescribeTrainingJob answer or a saved plan, from JSON."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: not a readable JSON file: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("request"), dict):
        tuning = data.get("tuning")
        # A saved `plan --out` file; a tuning plan's tuning request holds its training job too.
        data = tuning["request"] if isinstance(tuning, dict) else data["request"]
    if not isinstance(data, dict) or not (
        "AlgorithmSpecification" in data or tuning_import.is_tuning_request(data)
    ):
        raise UsageError(
            f"{path}: expected a CreateTrainingJob request or DescribeTrainingJob answer "
            "(an object with AlgorithmSpecification), or a CreateHyperParameterTuningJob "
            "request or DescribeHyperParameterTuningJob answer (with TrainingJobDefinition)"
        )
    return data


def job_name(request: dict[str, Any]) -> str | None:
    """The training (or tuning) job name the request gives."""
    return request.get("TrainingJobName") or request.get("HyperParameterTuningJobName")


def launch_config(request: dict[str, Any], source_dir: str) -> dict[str, Any]:
    """The launch config for a training or a tuning request."""
    if tuning_import.is_tuning_request(request):
        return tuning_import.import_tuning_request(request, source_dir)
    return importer.import_request(request, source_dir)


def replaced_secrets(request: dict[str, Any]) -> list[secretscan.Finding]:
    """The environment values `launch_config` writes as ``${env:NAME}`` references (the same
    detector decides), each with why: import names them, never their values."""
    definition = request.get("TrainingJobDefinition")
    source = definition if isinstance(definition, dict) else request
    return secretscan.scan(source.get("Environment") or {})


def secrets_note(found: list[secretscan.Finding]) -> str | None:
    """What import says about the values it replaced (names and reasons only)."""
    if not found:
        return None
    lines = [
        f"{len(found)} environment value(s) written as ${{env:NAME}} references, not copied "
        "into the config:"
    ]
    lines += [f"  {f.name}: {f.reason}" for f in found]
    names = " ".join(f"{f.name}=..." for f in found)
    lines.append(f"export them before plan/submit/local: export {names}")
    return "\n".join(lines)


def unpack_saved_bundle(path: Path, target: Path) -> str | None:
    """A saved plan's code bundle (``bundle_path``, beside it) unpacked into ``target``, so the
    imported config plans at once; None when ``path`` has no bundle. An existing ``target`` is
    kept as it is: the user's files are never overwritten."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = document.get("bundle_path") if isinstance(document, dict) else None
    saved = path.parent / name if isinstance(name, str) else None
    if saved is None or not saved.is_file():
        return None
    kept = f"kept the existing {target}/ (the saved bundle is {saved})"
    if target.exists():
        return kept
    # Unpacked aside and renamed into place: two imports at once never mix their files.
    if not unpack(saved.read_bytes(), target, str(saved)):
        return kept  # another import got there first; its folder stays
    return f"code of the saved plan unpacked into {target}/"


def unpack(data: bytes, target: Path, source: str) -> bool:
    """A code bundle (``source``: where it came from, for the messages) unpacked into a
    folder beside ``target`` and renamed into place once complete, so nothing is ever left
    half unpacked; False when ``target`` appeared meanwhile (kept as it is). An entry that
    would land outside the folder (``../``, an absolute path, a link out, a device) refuses the
    whole bundle before anything is written: `UsageError` (exit 2) naming the entry."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        _extract_checked(data, staging, source)
        if target.is_dir() and not any(target.iterdir()):
            target.rmdir()  # an empty folder (e.g. made for --source-dir) is no one's files
        staging.rename(target)
    except OSError:
        return False
    finally:
        if staging.exists():
            shutil.rmtree(staging)  # our own staging folder, only
    return True


def _extract_checked(data: bytes, folder: Path, source: str) -> None:
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            members = tar.getmembers()
            for member in members:  # every entry checked before the first is written
                try:
                    if os.path.isabs(member.name):  # data_filter would quietly strip the "/"
                        raise tarfile.AbsolutePathError(member)
                    tarfile.data_filter(member, str(folder))
                except tarfile.FilterError as exc:
                    raise UsageError(
                        f"{source}: the code bundle's entry {member.name!r} would be unpacked "
                        f"outside its folder ({type(exc).__name__}); nothing was unpacked",
                        hint="a bundle sagelaunch or the SageMaker SDK made has none: "
                        "check where this one came from",
                    ) from None
            tar.extractall(folder, members=members, filter="data")
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise UsageError(f"{source}: not a readable code bundle (tar.gz): {exc}") from None


def request_from_job(name: str, region: str | None, source_dir: Path) -> dict[str, Any]:
    """DescribeTrainingJob (+ its tags) of a live job; its code bundle unpacked to source_dir."""
    from sagelaunch.aws import jobs
    from sagelaunch.aws.session import clients

    aws = clients(region)
    job_name = name.rsplit("/", 1)[-1]  # a job ARN ends in training-job/<name>
    described = jobs.describe(aws.sagemaker, job_name)
    if described is None:
        raise jobs.missing(job_name)
    tags = jobs.tags(aws.sagemaker, described["TrainingJobArn"])
    if tags:
        described["Tags"] = tags
    code = decode(described.get("HyperParameters", {}).get("sagemaker_submit_directory"))
    if isinstance(code, str) and code.startswith("s3://"):
        _fetch_code(aws, code, source_dir)
    return described


def _fetch_code(aws: Any, uri: str, target: Path) -> None:
    from sagelaunch import s3uri

    bucket, key = s3uri.split(uri)
    body = aws.s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    if not unpack(body, target, uri):
        raise UsageError(
            f"{target} already exists and is not empty: the code of {uri} was not unpacked",
            hint="pass --source-dir NEW, or remove the folder",
        )


def to_yaml(config: dict[str, Any], source: str) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    out = io.StringIO()
    yaml.dump(config, out)
    return HEADER.format(source=source) + out.getvalue()

"""Plans, and the cache that spares the SageMaker SDK import when nothing it reads has changed.

Planning costs an SDK import (seconds). A plan is cached under a key made of everything the SDK's
answer depends on: the config as planned (its exact Python values: `cache_key`), region, role,
the sagelaunch and sagemaker versions (read from package metadata, no import), sagelaunch's own
files (sizes and mtimes: an editable install changes without its version), the SDK's defaults
files (which the SDK merges into the request) and, for `plan` and `submit`, the code bundle's
sha256. Not where the config lies: the SDK only sees the code's S3 location, named by its
content, so a moved or second checkout of a project shares the entries. The job name is not in
the key: a cached plan is renamed (`Plan.renamed`, which is what planning again under that name
gives). Local runs leave the code out of the key too, and move the cached request to this run's
bundle, since the request depends on the code only through its content-addressed location. Tests
compare both with planning again.

Entries are JSON files under `.sagelaunch/cache/plans/` (`$SAGELAUNCH_CACHE_DIR/plans/` where that
is set: caches.py), written atomically: concurrent runs each write a whole entry; a damaged or
unreadable entry is a miss.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext, suppress
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from sagelaunch import __version__, atomic, caches, naming
from sagelaunch import bundle as bundles
from sagelaunch.config import plan_settings
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.references import resolve_references
from sagelaunch.errors import ConfigError, Problem, UsageError
from sagelaunch.hyperparameters import encode
from sagelaunch.plan_model import Plan, PlanWarning, Upload

PLANS = "plans"  # caches.folder(PLANS): the plan cache
Progress = Callable[[], AbstractContextManager[object]]


def resolve_region(loaded: LoadedConfig, cli_region: str | None) -> str:
    """--region, the config's, $AWS_REGION / $AWS_DEFAULT_REGION, then the profile's (botocore is
    asked only in that last case, so a cached plan never imports it)."""
    return require_settings(loaded, cli_region)[0]


def resolve_role(loaded: LoadedConfig) -> str:
    return require_settings(loaded, None)[1]


def require_settings(loaded: LoadedConfig, cli_region: str | None) -> tuple[str, str]:
    """(region, role), or one ConfigError naming every plan-time setting missing (the output
    path too), each with where it can come from: a first config fails once, not once per key."""
    region = (
        _stripped(cli_region)
        or _stripped(loaded.config.region)
        or _stripped(os.environ.get("AWS_REGION"))
        or _stripped(os.environ.get("AWS_DEFAULT_REGION"))
        or _profile_region()
    )
    role = loaded.config.role or plan_settings.environment_role()
    problems = plan_settings.missing(loaded, region=region, role=role)
    if problems or not region or not role:
        raise ConfigError(problems)
    return region, role


def _stripped(value: str | None) -> str | None:
    """A region as written, without the blanks around it ("us-east-1 " is us-east-1)."""
    return value.strip() or None if value else None


def check_aws_environment(loaded: LoadedConfig, region: str) -> None:
    """Before the SDK plans (a cache miss): the region is one botocore knows (else exit 2 with
    the nearest, at the config's `region` line when it came from there), and the AWS profile
    named by $AWS_PROFILE exists (the SDK reads it at import; else exit 3 with the fix). A
    cached plan needs neither, and never imports botocore."""
    from sagelaunch.aws.session import region_problem, require_profile

    require_profile()
    problem = region_problem(region)
    if problem is not None:
        message, hint = problem
        if _stripped(loaded.config.region) == region:
            raise ConfigError([loaded.problem(("region",), f"{message} ({hint})")])
        origin = next(
            (
                f"${v}"
                for v in ("AWS_REGION", "AWS_DEFAULT_REGION")
                if _stripped(os.environ.get(v)) == region
            ),
            "--region or the AWS profile's region",
        )
        raise UsageError(f"{message} (from {origin})", hint=hint)


def _profile_region() -> str | None:
    from sagelaunch.aws.session import default_region

    return default_region()


class MadePlan(NamedTuple):
    """A config's plan, its code bundle (a file on disk, ``os.fspath(bundle)``; None for a
    built-in algorithm) and the config as loaded (what else a caller shows, e.g. the failover
    chain, without loading it again)."""

    plan: Plan
    bundle: bundles.Bundle | None
    loaded: LoadedConfig


def make_plan(
    config: Path,
    overrides: list[str] | None,
    region: str | None,
    job_name: str | None,
    progress: Progress = nullcontext,
    cache_dir: Path | None = None,
    advise: Callable[[str], None] | None = None,
) -> MadePlan:
    """Load, check, bundle and plan (from the cache when unchanged): `plan` and `submit CONFIG`.
    With ``advise`` (`plan`), prices are asked of the Price List API where credentials allow, and
    ``advise`` hears when it did not answer: said once, never a warning `--strict` counts."""
    from sagelaunch.checks.validation import load_valid

    loaded, warnings = load_valid(config, overrides)
    settings = require_settings(loaded, region)
    _check_planning_region(loaded, settings[0], region)
    code = None if loaded.config.is_builtin_algorithm else bundles.for_config(loaded)
    plan = planned(
        loaded,
        job_name=job_name or naming.job_name_for(loaded.config),
        region=settings[0],
        role=settings[1],
        code=code,
        warnings=warnings,
        code_in_key=True,
        progress=progress,
        cache_dir=cache_dir,
    )
    _check_request_limits(loaded, plan)
    plan = with_current_prices(plan, loaded, advise).queued(queue_settings(loaded))
    return MadePlan(with_code_warnings(plan, code), code, loaded)


def queue_settings(loaded: LoadedConfig) -> dict[str, Any] | None:
    """`compute.queue` as the plan keeps it (the keys the config set), or None."""
    queue = loaded.config.compute.queue
    return (
        queue.model_dump(mode="json", exclude_defaults=True) | {"name": queue.name}
        if queue
        else None
    )


def with_current_prices(
    plan: Plan, loaded: LoadedConfig, advise: Callable[[str], None] | None
) -> Plan:
    """``plan`` with its cost from today's prices (a cached plan keeps the request, not the
    price): the Price List API asked first where credentials allow (services.prices)."""
    from sagelaunch.plan import cost
    from sagelaunch.services.prices import refresh_if_possible

    compute = loaded.config.compute
    types = [g.instance_type for g in compute.groups] if compute.groups else [compute.instance_type]
    unasked = refresh_if_possible(types, plan.region) if advise else None
    if advise and unasked:
        advise(unasked)
    return plan.model_copy(update={"cost": cost.estimate(loaded.config, plan.region)})


def with_code_warnings(plan: Plan, code: bundles.Bundle | None) -> Plan:
    """``plan`` with what walking its code found (links out of source_dir, credentials left
    out, big files, token-looking values): read from the tree on every run, never cached."""
    found = [PlanWarning(source="tool", message=line) for line in code.warnings()] if code else []
    return plan.model_copy(update={"warnings": [*plan.warnings, *found]}) if found else plan


def _check_planning_region(loaded: LoadedConfig, region: str, cli_region: str | None) -> None:
    """The rules checked the images for the config's region (else $AWS_REGION's); a plan for
    another one (--region, $AWS_DEFAULT_REGION, the profile's) is checked for it here, and a
    region the SDK has no images in is blamed on where it came from, not on the config."""
    from sagelaunch.checks.rules.frameworks import check_region, sdk_resolves_image

    if region == check_region(loaded):
        return
    moved = dataclasses.replace(loaded, config=loaded.config.model_copy(update={"region": region}))
    problems = [p for p in sdk_resolves_image(moved) if p.path == "region"]
    if not problems:
        return
    found = [f"${v}" for v in plan_settings.REGION_VARIABLES if os.environ.get(v) == region]
    source = f"--region {region}" if cli_region == region else (found or ["the AWS profile"])[0]
    raise ConfigError([dataclasses.replace(p, file=source, line=1, col=1) for p in problems])


def _check_request_limits(loaded: LoadedConfig, plan: Plan) -> None:
    """The service's map limits on the request as planned (the SDK's own entries counted)."""
    from sagelaunch.checks.request_limits import request_problems

    problems = request_problems(loaded, plan.request)
    if problems:
        raise ConfigError(problems)


def planned(
    loaded: LoadedConfig,
    *,
    job_name: str,
    region: str,
    role: str,
    code: bundles.Bundle | None,
    warnings: list[Problem],
    code_in_key: bool,
    progress: Progress = nullcontext,
    cache_dir: Path | None = None,
) -> Plan:
    """The plan for ``loaded``: cached when the SDK would answer the same, else built (and
    stored). ``progress`` wraps the SDK run (a spinner). ``${env:NAME}`` values are resolved
    first, so the key (and the request) carries today's values."""
    loaded = resolve_references(loaded)
    keyed_code = code.sha256 if code is not None and code_in_key else None
    key = cache_key(loaded, region=region, role=role, code_sha256=keyed_code)
    cache_dir = cache_dir or caches.folder(PLANS)
    cached = load(cache_dir, key)
    if cached is not None:
        return retarget(cached, loaded, job_name, code, warnings)
    check_aws_environment(loaded, region)
    with progress():
        plan = build_plan(
            loaded, job_name=job_name, region=region, role=role, bundle=code, warnings=warnings
        )
    store(cache_dir, key, plan)
    return plan


def build_plan(
    loaded: LoadedConfig,
    *,
    job_name: str,
    region: str,
    role: str,
    bundle: bundles.Bundle | None,
    warnings: list[Problem] | None = None,
) -> Plan:
    """Everything `plan` shows and `submit` sends: the SDK's request (sdk.plan.capture) with the
    cost, topology and upload around it. Volatile inputs (name, bundle) are passed in;
    ``warnings`` are the config's (the rules'), carried with their place in the file."""
    from sagelaunch.plan import cost, topology
    from sagelaunch.sdk.plan import capture

    config = loaded.config
    code_uri = bundle.s3_uri(bundles.code_prefix(config)) if bundle is not None else None
    captured = capture(loaded, job_name=job_name, region=region, role=role, code_uri=code_uri)
    return Plan(
        tuning=captured.tuning,
        job_name=job_name,
        region=region,
        estimator=captured.estimator,
        request=captured.request,
        cost=cost.estimate(config, region),
        topology=topology.topology(config),
        upload=Upload.model_validate({**bundle.summary(), "s3_uri": code_uri}) if bundle else None,
        warnings=[PlanWarning.from_problem(w) for w in warnings or []] + captured.warnings,
    )


def installed_versions() -> dict[str, str]:
    """The versions a plan depends on, from package metadata (importing nothing)."""
    return {"sagemaker": metadata.version("sagemaker"), "sagelaunch": __version__}


def cache_key(
    loaded: LoadedConfig,
    *,
    region: str,
    role: str,
    code_sha256: str | None = None,
    versions: dict[str, str] | None = None,
) -> str:
    """The config keyed on its exact values, as the SDK receives them: model_dump's Python
    values written as JSON writes them (NaN, Infinity, -0.0, 1 and 1.0, true and "true" all
    distinct), not its JSON mode, which would write null for NaN and for both infinities (``v:
    ~``, ``.inf`` and ``.nan`` would share a cached request). The loader admits no other kind of
    value (no YAML tag that builds one). Mappings by sorted keys: the same config written in
    another order is the same entry."""
    config = loaded.config.model_dump()
    # The job queue's settings never reach the SDK: the SubmitServiceJob request is built around
    # the cached plan's request (Plan.queued), so a job queued or not is one entry.
    del config["compute"]["queue"]
    # Nor does `local:`: a local run plans its variant (local.variant), whose hyperparameters and
    # model_dir already carry what of it the request holds; `local --set local.hosts=3` after
    # `local.hosts=2` is then one entry, no SDK import.
    del config["local"]
    # What the SDK's answer depends on, in this order (only its hash is ever read).
    payload = [
        config,
        region,
        role,
        code_sha256,
        versions or installed_versions(),
        sagelaunch_files(),
        sdk_defaults(),
        refreshed_catalog(),
    ]
    text = json.dumps(payload, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def refreshed_catalog() -> str | None:
    """The sha256 of the instance catalog `instances --refresh` wrote (facts.catalog reads it in
    place of the shipped one: processes per host, EFA, recommend), None where there is none."""
    from sagelaunch.catalog.facts import refreshed_catalog_file

    with suppress(OSError):
        return hashlib.sha256(refreshed_catalog_file().read_bytes()).hexdigest()
    return None


def sagelaunch_files(root: Path | None = None) -> list[tuple[str, str]]:
    """sagelaunch's own files by content (relative path, sha256): an editable install (`make
    setup`) keeps its version while `git pull` changes how it plans, and a second clone of the
    same commit (new folder, new mtimes: a CI checkout) keys the same, so it plans from a shared
    cache. About 2 MB, read in ~10 ms."""
    root = root or Path(__file__).resolve().parents[1]
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
            found.append((os.path.relpath(path, root), digest))
    return found


# The SDK's "intelligent defaults": config files the SageMaker SDK reads at import and merges into
# the request (tags, KMS keys, VPC, environment...); sagemaker/config/config.py.
_SDK_DEFAULTS = (
    ("SAGEMAKER_ADMIN_CONFIG_OVERRIDE", "site_config_dir"),
    ("SAGEMAKER_USER_CONFIG_OVERRIDE", "user_config_dir"),
)


def sdk_defaults() -> list[tuple[str, str | None]]:
    """Each SDK defaults file (the override variable's path, else the SDK's default place) with
    its sha256 (an S3 URI as written, which the key cannot read); where there is no file, only
    that there is none."""
    found = []
    for variable, default in _SDK_DEFAULTS:
        where = os.environ.get(variable) or _platform_config_file(default)
        if where is None or where.startswith("s3://"):
            found.append((variable, where))
            continue
        path = Path(where)
        if path.is_dir():
            path = path / "config.yaml"
        try:
            found.append((str(path), hashlib.sha256(path.read_bytes()).hexdigest()))
        except OSError:
            # No file there: the SDK merges nothing, wherever the home folder is (a run with a
            # HOME of its own plans from the same cache entry).
            found.append((variable, None))
    return found


def _platform_config_file(kind: str) -> str | None:
    try:
        import platformdirs  # the SDK's own way to find the folders (it depends on it)
    except ImportError:  # pragma: no cover - installed with the SDK
        return None
    return os.path.join(getattr(platformdirs, kind)("sagemaker"), "config.yaml")


def load(folder: Path, key: str) -> Plan | None:
    try:
        return Plan.model_validate_json((folder / f"{key}.json").read_bytes())
    except (OSError, ValueError, ValidationError):
        return None  # a miss, a damaged entry or an unreadable cache: plan again


def store(folder: Path, key: str, plan: Plan) -> None:
    """A cache that cannot be written is only a slower next run."""
    with suppress(OSError):
        atomic.write_text(folder / f"{key}.json", plan.model_dump_json(by_alias=True))


def retarget(
    plan: Plan,
    loaded: LoadedConfig,
    job_name: str,
    code: bundles.Bundle | None,
    warnings: list[Problem],
) -> Plan:
    """The cached plan for this run: its job name, its code bundle, today's config warnings."""
    cached_job_name = plan.job_name
    plan = plan.renamed(job_name)
    if plan.tuning is not None:
        tuning = plan.tuning.for_training_job(cached_job_name, job_name)
        tuning = tuning.renamed(naming.tuning_job_name_for(loaded.config, job_name))
        plan = plan.model_copy(update={"tuning": tuning})
    if code is not None and plan.upload is not None:
        plan = _relocated(plan, code, code.s3_uri(bundles.code_prefix(loaded.config)))
    config_warnings = [PlanWarning.from_problem(w) for w in warnings]
    kept = [w for w in plan.warnings if w.source != "config"]  # the SDK's and sagelaunch's notes
    return plan.model_copy(update={"warnings": config_warnings + kept})


def _relocated(plan: Plan, code: bundles.Bundle, uri: str) -> Plan:
    """``plan`` with its code at ``uri``: every value that named the cached bundle's location (the
    `sagemaker_submit_directory` hyperparameter, JSON-encoded, and the estimator's source_dir; under
    network isolation the `code` channel's S3Uri instead, the submit directory then being the
    channel's path in the container, which stays) names the new one."""
    old = plan.upload.s3_uri if plan.upload is not None else None
    moved = {old: uri, encode(old): encode(uri)} if old is not None else {}
    estimator = plan.estimator.model_copy(
        update={"kwargs": _replaced(plan.estimator.kwargs, moved)}
    )
    upload = Upload.model_validate({**code.summary(), "s3_uri": uri})
    return plan.model_copy(
        update={"request": _replaced(plan.request, moved), "estimator": estimator, "upload": upload}
    )


def _replaced(value: Any, moved: dict[str, str]) -> Any:
    """``value`` (JSON-like) with each string that is a key of ``moved`` replaced by its value."""
    if isinstance(value, str):
        return moved.get(value, value)
    if isinstance(value, dict):
        return {key: _replaced(item, moved) for key, item in value.items()}
    if isinstance(value, list):
        return [_replaced(item, moved) for item in value]
    return value

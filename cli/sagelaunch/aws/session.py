"""boto3 sessions, clients (retries, timeouts) and botocore's service model, from one place."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
from typing import TYPE_CHECKING, Any

import botocore
import botocore.loaders
import botocore.session
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ParamValidationError, ProfileNotFound
from botocore.validate import validate_parameters

from sagelaunch import caches
from sagelaunch.errors import SagelaunchError, UsageError
from sagelaunch.nearest import nearest

if TYPE_CHECKING:
    import boto3

# Credentials that cannot reach AWS: an offline session never looks for real ones (no IMDS, no
# profile), so planning works on a laptop without credentials and never talks to the network.
_OFFLINE_KEYS = {"aws_access_key_id": "offline", "aws_secret_access_key": "offline"}


def offline_session(region: str, models: botocore.loaders.Loader | None = None) -> boto3.Session:
    """A boto3 session for building requests offline: the SDK needs one, AWS never sees it.
    ``models``: a loader that has parsed the service models already (its cache is reused)."""
    import boto3  # only the SDK path needs boto3; the clients below are plain botocore

    core = botocore.session.Session()
    # The service models are parsed once per process (hundreds of ms each time otherwise): the
    # SDK's own loader when the caller has it (it parsed them at import), else one per process,
    # so a process that plans many configs (sweeps, tests) shares them, as clients() does.
    loader = models or _full_loader(core.get_config_variable("data_path"))
    core.register_component("data_loader", loader)
    return boto3.Session(region_name=region, botocore_session=core, **_OFFLINE_KEYS)


@functools.cache
def _full_loader(data_path: str | None) -> botocore.loaders.Loader:
    return botocore.loaders.create_loader(data_path)


def boto3_session(region: str) -> boto3.Session:
    """A boto3 session with the normal credential chain, for the SDK's own local mode (it may
    download s3:// channels)."""
    import boto3

    return boto3.Session(region_name=region)


def default_region(session: botocore.session.Session | None = None) -> str | None:
    """The region boto3 would use: $AWS_REGION / $AWS_DEFAULT_REGION, then the profile's
    (a profile that does not exist: `AwsError`, exit 3, with the fix)."""
    from sagelaunch.aws.errors import translate

    session = session or botocore.session.Session()
    try:
        region = os.environ.get("AWS_REGION") or session.get_config_variable("region")
    except ProfileNotFound as exc:
        raise translate(exc) from None
    return region.strip() if isinstance(region, str) else region


def require_profile(session: botocore.session.Session | None = None) -> None:
    """Raise `AwsError` (exit 3, with the fix) when $AWS_PROFILE (or the session's profile)
    names a profile that is in neither AWS config file. The SDK reads the profile when it is
    imported, so planning asks this first."""
    from sagelaunch.aws.errors import translate

    session = session or botocore.session.Session()
    try:
        session.get_scoped_config()
    except ProfileNotFound as exc:
        raise translate(exc) from None


@functools.cache
def known_regions() -> frozenset[str]:
    """Every region of every partition where botocore's endpoint data (endpoints.json, shipped
    with botocore: data, no network) lists SageMaker. Kept in the cache folder per botocore
    version: reading the endpoint data costs about 0.6 s, on every plan that misses its cache."""
    data_path = os.environ.get("AWS_DATA_PATH")
    kept = caches.folder("botocore-regions") / f"sagemaker-{botocore.__version__}.json"
    if data_path is None:
        try:
            return frozenset(json.loads(kept.read_text("utf-8")))
        except (OSError, ValueError):
            pass
    session = botocore.session.Session()
    # Not the profile's data_path: a profile missing is require_profile's error, not this one's.
    session.register_component("data_loader", _loader(data_path))
    regions = frozenset(
        region
        for partition in session.get_available_partitions()
        for region in session.get_available_regions("sagemaker", partition)
    )
    if data_path is None:
        with contextlib.suppress(OSError):  # no cache folder to write: the next plan reads again
            kept.parent.mkdir(parents=True, exist_ok=True)
            temporary = kept.with_name(f"{kept.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(sorted(regions)), "utf-8")
            os.replace(temporary, kept)  # two plans at once: either whole file wins
    return regions


def region_problem(region: str) -> tuple[str, str] | None:
    """(message, hint) when botocore does not know ``region``, else None."""
    known = known_regions()
    if region in known:
        return None
    close = nearest(region.lower(), known, cutoff=0.75)
    message = f"unknown AWS region {region!r}" + (
        f": did you mean {' or '.join(close)}?" if close else ""
    )
    hint = (
        f"use a region where SageMaker runs, e.g. {close[0] if close else 'us-east-1'}; for a "
        f"region newer than this botocore ({botocore.__version__}), upgrade botocore"
    )
    return message, hint


def require_region(region: str) -> str:
    """``region`` without surrounding blanks, or `UsageError` (exit 2) when botocore does not
    know it."""
    region = region.strip()
    problem = region_problem(region)
    if problem is not None:
        raise UsageError(problem[0], hint=problem[1])
    return region


def validate_request(
    operation: str, params: dict[str, Any], service: str = "sagemaker", model: Any = None
) -> None:
    """Check a request against botocore's service model, as the client would before sending.
    Pass a client's ``meta.service_model`` when one is at hand: loading the model costs ~50 ms."""
    model = model or botocore.session.Session().get_service_model(service)
    try:
        validate_parameters(params, model.operation_model(operation).input_shape)
    except ParamValidationError as exc:
        raise SagelaunchError(
            f"the {operation} request does not match the AWS API: {exc}",
            hint="this is a sagelaunch bug if the config validated; please report it",
        ) from None


# Adaptive mode: botocore's standard retries (throttling, 5xx, timeouts, connection errors) plus a
# client-side rate limiter that slows down when AWS throttles. Bounded, so "throttled" ends in
# exit 3 rather than a hang. boto's own AWS_MAX_ATTEMPTS / AWS_RETRY_MODE still win, as users
# expect (and as tests use to fail fast).
DEFAULT_MAX_ATTEMPTS = 8
CONNECT_TIMEOUT_S = 10
READ_TIMEOUT_S = 60


def client_config(max_attempts: int | None = None) -> Config:
    """Retries and timeouts for every client sagelaunch creates (``max_attempts``: fewer, for
    a look that may fail without harm, e.g. plan's quota check on a laptop gone offline)."""
    attempts = max_attempts or int(os.environ.get("AWS_MAX_ATTEMPTS") or DEFAULT_MAX_ATTEMPTS)
    return Config(
        retries={
            "mode": os.environ.get("AWS_RETRY_MODE") or "adaptive",  # type: ignore[typeddict-item]
            "total_max_attempts": attempts,
        },
        connect_timeout=CONNECT_TIMEOUT_S,
        read_timeout=READ_TIMEOUT_S,
        user_agent_extra="sagelaunch",
    )


# Advisory look-ups (the quota pre-flight): when one fails, the command says so in a warning and
# goes on, so it gets about two seconds, not the main clients' minutes of retries: 2 attempts
# (standard mode: one backoff of up to 1 s), 0.5 s to connect, 1.5 s to read. Fixed, not from
# AWS_MAX_ATTEMPTS / AWS_RETRY_MODE, which tune the calls the command cannot do without.
ADVISORY_MAX_ATTEMPTS = 2
ADVISORY_CONNECT_TIMEOUT_S = 0.5
ADVISORY_READ_TIMEOUT_S = 1.5


def advisory_config() -> Config:
    """Retries and timeouts of a client whose answer the command can do without."""
    return Config(
        retries={"mode": "standard", "total_max_attempts": ADVISORY_MAX_ATTEMPTS},
        connect_timeout=ADVISORY_CONNECT_TIMEOUT_S,
        read_timeout=ADVISORY_READ_TIMEOUT_S,
        user_agent_extra="sagelaunch",
    )


class Clients:
    """The AWS clients of one command, each created on first use from one session.

    Commands hand these clients to the `aws` functions, so a test can pass in clients of its own
    (e.g. one under botocore's Stubber) through the same door: `Clients(region, sagemaker=c)`.
    """

    def __init__(
        self,
        region: str,
        session: botocore.session.Session | None = None,
        max_attempts: int | None = None,
        **prebuilt: Any,
    ) -> None:
        self.region = region
        self._session = session
        self._max_attempts = max_attempts
        self._clients: dict[str, Any] = dict(prebuilt)
        self._given = set(prebuilt)
        self._advisory: dict[str, Any] = {}

    def client(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self._create(service, client_config(self._max_attempts))
        return self._clients[service]

    def advisory(self, service: str) -> Any:
        """A client for a look the command can do without (`advisory_config`: it gives up in
        about two seconds); one handed in for ``service`` is used as it is."""
        if service in self._given:
            return self._clients[service]
        if service not in self._advisory:
            self._advisory[service] = self._create(service, advisory_config())
        return self._advisory[service]

    def _create(self, service: str, config: Config) -> Any:
        if self._session is None:
            raise SagelaunchError(f"no {service} client was given and no session to make one")
        return _create_client(self._session, service, self.region, config)

    @property
    def sagemaker(self) -> Any:
        return self.client("sagemaker")

    @property
    def s3(self) -> Any:
        return self.client("s3")

    @property
    def logs(self) -> Any:
        return self.client("logs")


def clients(
    region: str | None, profile: str | None = None, max_attempts: int | None = None
) -> Clients:
    """Clients for ``region`` (default: $AWS_REGION, $AWS_DEFAULT_REGION, the profile's) with
    botocore's credential chain (``profile`` or $AWS_PROFILE, env, SSO, instance roles).
    $AWS_ENDPOINT_URL and $AWS_ENDPOINT_URL_<SERVICE> are honoured as boto3 honours them.

    botocore directly rather than boto3: the same clients without importing boto3 and
    s3transfer, which keeps `submit plan.json` quick."""
    from sagelaunch.aws.errors import translate

    session = botocore.session.Session(profile=profile)
    try:
        require_profile(session)  # before any call: one clear line, not a failed request
        region = (region or "").strip() or default_region(session)
    except BotoCoreError as exc:
        raise translate(exc) from None
    if not region:
        raise UsageError(
            "no AWS region", hint="pass --region, or export AWS_REGION, or set it in the profile"
        )
    region = require_region(region)
    session.register_component("data_loader", _loader(session.get_config_variable("data_path")))
    _quiet_botocore_logging()
    return Clients(region, session, max_attempts)


@functools.cache
def _loader(data_path: str | None) -> botocore.loaders.Loader:
    """One loader per process, so service models are parsed once even when one process runs many
    commands (tests, notebooks); SageMaker's comes trimmed to what we call (aws.models)."""
    from sagelaunch.aws.models import trimmed_loader

    return trimmed_loader(data_path)


def _create_client(
    session: botocore.session.Session, service: str, region: str, config: Config
) -> Any:
    from sagelaunch.aws.errors import translate

    try:
        return session.create_client(service, region_name=region, config=config)
    except BotoCoreError as exc:
        raise translate(exc) from None


def _quiet_botocore_logging() -> None:
    """Importing parts of the SageMaker SDK runs `logging.basicConfig(level=INFO)`; botocore's
    INFO lines ("Found credentials in environment variables") must not reach our stderr."""
    for name in ("botocore", "urllib3"):
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.WARNING)

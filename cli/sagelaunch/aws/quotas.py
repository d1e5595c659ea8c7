"""Quota pre-flight: the account's applied SageMaker quotas against what its running jobs use.

CreateTrainingJob refuses a job that asks more instances than the account's quota allows
(`ResourceLimitExceeded`), and it does so only after the code was uploaded. Service Quotas
tells the same limit beforehand: the quota is found by its name ("ml.p4d.24xlarge for training
job usage"), as the console shows it, never by a copied quota code (codes differ per quota and
are not documented as stable).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from sagelaunch import resource_config
from sagelaunch.aws.errors import error_code, translated
from sagelaunch.errors import AwsError
from sagelaunch.statuses import JobStatus

SERVICE_CODE = "sagemaker"
TOTAL_INSTANCES = "Number of instances across all training jobs"
TOTAL_KEY = "*"  # the key of all instances in `instances_in_use`'s counter


@dataclass(frozen=True)
class QuotaUse:
    """One quota, what the account's running training jobs use of it, and what this job asks."""

    name: str
    quota: int
    in_use: int
    asks: int

    @property
    def fits(self) -> bool:
        return self.in_use + self.asks <= self.quota

    def __str__(self) -> str:
        return f"{self.name}: quota {self.quota}, in use {self.in_use}, this job asks {self.asks}"


def usage_quota_name(instance_type: str, spot: bool) -> str:
    """The quota's name in Service Quotas (spot capacity has quotas of its own)."""
    kind = "spot training job usage" if spot else "training job usage"
    return f"{instance_type} for {kind}"


def asked_instances(request: dict[str, Any]) -> Counter[str]:
    """Instances per type a CreateTrainingJob request (or a job's description) asks for: with
    instance preferences, the service's selection where it made one, else the first
    preference (``preference_requests`` has each)."""
    resources = request.get("ResourceConfig", {})
    asked: Counter[str] = Counter()
    for group in resources.get("InstanceGroups") or [resources]:
        kind, count = resource_config.running(group)
        if kind:
            asked[kind] += count
    return asked


def preference_requests(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The request as each instance preference would run it (one for a request without)."""
    resources = request.get("ResourceConfig", {})
    listed = resource_config.preferences(resources)
    if not listed or resources.get("SelectedInstanceType"):
        return [request]
    return [
        {**request, "ResourceConfig": {"InstanceType": kind, "InstanceCount": count}}
        for kind, count in listed
    ]


# What an endpoint that does not serve an API answers: AWS's own codes for an unknown action,
# and bare HTTP statuses (no AWS error in the body) from an endpoint that is not AWS's, e.g.
# moto's server, whose Service Quotas lacks ListServiceQuotas (it answers 500, in HTML).
NOT_SERVED_CODES = {
    "UnknownOperationException",
    "UnknownOperation",
    "InvalidAction",
    "NotImplemented",
    "NotImplementedException",
    "404",
    "501",
}
AWS_HOSTS = (".amazonaws.com", ".amazonaws.com.cn", ".api.aws")


class NotServed(AwsError):
    """The endpoint does not serve the API at all: nothing to retry, nothing AWS-side wrong."""


def applied_quotas(service_quotas: Any, names: Iterable[str]) -> dict[str, int]:
    """The applied value of each named SageMaker quota the account lists (absent: not listed).
    Any failure (unreachable, 5xx, denied, throttled) is an `AwsError`, for the caller to weigh:
    the pre-flight only advises, so it goes on without (services.quota_check); an endpoint that
    does not serve Service Quotas is `NotServed`, and says so, not that AWS is throttling."""
    with served_by(service_quotas, "Service Quotas"):
        return _applied_quotas(service_quotas, names)


@contextmanager
def served_by(client: Any, api: str) -> Iterator[None]:
    """An `AwsError` from an endpoint that does not serve ``api`` at all becomes `NotServed`,
    which says so (not that AWS is throttling); any other passes through."""
    try:
        yield
    except AwsError as exc:
        cause, endpoint = exc.__context__, client.meta.endpoint_url
        if isinstance(cause, ClientError) and not_served(cause, endpoint):
            raise NotServed(
                f"{api} is not served by this endpoint ({endpoint}: "
                f"{cause.operation_name} answered {error_code(cause)})"
            ) from None
        raise


def not_served(exc: ClientError, endpoint: str) -> bool:
    """Whether ``exc`` says the endpoint does not serve the operation (not that it failed)."""
    from urllib.parse import urlparse

    code = error_code(exc)
    if code in NOT_SERVED_CODES:
        return True
    host = urlparse(endpoint).hostname or ""
    return code.isdigit() and not host.endswith(AWS_HOSTS)


@translated
def _applied_quotas(service_quotas: Any, names: Iterable[str]) -> dict[str, int]:
    wanted = set(names)
    found: dict[str, int] = {}
    pages = service_quotas.get_paginator("list_service_quotas").paginate(ServiceCode=SERVICE_CODE)
    for page in pages:
        for quota in page.get("Quotas", []):
            if quota.get("QuotaName") in wanted:
                found[quota["QuotaName"]] = int(quota["Value"])
    return found


@translated
def instances_in_use(sagemaker: Any) -> Counter[str]:
    """Instances per type held by the account's InProgress training jobs ("*": all of them)."""
    used: Counter[str] = Counter()
    for page in sagemaker.get_paginator("list_training_jobs").paginate(
        StatusEquals=JobStatus.InProgress.value
    ):
        for summary in page.get("TrainingJobSummaries", []):
            job = _describe(sagemaker, summary["TrainingJobName"])
            used.update(asked_instances(job))
    used[TOTAL_KEY] = sum(count for kind, count in used.items() if kind != TOTAL_KEY)
    return used


def _describe(sagemaker: Any, name: str) -> dict[str, Any]:
    try:
        return dict(sagemaker.describe_training_job(TrainingJobName=name))
    except ClientError:  # ended and gone between the list and the describe: it holds nothing
        return {}


def quota_uses(
    request: dict[str, Any], quotas: dict[str, int], used: Counter[str]
) -> list[QuotaUse]:
    """The quotas this request draws on, each with its use; quotas the account does not list
    are left out (nothing to check them against). With instance preferences, those of the
    first preference that fits (the service moves on from a type it cannot start), else the
    first's."""
    options = [_uses(one, quotas, used) for one in preference_requests(request)]
    return next((uses for uses in options if all(use.fits for use in uses)), options[0])


def _uses(request: dict[str, Any], quotas: dict[str, int], used: Counter[str]) -> list[QuotaUse]:
    spot = bool(request.get("EnableManagedSpotTraining"))
    asked = asked_instances(request)
    uses = [
        (usage_quota_name(kind, spot), used[kind], count) for kind, count in sorted(asked.items())
    ]
    uses.append((TOTAL_INSTANCES, used[TOTAL_KEY], sum(asked.values())))
    return [
        QuotaUse(name, quotas[name], in_use, asks) for name, in_use, asks in uses if name in quotas
    ]


def quota_names(request: dict[str, Any]) -> list[str]:
    """Every quota name a request may draw on."""
    spot = bool(request.get("EnableManagedSpotTraining"))
    kinds = [kind for one in preference_requests(request) for kind in asked_instances(one)]
    return [usage_quota_name(kind, spot) for kind in dict.fromkeys(kinds)] + [TOTAL_INSTANCES]

"""The fault proxy as an account that buys SageMaker training plans: moto's server has no
training-plan API, so the proxy answers SearchTrainingPlanOfferings, CreateTrainingPlan,
DescribeTrainingPlan, ListTrainingPlans, ExtendTrainingPlan and
DescribeTrainingPlanExtensionHistory itself (JSON 1.1, `X-Amz-Target: SageMaker.<Op>`), from
offerings a test sets; everything else goes on to moto.

Each request is checked against botocore's input shape, as the service checks it (a client
that skips its own validation gets AWS's 400 ValidationException), and each answer is shaped as
the output shape says (tests/aws/test_plans_proxy.py holds them to it).

CreateTrainingJob as the service runs instance preferences: the first preference whose type has
capacity (none in ``no_capacity``) is picked, moto gets that type and count (it needs them) and
the job's description reports ResourceConfig.InstancePreferences as sent plus
SelectedInstanceType/SelectedInstanceCount; with no type of capacity the job fails with the
service's capacity reason. A job naming a training plan the account does not hold is refused.
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.aws.proxy import FaultProxy

SAGEMAKER = "sagemaker:"
PLAN_OPERATIONS = (
    "SearchTrainingPlanOfferings",
    "CreateTrainingPlan",
    "DescribeTrainingPlan",
    "ListTrainingPlans",
    "ExtendTrainingPlan",
    "DescribeTrainingPlanExtensionHistory",
)
CREATE_JOB = "sagemaker:CreateTrainingJob"
DESCRIBE_JOB = "sagemaker:DescribeTrainingJob"
PLAN_STATUSES = ("Pending", "Active", "Scheduled", "Expired", "Failed")


class ServiceError(Exception):
    """An error answer, as the service sends it: HTTP 400 and the error's code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def offering(
    offering_id: str,
    instance_type: str,
    count: int,
    start: datetime,
    duration_hours: int,
    upfront_fee: str = "1000.00",
    currency: str = "USD",
    zone: str = "us-east-1a",
    target: str = "training-job",
    ultraserver: tuple[str, int] | None = None,
) -> dict[str, Any]:
    """A TrainingPlanOffering: ``count`` instances of ``instance_type`` in ``zone`` from
    ``start`` for ``duration_hours`` (``ultraserver``: (UltraServerType, UltraServerCount))."""
    capacity: dict[str, Any] = {
        "ReservedCapacityType": "UltraServer" if ultraserver else "Instance",
        "InstanceType": instance_type,
        "InstanceCount": count,
        "AvailabilityZone": zone,
        "DurationHours": duration_hours,
        "DurationMinutes": 0,
        "StartTime": start,
        "EndTime": start + timedelta(hours=duration_hours),
    }
    if ultraserver:
        capacity["UltraServerType"], capacity["UltraServerCount"] = ultraserver
    return {
        "TrainingPlanOfferingId": offering_id,
        "TargetResources": [target],
        "DurationHours": duration_hours,
        "DurationMinutes": 0,
        "UpfrontFee": upfront_fee,
        "CurrencyCode": currency,
        "ReservedCapacityOfferings": [capacity],
    }


class PlansProxy(FaultProxy):
    """A FaultProxy whose account buys training plans from ``offerings`` (set by a test) and
    holds them in ``plans`` (name -> DescribeTrainingPlan's answer)."""

    def __init__(self, upstream: str, account: str, region: str) -> None:
        self.account, self.region = account, region
        self.offerings: list[dict[str, Any]] = []
        self.extension_offerings: dict[str, list[dict[str, Any]]] = {}  # plan name -> offerings
        self.plans: dict[str, dict[str, Any]] = {}
        self.extensions: dict[str, list[dict[str, Any]]] = {}  # plan name -> extensions made
        self.no_capacity: set[str] = set()  # instance types that find no instances
        self.selected: dict[str, tuple[str, int] | None] = {}  # job -> picked preference
        self.sent_preferences: dict[str, list[dict[str, Any]]] = {}  # job -> as sent
        self.received: list[tuple[str, dict[str, Any]]] = []  # (operation, request) answered
        self._plans_lock = threading.Lock()
        super().__init__(upstream)

    # -- what a test sets --------------------------------------------------------------------

    def plan_arn(self, name: str) -> str:
        return f"arn:aws:sagemaker:{self.region}:{self.account}:training-plan/{name}"

    def set_status(self, name: str, status: str) -> None:
        """The plan (and its reserved capacity) Scheduled, Active, Expired, ..."""
        assert status in PLAN_STATUSES, status
        with self._plans_lock:
            plan = self.plans[name]
            plan["Status"] = status
            for capacity in plan["ReservedCapacitySummaries"]:
                capacity["Status"] = status

    def add_extension_offering(
        self, plan: str, offering_id: str, hours: int, upfront_fee: str = "100.00"
    ) -> dict[str, Any]:
        """An offering that extends ``plan`` by ``hours`` from its end."""
        end = self.plans[plan]["EndTime"]
        extension = {
            "TrainingPlanExtensionOfferingId": offering_id,
            "AvailabilityZone": self.plans[plan]["ReservedCapacitySummaries"][0][
                "AvailabilityZone"
            ],
            "StartDate": end,
            "EndDate": end + timedelta(hours=hours),
            "DurationHours": hours,
            "UpfrontFee": upfront_fee,
            "CurrencyCode": self.plans[plan]["CurrencyCode"],
        }
        self.extension_offerings.setdefault(plan, []).append(extension)
        return extension

    # -- FaultProxy's hooks ------------------------------------------------------------------

    def own_answer(self, operation: str, body: bytes) -> tuple[int, bytes] | None:
        name = operation.removeprefix(SAGEMAKER)
        try:
            if operation.startswith(SAGEMAKER) and name in PLAN_OPERATIONS:
                request = json.loads(body or b"{}")
                _validate(name, request)
                with self._plans_lock:
                    self.received.append((name, request))
                    answer = getattr(self, f"_{name}")(request)
                return 200, json.dumps(answer, default=_epoch).encode()
            if operation == CREATE_JOB:
                self._check_plans(json.loads(body))
        except ServiceError as exc:
            return 400, json.dumps({"__type": exc.code, "message": exc.message}).encode()
        return None

    def outgoing(self, operation: str, body: bytes) -> bytes:
        """CreateTrainingJob with preferences: moto gets the picked (else the first) type."""
        if operation != CREATE_JOB:
            return body
        request = json.loads(body)
        resources = request.get("ResourceConfig", {})
        listed = resources.get("InstancePreferences")
        if not listed:
            return body
        pick = next((p for p in listed if p["InstanceType"] not in self.no_capacity), None)
        chosen = pick or listed[0]
        count = int(chosen.get("InstanceCount", 1))
        with self._plans_lock:
            name = request["TrainingJobName"]
            self.sent_preferences[name] = listed
            self.selected[name] = (chosen["InstanceType"], count) if pick else None
        resources["InstanceType"], resources["InstanceCount"] = chosen["InstanceType"], count
        return json.dumps(request).encode()

    def answer_of(self, operation: str, body: bytes, status: int, data: bytes) -> bytes:
        if status != 200 or operation not in (CREATE_JOB, DESCRIBE_JOB):
            return data
        name = json.loads(body)["TrainingJobName"]
        with self._plans_lock:
            if name not in self.sent_preferences:
                return data
            listed, pick = self.sent_preferences[name], self.selected[name]
        if operation == CREATE_JOB:
            if pick is None:  # no preference has capacity: the job fails, as the service's do
                self._fail_for_capacity(name)
            return data
        return json.dumps(_as_selected(json.loads(data), listed, pick)).encode()

    # -- the training-plan API ---------------------------------------------------------------

    def _SearchTrainingPlanOfferings(self, request: dict[str, Any]) -> dict[str, Any]:
        if "TrainingPlanArn" in request:
            plan = self._plan_of_arn(request["TrainingPlanArn"])
            found = self.extension_offerings.get(plan["TrainingPlanName"], [])
            return {"TrainingPlanOfferings": [], "TrainingPlanExtensionOfferings": found}
        return {"TrainingPlanOfferings": [o for o in self.offerings if _matches(o, request)]}

    def _CreateTrainingPlan(self, request: dict[str, Any]) -> dict[str, Any]:
        name, offering_id = request["TrainingPlanName"], request["TrainingPlanOfferingId"]
        if name in self.plans:
            raise ServiceError("ResourceInUse", f"Training plan {name} already exists.")
        bought = next(
            (o for o in self.offerings if o["TrainingPlanOfferingId"] == offering_id), None
        )
        if bought is None:
            raise ServiceError("ResourceNotFound", f"Offering {offering_id} not found.")
        self.plans[name] = self._plan(name, bought)
        return {"TrainingPlanArn": self.plans[name]["TrainingPlanArn"]}

    def _DescribeTrainingPlan(self, request: dict[str, Any]) -> dict[str, Any]:
        return self._plan_named(request["TrainingPlanName"])

    def _ListTrainingPlans(self, request: dict[str, Any]) -> dict[str, Any]:
        wanted = {f["Value"] for f in request.get("Filters", []) if f["Name"] == "Status"}
        listed = [
            _summary(plan)
            for _, plan in sorted(self.plans.items())
            if not wanted or plan["Status"] in wanted
        ]
        start = int(request.get("NextToken") or 0)
        end = start + int(request.get("MaxResults") or 100)
        page: dict[str, Any] = {"TrainingPlanSummaries": listed[start:end]}
        if end < len(listed):
            page["NextToken"] = str(end)
        return page

    def _ExtendTrainingPlan(self, request: dict[str, Any]) -> dict[str, Any]:
        wanted = request["TrainingPlanExtensionOfferingId"]
        for name, listed in self.extension_offerings.items():
            for one in listed:
                if one["TrainingPlanExtensionOfferingId"] == wanted:
                    return {"TrainingPlanExtensions": [self._extend(name, one)]}
        raise ServiceError("ResourceNotFound", f"Extension offering {wanted} not found.")

    def _DescribeTrainingPlanExtensionHistory(self, request: dict[str, Any]) -> dict[str, Any]:
        plan = self._plan_of_arn(request["TrainingPlanArn"])
        return {"TrainingPlanExtensions": self.extensions.get(plan["TrainingPlanName"], [])}

    # -- the account's plans -----------------------------------------------------------------

    def _plan(self, name: str, bought: dict[str, Any]) -> dict[str, Any]:
        capacity = bought["ReservedCapacityOfferings"][0]
        status = "Scheduled" if capacity["StartTime"] > datetime.now(UTC) else "Active"
        summary = {
            "ReservedCapacityArn": f"arn:aws:sagemaker:{self.region}:{self.account}:"
            f"reserved-capacity/{name}-1",
            "ReservedCapacityType": capacity["ReservedCapacityType"],
            "InstanceType": capacity["InstanceType"],
            "TotalInstanceCount": capacity["InstanceCount"],
            "Status": status,
            "AvailabilityZone": capacity["AvailabilityZone"],
            "DurationHours": capacity["DurationHours"],
            "DurationMinutes": capacity["DurationMinutes"],
            "StartTime": capacity["StartTime"],
            "EndTime": capacity["EndTime"],
        }
        plan = {
            "TrainingPlanArn": self.plan_arn(name),
            "TrainingPlanName": name,
            "Status": status,
            "DurationHours": bought["DurationHours"],
            "DurationMinutes": bought["DurationMinutes"],
            "StartTime": capacity["StartTime"],
            "EndTime": capacity["EndTime"],
            "UpfrontFee": bought["UpfrontFee"],
            "CurrencyCode": bought["CurrencyCode"],
            "TotalInstanceCount": capacity["InstanceCount"],
            "AvailableInstanceCount": capacity["InstanceCount"],
            "InUseInstanceCount": 0,
            "TargetResources": list(bought["TargetResources"]),
            "ReservedCapacitySummaries": [summary],
        }
        if "UltraServerType" in capacity:
            summary["UltraServerType"] = capacity["UltraServerType"]
            summary["UltraServerCount"] = plan["TotalUltraServerCount"] = capacity[
                "UltraServerCount"
            ]
        return plan

    def _extend(self, name: str, extension_offering: dict[str, Any]) -> dict[str, Any]:
        plan = self.plans[name]
        plan["EndTime"] = extension_offering["EndDate"]
        plan["DurationHours"] += extension_offering["DurationHours"]
        made = {
            **extension_offering,
            "ExtendedAt": datetime.now(UTC),
            "Status": "Active",
            "PaymentStatus": "Paid",
        }
        self.extensions.setdefault(name, []).append(made)
        self.extension_offerings[name].remove(extension_offering)
        return made

    def _plan_named(self, name: str) -> dict[str, Any]:
        if name not in self.plans:
            raise ServiceError("ResourceNotFound", f"Training plan {name} not found.")
        return self.plans[name]

    def _plan_of_arn(self, arn: str) -> dict[str, Any]:
        found = next((p for p in self.plans.values() if p["TrainingPlanArn"] == arn), None)
        if found is None:
            raise ServiceError("ResourceNotFound", f"Training plan {arn} not found.")
        return found

    def _check_plans(self, request: dict[str, Any]) -> None:
        """A job may run only on training plans the account holds."""
        resources = request.get("ResourceConfig", {})
        named = [resources.get("TrainingPlanArn")] + [
            arn
            for preference in resources.get("InstancePreferences") or []
            for arn in preference.get("TrainingPlanArns") or []
        ]
        with self._plans_lock:
            held = {plan["TrainingPlanArn"] for plan in self.plans.values()}
        for arn in filter(None, named):
            if arn not in held:
                raise ServiceError(
                    "ValidationException",
                    f"The training plan {arn} is not available to this account in {self.region}.",
                )

    def _fail_for_capacity(self, name: str) -> None:
        from tests.aws.capacity_proxy import CAPACITY_REASON
        from tests.aws.conftest import training_job

        job = training_job(name)
        job.training_job_status = "Failed"
        job.failure_reason = CAPACITY_REASON


def _validate(operation: str, request: dict[str, Any]) -> None:
    """The request against botocore's input shape, as the service checks it."""
    from botocore.validate import ParamValidator

    shape = _model().operation_model(operation).input_shape
    report = ParamValidator().validate(request, shape)
    if report.has_errors():
        raise ServiceError("ValidationException", report.generate_report())


def _model():  # type: ignore[no-untyped-def]
    import botocore.session

    return botocore.session.get_session().get_service_model("sagemaker")


def _matches(offered: dict[str, Any], request: dict[str, Any]) -> bool:
    """Whether an offering answers a search: its type, count, duration, window and target."""
    capacity = offered["ReservedCapacityOfferings"][0]
    after, before = request.get("StartTimeAfter"), request.get("EndTimeBefore")
    checks = (
        request.get("InstanceType") in (None, capacity["InstanceType"]),
        request.get("InstanceCount") in (None, capacity["InstanceCount"]),
        request.get("UltraServerType") in (None, capacity.get("UltraServerType")),
        request.get("DurationHours") in (None, offered["DurationHours"]),
        after is None or capacity["StartTime"].timestamp() >= float(after),
        before is None or capacity["EndTime"].timestamp() <= float(before),
        set(request.get("TargetResources") or offered["TargetResources"])
        & set(offered["TargetResources"]),
    )
    return all(checks)


def _summary(plan: dict[str, Any]) -> dict[str, Any]:
    """ListTrainingPlans' summary of a plan: the members TrainingPlanSummary has."""
    members = _model().shape_for("TrainingPlanSummary").members
    return {key: value for key, value in plan.items() if key in members}


def _as_selected(
    described: dict[str, Any], listed: list[dict[str, Any]], pick: tuple[str, int] | None
) -> dict[str, Any]:
    """A job's description as the service reports one started from preferences: the
    preferences as sent and its selection, no InstanceType/InstanceCount of its own."""
    resources = described["ResourceConfig"]
    for key in ("InstanceType", "InstanceCount"):
        resources.pop(key, None)
    resources["InstancePreferences"] = listed
    if pick is not None:
        resources["SelectedInstanceType"], resources["SelectedInstanceCount"] = pick
    return described


def _epoch(value: object) -> float:
    """Timestamps as JSON 1.1 writes them: seconds since the epoch."""
    if isinstance(value, datetime):
        return value.timestamp()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")

"""The plan as one typed value: produced by `sagelaunch.sdk`, read by commands, services, `aws`,
`local` and the plan file. ``Plan.as_json()`` is what `plan --output json` prints.

The request stays the AWS CreateTrainingJob parameters verbatim (a dict): it *is* the API's shape,
and botocore's service model validates it. Everything around it is typed here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from sagelaunch import naming
from sagelaunch.errors import Problem
from sagelaunch.strict import Strict

SCHEMA_VERSION: Literal["sagelaunch-plan/2"] = "sagelaunch-plan/2"
WarningSource = Literal["config", "sdk", "tool"]


class _Model(Strict):
    model_config = ConfigDict(populate_by_name=True)  # merged with Strict's


class EstimatorInfo(_Model):
    """The SageMaker SDK estimator that produced the request, as a user would construct it."""

    class_name: str = Field(alias="class")
    kwargs: dict[str, Any]
    set_hyperparameters: dict[str, Any] | None = None
    fit_inputs: dict[str, Any] = Field(default_factory=dict)
    fit_kwargs: dict[str, Any] | None = None  # fit(experiment_config=...)


class Cost(_Model):
    instance_type: str
    instance_count: int
    hourly_usd: float | None
    max_usd: float | None
    spot: bool
    prices_as_of: str
    price_region: str
    price_source: str | None = None  # where hourly_usd comes from, with its date or age
    note: str | None = None
    max_wait_s: int | None = None
    groups: list[dict[str, Any]] | None = None  # heterogeneous: per-group price and hosts

    def as_json(self) -> dict[str, Any]:
        """The keys that say something: prices stay even when unknown (null)."""
        data = self.model_dump(mode="json")
        return {k: v for k, v in data.items() if v is not None or "usd" in k}


class Topology(_Model):
    hosts: int
    processes_per_host: int
    launcher: str
    world_size: int
    mesh: dict[str, int] | None = None  # dp_replicate × dp_shard × pp × tp, when degrees are set
    groups: list[dict[str, Any]] | None = None  # heterogeneous: every group, which one trains
    # Why processes_per_host (and so world_size) is not known: the instance type is not in the
    # catalog, and the container starts one process per accelerator it finds.
    unknown: str | None = None


class Upload(_Model):
    """The code bundle: what goes to S3, and its content-addressed S3 location."""

    files: list[str]
    bytes: int
    compressed_bytes: int
    sha256: str
    s3_uri: str


class PlanWarning(_Model):
    """A warning and who raised it: the config's rules (with its place), the SDK, or sagelaunch."""

    source: WarningSource
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None
    path: str | None = None

    @classmethod
    def from_problem(cls, problem: Problem) -> PlanWarning:
        return cls(
            source="config",
            message=problem.message,
            file=problem.file,
            line=problem.line,
            col=problem.col,
            path=problem.path or None,
        )

    def __str__(self) -> str:
        if self.source == "sdk":
            return f"sagemaker SDK: {self.message}"
        if self.file is None:
            return self.message
        where = f"{self.file}:{self.line}:{self.col}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class TuningPlan(_Model):
    """A config's `tuning:` block as the SDK's HyperparameterTuner sends it (`tune`)."""

    job_name: str
    tuner: dict[str, Any]  # class, kwargs, hyperparameter_ranges (as a script would write them)
    request: dict[str, Any]  # CreateHyperParameterTuningJob parameters, exactly as sent

    def renamed(self, job_name: str) -> TuningPlan:
        request = naming.with_tuning_job_name(self.request, job_name)
        return self.model_copy(update={"job_name": job_name, "request": request})

    def for_training_job(self, old: str, new: str) -> TuningPlan:
        """This tuning plan in a plan whose training job is renamed from ``old`` to ``new``:
        a TensorFlow model_dir derived from the training job's name moves with it (in the
        request and in the tuner's estimator_kwargs); nothing else depends on it."""
        request = naming.with_training_job_name(self.request, old, new)
        tuner = self.tuner
        model_dir = (tuner.get("estimator_kwargs") or {}).get("model_dir")
        if isinstance(model_dir, str):
            moved = naming.moved_model_dir(model_dir, old, new)
            tuner = {**tuner, "estimator_kwargs": {**tuner["estimator_kwargs"], "model_dir": moved}}
        return self.model_copy(update={"request": request, "tuner": tuner})


class QueuedPlan(_Model):
    """The job sent to an AWS Batch job queue (`compute.queue`, `submit --queue`): the queue's
    settings as the config wrote them, and the SubmitServiceJob request that carries the plan's
    CreateTrainingJob request (queue_request)."""

    settings: dict[str, Any]  # compute.queue: name, priority, share, quota_share, ...
    request: dict[str, Any]  # SubmitServiceJob parameters, exactly as sent

    @classmethod
    def of(cls, settings: dict[str, Any], training_request: dict[str, Any]) -> QueuedPlan:
        from sagelaunch.queue_request import submit_request

        return cls(settings=settings, request=submit_request(settings, training_request))

    @property
    def queue(self) -> str:
        return str(self.settings["name"])


class Plan(_Model):
    """Everything `plan` shows and `submit` sends."""

    schema_version: Literal["sagelaunch-plan/2"] = SCHEMA_VERSION
    job_name: str
    region: str
    estimator: EstimatorInfo
    request: dict[str, Any]
    cost: Cost
    topology: Topology
    upload: Upload | None = None
    warnings: list[PlanWarning] = Field(default_factory=list)
    tuning: TuningPlan | None = None  # only for a config with a `tuning:` block
    queue: QueuedPlan | None = None  # only for a job sent to a job queue

    def renamed(self, job_name: str) -> Plan:
        """This plan under another job name (equal to planning again with that name)."""
        request = naming.with_job_name(self.request, job_name)
        renamed = self.model_copy(update={"job_name": job_name, "request": request})
        return renamed.queued(self.queue.settings) if self.queue else renamed

    def queued(self, settings: dict[str, Any] | None) -> Plan:
        """This plan sent to the job queue of ``settings`` (None: created directly)."""
        queue = QueuedPlan.of(settings, self.request) if settings else None
        return self.model_copy(update={"queue": queue})

    @property
    def sdk_warnings(self) -> list[PlanWarning]:
        return [w for w in self.warnings if w.source == "sdk"]

    def redacted(self) -> Plan:
        """For display: secret-looking environment values masked (the file and AWS get them)."""
        from sagelaunch.redact import redact

        return Plan.model_validate(redact(self.as_json()))

    def as_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", by_alias=True)
        data["estimator"] = {k: v for k, v in data["estimator"].items() if v is not None}
        data["cost"] = self.cost.as_json()
        for optional in ("groups", "unknown"):  # plans without them keep their goldens
            if data["topology"].get(optional) is None:
                data["topology"].pop(optional, None)
        data["warnings"] = [{k: v for k, v in w.items() if v is not None} for w in data["warnings"]]
        for optional in ("tuning", "queue"):  # plans without them keep their keys (and goldens)
            if data[optional] is None:
                del data[optional]
        return data

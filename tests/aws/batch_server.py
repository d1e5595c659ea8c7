"""A stand-in for AWS Batch's service jobs (AWS Batch for SageMaker training jobs) on loopback:
moto serves Batch's container jobs but not SubmitServiceJob and its kin, so this server speaks
Batch's REST-JSON protocol itself (each operation's requestUri from botocore's `batch` model,
every request body checked against the operation's input shape, errors with x-amzn-ErrorType
as AWS sends them) for the operations a client of service jobs calls: service environments,
job queues (with fair-share scheduling policies), SubmitServiceJob, DescribeServiceJob,
ListServiceJobs and TerminateServiceJob.

The point of it is the queue: a test decides when instances are free (``capacity``) and the
server then starts the waiting jobs in Batch's order, each as a real CreateTrainingJob in moto
(``moto_url``); a started service job follows its training job's status there. Nothing moves by
itself: state advances only when a Describe/List arrives or a test calls a method, so tests are
deterministic without sleeps.

Usage: ``server = BatchServer(moto_url).start()``, ``queue = sagemaker_queue(server)``, point
botocore at ``server.url`` (AWS_ENDPOINT_URL_BATCH); ``server.capacity(4)`` lets jobs start,
``server.requests`` holds (operation, body) of each request.
"""

from __future__ import annotations

import fnmatch
import functools
import itertools
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SAGEMAKER_TRAINING = "SAGEMAKER_TRAINING"
WAITING = ("SUBMITTED", "PENDING", "RUNNABLE")
STARTED = ("SCHEDULED", "STARTING", "RUNNING")
ENDED = ("SUCCEEDED", "FAILED")
FROM_SAGEMAKER = "Received status from SageMaker:"  # the prefix of a status reason Batch copies
COMPLETED = f"{FROM_SAGEMAKER} Training job completed"  # as in Batch's service-job event sample
PREEMPTED = "Preempted"
IMAGES = "763104351884.dkr.ecr.us-east-1.amazonaws.com"  # the AWS Deep Learning Containers
JOB_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")  # SubmitServiceJob's documented jobName
# SageMaker's training-job states while InProgress, as Batch maps them (service-job-status.html):
# Pending is SCHEDULED, Downloading is STARTING; the rest of InProgress is RUNNING.
IN_PROGRESS = {
    "Pending": "SCHEDULED",
    "Starting": "STARTING",
    "Downloading": "STARTING",
    "DownloadingTrainingImage": "STARTING",
}
LIST_FILTERS = (
    "JOB_NAME",
    "SHARE_IDENTIFIER",
    "QUOTA_SHARE_NAME",
    "BEFORE_CREATED_AT",
    "AFTER_CREATED_AT",
)


class ApiError(Exception):
    """An answer as AWS sends an error over rest-json: status, x-amzn-ErrorType and body."""

    def __init__(self, message: str, code: str = "ClientException", status: int = 400) -> None:
        super().__init__(message)
        self.code, self.status = code, status

    @property
    def body(self) -> dict[str, str]:
        return {"__type": self.code, "message": str(self)}


@functools.cache
def _model(service: str) -> Any:
    import botocore.session

    return botocore.session.get_session().get_service_model(service)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _problem(shape: Any, params: Any) -> str | None:
    """What is wrong with ``params`` for ``shape``: botocore's own client-side check (types,
    required members, unknown members), then the enums, which that check leaves to the
    service."""
    from botocore.validate import ParamValidator

    report = ParamValidator().validate(params, shape)
    if report.has_errors():
        return f"Parameter validation failed:\n{report.generate_report()}"
    return _bad_enum(shape, params, shape.name)


def _bad_enum(shape: Any, value: Any, where: str) -> str | None:
    if shape.type_name == "structure":
        found = (
            _bad_enum(m, value[n], f"{where}.{n}") for n, m in shape.members.items() if n in value
        )
    elif shape.type_name == "list":
        found = (_bad_enum(shape.member, v, f"{where}[{i}]") for i, v in enumerate(value))
    elif shape.type_name == "map":
        found = (_bad_enum(shape.value, v, f"{where}.{k}") for k, v in value.items())
    elif getattr(shape, "enum", None) and value not in shape.enum:
        return f"Invalid value {value!r} for {where}: must be one of {', '.join(shape.enum)}"
    else:
        return None
    return next((problem for problem in found if problem), None)


def _page(items: list[Any], body: dict[str, Any], default: int = 100) -> tuple[list[Any], dict]:
    """One page of ``items`` by maxResults and nextToken (an offset: Batch's are opaque)."""
    size = body.get("maxResults") or default
    if not 1 <= size <= 100:
        raise ApiError("maxResults must be between 1 and 100")
    try:
        start = int(body.get("nextToken") or 0)
    except ValueError:
        raise ApiError(f"Invalid nextToken: {body['nextToken']}") from None
    more = {"nextToken": str(start + size)} if start + size < len(items) else {}
    return items[start : start + size], more


@dataclass(eq=False)  # a job is itself: `in` and index() compare identities
class ServiceJob:
    """A submitted service job: the request as sent and what the queue has made of it."""

    id: str
    arn: str
    request: dict[str, Any]
    payload: dict[str, Any]  # the CreateTrainingJob request in serviceRequestPayload
    queue: dict[str, Any]  # the queue's DescribeJobQueues detail
    seq: int  # submit order: ties of priority go to the earlier job
    created_at: int
    status: str = "SUBMITTED"
    status_reason: str | None = None
    scheduled_at: int | None = None
    started_at: int | None = None
    stopped_at: int | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    training_job: str | None = None  # the name of the running attempt's training job
    tries: int = 0  # attempts that count against retryStrategy.attempts
    preempted: list[dict[str, Any]] = field(default_factory=list)
    is_terminated: bool = False

    @property
    def name(self) -> str:
        return str(self.request["jobName"])

    @property
    def share(self) -> str | None:
        return self.request.get("shareIdentifier")

    @property
    def priority(self) -> int:
        return int(self.request.get("schedulingPriority", 0))

    @property
    def instances(self) -> int:
        config = self.payload.get("ResourceConfig") or {}
        groups = sum(g.get("InstanceCount", 0) for g in config.get("InstanceGroups", []))
        return int(config.get("InstanceCount") or groups or 1)

    def latest_attempt(self) -> dict[str, Any] | None:
        if not self.attempts:
            return None
        return {"serviceResourceId": self.attempts[-1]["serviceResourceId"]}

    def summary(self) -> dict[str, Any]:
        """The job as ListServiceJobs shows it (the model's ServiceJobSummary)."""
        fields = {
            "latestAttempt": self.latest_attempt(),
            "capacityUsage": [{"capacityUnit": "NUM_INSTANCES", "quantity": self.instances}],
            "createdAt": self.created_at,
            "jobArn": self.arn,
            "jobId": self.id,
            "jobName": self.name,
            "scheduledAt": self.scheduled_at,
            "serviceJobType": self.request["serviceJobType"],
            "shareIdentifier": self.share,
            "quotaShareName": self.request.get("quotaShareName"),
            "status": self.status,
            "statusReason": self.status_reason,
            "startedAt": self.started_at,
            "stoppedAt": self.stopped_at,
            "isTerminated": self.is_terminated,
        }
        return {k: v for k, v in fields.items() if v is not None}

    def detail(self) -> dict[str, Any]:
        """The job as DescribeServiceJob shows it. startedAt is a required member of that
        output shape (unlike the summary's): before the job starts it reads 0."""
        request = self.request
        copied = ("retryStrategy", "schedulingPriority", "preemptionConfiguration", "tags")
        fields = {
            **self.summary(),
            **{name: request[name] for name in copied if name in request},
            "attempts": self.attempts,
            "jobQueue": self.queue["jobQueueArn"],
            "serviceRequestPayload": request["serviceRequestPayload"],
            "startedAt": self.started_at or 0,
            "timeoutConfig": request.get("timeoutConfig"),
        }
        if self.preempted:
            fields["preemptionSummary"] = {
                "preemptedAttemptCount": len(self.preempted),
                "recentPreemptedAttempts": self.preempted,
            }
        return {k: v for k, v in fields.items() if v is not None}


@dataclass
class Hold:
    """One held request (BatchServer.hold): ``reached`` once it arrived (and, when ``served``,
    was served); the thread answers once ``release`` is set, to a client that is gone."""

    served: bool
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def answer(self, serve: Any) -> tuple[int, dict[str, Any], str | None]:
        answer = serve() if self.served else (503, {"message": "held"}, "ServiceUnavailable")
        self.reached.set()
        self.release.wait(60)
        return answer


class BatchServer(ThreadingHTTPServer):
    """Batch's service-job operations on 127.0.0.1 (port 0), starting training jobs in moto."""

    daemon_threads = True

    def __init__(
        self, moto_url: str, account: str = "123456789012", region: str = "us-east-1"
    ) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.moto_url, self.account, self.region = moto_url, account, region
        self.lock = threading.RLock()  # handler threads and the test's calls share the state
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.denied: set[str] = set()
        self.free = 0  # instances free for service jobs: none until a test says so
        self.environments: dict[str, dict[str, Any]] = {}
        self.policies: dict[str, dict[str, Any]] = {}
        self.queues: dict[str, dict[str, Any]] = {}
        self.jobs: dict[str, ServiceJob] = {}
        self.tokens: dict[str, tuple[dict[str, Any], dict[str, str]]] = {}
        self.holds: dict[str, Hold] = {}
        self._sagemaker_client: Any = None
        self._thread: threading.Thread | None = None
        self.routes = {
            _model("batch").operation_model(name).http["requestUri"]: name
            for name in _model("batch").operation_names
        }
        self.operations = {
            "CreateServiceEnvironment": self._create_environment,
            "DescribeServiceEnvironments": self._describe_environments,
            "CreateSchedulingPolicy": self._create_policy,
            "CreateJobQueue": self._create_queue,
            "DescribeJobQueues": self._describe_queues,
            "UpdateJobQueue": self._update_queue,
            "SubmitServiceJob": self._submit,
            "DescribeServiceJob": self._describe_job,
            "ListServiceJobs": self._list_jobs,
            "TerminateServiceJob": self._terminate,
        }

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> BatchServer:
        self._thread = threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True)
        self._thread.start()
        return self

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client killed while its request was held is gone: nothing to report."""
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)

    def stop(self) -> None:
        if self._thread is not None:  # shutdown() waits for a serve_forever that never ran
            self.shutdown()
        self.server_close()

    # The tests' controls.

    def capacity(self, instances: int) -> None:
        """Set how many instances are free now (a started job takes its InstanceCount, an
        ended one gives them back); the waiting jobs that fit start on the next look."""
        with self.lock:
            self.free = instances

    def deny(self, operation: str) -> None:
        """Answer ``operation`` 403 AccessDeniedException, as for a role without the action."""
        assert operation in _model("batch").operation_names, operation
        with self.lock:
            self.denied.add(operation)

    def allow(self, operation: str) -> None:
        with self.lock:
            self.denied.discard(operation)

    def hold(self, operation: str, served: bool) -> Hold:
        """Hold the next ``operation`` request: answered never (until released), after it was
        served (``served``: its effect made, the answer lost) or before (no effect). A test
        kills the client while it waits (``Hold.reached``), then releases the server thread."""
        assert operation in self.operations, operation
        held = Hold(served)
        with self.lock:
            self.holds[operation] = held
        return held

    def place(self, job_id: str) -> int | None:
        """The job's 1-based place among the waiting jobs of its queue, in the order they will
        start (None once it has started or ended)."""
        with self.lock:
            job = self._job(job_id)
            waiting = self._queue_order(job.queue)
            return waiting.index(job) + 1 if job in waiting else None

    def fail_before_start(self, job_id: str, reason: str) -> None:
        """End a waiting job FAILED with ``reason``, as Batch does to a job it cannot start."""
        with self.lock:
            job = self._job(job_id)
            assert job.status in WAITING, f"{job_id} is {job.status}, not waiting"
            self._end(job, "FAILED", reason)

    def preempt(self, job_id: str) -> None:
        """Preempt a started job: its training job is stopped and it waits RUNNABLE again, or
        ends FAILED once preemptionConfiguration.preemptionRetriesBeforeTermination is spent
        (unset: requeued without end, as documented)."""
        with self.lock:
            job = self._job(job_id)
            assert job.status in STARTED, f"{job_id} is {job.status}, not started"
            self._stop_training_job(job)
            self._close_attempt(job, PREEMPTED)
            job.preempted.append(job.attempts[-1])
            limit = job.request.get("preemptionConfiguration", {}).get(
                "preemptionRetriesBeforeTermination"
            )
            if limit is not None and len(job.preempted) > limit:
                self._end(job, "FAILED", "Preemption retries exhausted")
            else:
                job.status = "RUNNABLE"

    def schedule(self) -> None:
        """One look by the scheduler (each Describe/List makes one): started jobs follow their
        training jobs, submitted ones become RUNNABLE, and the RUNNABLE ones that fit start."""
        with self.lock:
            for job in list(self.jobs.values()):
                if job.status in STARTED:
                    self._follow(job)
                elif job.status in ("SUBMITTED", "PENDING"):
                    job.status = "RUNNABLE"
            self._start_waiting()

    # Scheduling.

    def _queue_order(self, queue: dict[str, Any]) -> list[ServiceJob]:
        """The queue's waiting jobs in start order: schedulingPriority (higher first), then
        submit order; on a fair-share queue, in turns over the share identifiers, the share
        with the fewest instances running first."""
        waiting = sorted(
            (j for j in self.jobs.values() if j.queue is queue and j.status in WAITING),
            key=lambda j: (-j.priority, j.seq),
        )
        if "schedulingPolicyArn" not in queue:
            return waiting
        shares: dict[str | None, list[ServiceJob]] = {}
        for job in waiting:
            shares.setdefault(job.share, []).append(job)
        by_use = sorted(shares, key=lambda share: self._running(queue, share))
        turns = itertools.zip_longest(*(shares[share] for share in by_use))
        return [job for turn in turns for job in turn if job]

    def _running(self, queue: dict[str, Any], share: str | None) -> int:
        started = (j for j in self.jobs.values() if j.queue is queue and j.status in STARTED)
        return sum(j.instances for j in started if j.share == share)

    def _start_waiting(self) -> None:
        """Start RUNNABLE jobs in order, queues of higher priority first, while they fit. The
        first job that does not fit holds back the ones behind it in its service environment
        (no backfill by smaller jobs: a queue's order is what a test of places relies on)."""
        queues = sorted(self.queues.values(), key=lambda q: -q["priority"])
        held: list[dict[str, Any]] = []  # the environments whose next job did not fit
        for job in [j for q in queues for j in self._queue_order(q)]:
            environment = self._environment_of(job.queue)
            if any(environment is e for e in held):
                continue
            in_use = sum(
                j.instances
                for j in self.jobs.values()
                if j.status in STARTED and self._environment_of(j.queue) is environment
            )
            limit = environment["capacityLimits"][0].get("maxCapacity", 0)
            if job.instances > self.free or in_use + job.instances > limit:
                held.append(environment)
                continue
            self._start(job)

    def _environment_of(self, queue: dict[str, Any]) -> dict[str, Any]:
        first = min(queue["serviceEnvironmentOrder"], key=lambda entry: entry["order"])
        return self._environment(first["serviceEnvironment"])

    def _start(self, job: ServiceJob) -> None:
        """Create the job's training job in moto: the payload as sent, named by its
        TrainingJobName (or the job's name), a later attempt's name suffixed with its
        number (SageMaker refuses a name twice)."""
        from botocore.exceptions import ClientError

        name = job.payload.get("TrainingJobName") or job.name
        if job.attempts:
            suffix = f"-{len(job.attempts) + 1}"
            name = name[: 63 - len(suffix)] + suffix
        try:
            created = self._sagemaker().create_training_job(
                **{**job.payload, "TrainingJobName": name}
            )
        except ClientError as error:
            refused = error.response["Error"]
            self._end(job, "FAILED", f"{FROM_SAGEMAKER}{refused['Code']}: {refused['Message']}")
            return
        now = _now_ms()
        resource = {"name": "TrainingJobArn", "value": created["TrainingJobArn"]}
        job.attempts.append({"serviceResourceId": resource, "startedAt": now})
        job.training_job, job.status, job.scheduled_at = name, "SCHEDULED", now
        job.status_reason = None
        self.free -= job.instances

    def _follow(self, job: ServiceJob) -> None:
        """Take the status of the job's training job as moto describes it."""
        from botocore.exceptions import ClientError

        try:
            training = self._sagemaker().describe_training_job(TrainingJobName=job.training_job)
        except ClientError as error:  # moto was reset under the test
            self._attempt_failed(job, f"{FROM_SAGEMAKER}{error.response['Error']['Message']}")
            return
        status = training["TrainingJobStatus"]
        if status == "InProgress":
            job.status = IN_PROGRESS.get(training.get("SecondaryStatus", ""), "RUNNING")
            if job.status != "SCHEDULED":
                job.started_at = job.started_at or _now_ms()
        elif status == "Completed":
            self._close_attempt(job, COMPLETED)
            self._end(job, "SUCCEEDED", COMPLETED)
        elif status in ("Failed", "Stopped"):
            reason = training.get("FailureReason") or f"Training job {status.lower()}"
            self._attempt_failed(job, f"{FROM_SAGEMAKER}{reason}")

    def _attempt_failed(self, job: ServiceJob, reason: str) -> None:
        """An attempt's training job failed: requeue the job if capacity was short (without
        counting the try, as Batch documents) or if retryStrategy allows another attempt for
        this reason; else the job fails."""
        self._close_attempt(job, reason)
        if "CapacityError" not in reason:
            job.tries += 1
        strategy = job.request.get("retryStrategy", {"attempts": 1})
        if "CapacityError" in reason or (
            job.tries < strategy["attempts"] and _action(strategy, reason) == "RETRY"
        ):
            job.status, job.status_reason = "RUNNABLE", reason
        else:
            self._end(job, "FAILED", reason)

    def _close_attempt(self, job: ServiceJob, reason: str) -> None:
        """The running attempt's end: its instances come back."""
        attempt = job.attempts[-1]
        attempt["stoppedAt"], attempt["statusReason"] = _now_ms(), reason
        job.training_job = None
        self.free += job.instances

    def _end(self, job: ServiceJob, status: str, reason: str) -> None:
        if job.training_job:
            self._close_attempt(job, reason)
        job.status, job.status_reason, job.stopped_at = status, reason, _now_ms()
        if job.attempts:
            job.started_at = job.started_at or job.attempts[0]["startedAt"]

    def _stop_training_job(self, job: ServiceJob) -> None:
        """StopTrainingJob, which moto's server does not implement: moto's job ends Stopped."""
        from tests.aws.conftest import training_job

        try:
            stopped = training_job(job.training_job or "")
        except KeyError:
            return
        stopped.training_job_status = stopped.secondary_status = "Stopped"

    def _sagemaker(self) -> Any:
        if self._sagemaker_client is None:
            import boto3
            from botocore.config import Config

            self._sagemaker_client = boto3.client(
                "sagemaker",
                endpoint_url=self.moto_url,
                region_name=self.region,
                aws_access_key_id="testing",
                aws_secret_access_key="testing",
                config=Config(retries={"total_max_attempts": 1}),  # a refusal is an answer
            )
        return self._sagemaker_client

    # The wire.

    def answer(self, path: str, raw: bytes) -> tuple[int, dict[str, Any], str | None]:
        """(HTTP status, JSON body, x-amzn-ErrorType) for one POST."""
        operation = self.routes.get(path.split("?")[0])
        if operation is None:
            error = ApiError(f"No operation at {path}", "UnknownOperationException", 404)
            return error.status, error.body, error.code
        try:
            body = json.loads(raw or b"{}")
        except ValueError as bad:
            error = ApiError(f"Request body is not JSON: {bad}", "SerializationException")
            return error.status, error.body, error.code
        with self.lock:
            held = self.holds.pop(operation, None)
        if held is not None:
            return held.answer(lambda: self._served(operation, body))
        return self._served(operation, body)

    def _served(
        self, operation: str, body: dict[str, Any]
    ) -> tuple[int, dict[str, Any], str | None]:
        with self.lock:
            self.requests.append((operation, body))
            try:
                return 200, self._operate(operation, body), None
            except ApiError as error:
                return error.status, error.body, error.code

    def _operate(self, operation: str, body: dict[str, Any]) -> dict[str, Any]:
        if operation in self.denied:
            raise ApiError(
                f"User: arn:aws:iam::{self.account}:user/testing is not authorized to perform: "
                f"batch:{operation} because no identity-based policy allows the "
                f"batch:{operation} action",
                "AccessDeniedException",
                403,
            )
        if operation not in self.operations:
            raise ApiError(
                f"tests/aws/batch_server.py does not serve {operation}", "NotImplemented", 501
            )
        problem = _problem(_model("batch").operation_model(operation).input_shape, body)
        if problem:
            raise ApiError(problem)
        return self.operations[operation](body)

    def _arn(self, kind: str, name: str) -> str:
        return f"arn:aws:batch:{self.region}:{self.account}:{kind}/{name}"

    # Service environments, scheduling policies and queues.

    def _environment(self, ref: str) -> dict[str, Any]:
        for environment in self.environments.values():
            if ref in (environment["serviceEnvironmentName"], environment["serviceEnvironmentArn"]):
                return environment
        raise ApiError(f"ServiceEnvironment {ref} not found.")

    def _create_environment(self, body: dict[str, Any]) -> dict[str, Any]:
        name = body["serviceEnvironmentName"]
        if name in self.environments:
            raise ApiError("Object already exists")
        for limit in body["capacityLimits"]:
            if limit.get("capacityUnit") != "NUM_INSTANCES":
                raise ApiError(
                    f"capacityUnit {limit.get('capacityUnit')} is not served by this stand-in "
                    "(NUM_INSTANCES only)"
                )
        environment = {
            "serviceEnvironmentName": name,
            "serviceEnvironmentArn": self._arn("service-environment", name),
            "serviceEnvironmentType": body["serviceEnvironmentType"],
            "state": body.get("state", "ENABLED"),
            "status": "VALID",
            "capacityLimits": body["capacityLimits"],
            "tags": body.get("tags", {}),
        }
        self.environments[name] = environment
        return {k: environment[k] for k in ("serviceEnvironmentName", "serviceEnvironmentArn")}

    def _describe_environments(self, body: dict[str, Any]) -> dict[str, Any]:
        wanted = body.get("serviceEnvironments")
        found = list(self.environments.values())
        if wanted:
            found = [
                e
                for e in found
                if {*wanted} & {e["serviceEnvironmentName"], e["serviceEnvironmentArn"]}
            ]
        page, more = _page(found, body)
        return {"serviceEnvironments": page, **more}

    def _create_policy(self, body: dict[str, Any]) -> dict[str, Any]:
        name = body["name"]
        arn = self._arn("scheduling-policy", name)
        if arn in self.policies:
            raise ApiError("Object already exists")
        self.policies[arn] = {"name": name, "arn": arn, **body}
        return {"name": name, "arn": arn}

    def _queue(self, ref: str) -> dict[str, Any]:
        for queue in self.queues.values():
            if ref in (queue["jobQueueName"], queue["jobQueueArn"]):
                return queue
        raise ApiError(f"JobQueue {ref} not found.")

    def _check_queue(self, queue: dict[str, Any]) -> None:
        """A queue's environments as Batch requires them for its type (one kind, not both)."""
        services, computes = queue["serviceEnvironmentOrder"], queue["computeEnvironmentOrder"]
        if queue["jobQueueType"] == SAGEMAKER_TRAINING:
            if not services or computes:
                raise ApiError(
                    "A job queue of type SAGEMAKER_TRAINING takes serviceEnvironmentOrder "
                    "and no computeEnvironmentOrder"
                )
            for entry in services:
                self._environment(entry["serviceEnvironment"])
        elif not computes or services:
            raise ApiError(
                f"A job queue of type {queue['jobQueueType']} takes computeEnvironmentOrder "
                "and no serviceEnvironmentOrder"
            )
        policy = queue.get("schedulingPolicyArn")
        if policy is not None and policy not in self.policies:
            raise ApiError(f"SchedulingPolicy {policy} not found.")

    def _create_queue(self, body: dict[str, Any]) -> dict[str, Any]:
        name = body["jobQueueName"]
        if name in self.queues:
            raise ApiError("Object already exists")
        inferred = SAGEMAKER_TRAINING if body.get("serviceEnvironmentOrder") else "ECS"
        queue = {
            "jobQueueName": name,
            "jobQueueArn": self._arn("job-queue", name),
            "state": body.get("state", "ENABLED"),
            "status": "VALID",
            "statusReason": "JobQueue Healthy",
            "priority": body["priority"],
            # required in DescribeJobQueues' output shape, so a service queue shows []
            "computeEnvironmentOrder": body.get("computeEnvironmentOrder", []),
            "serviceEnvironmentOrder": body.get("serviceEnvironmentOrder", []),
            "jobQueueType": body.get("jobQueueType", inferred),
            "tags": body.get("tags", {}),
            "jobStateTimeLimitActions": body.get("jobStateTimeLimitActions", []),
        }
        if "schedulingPolicyArn" in body:
            queue["schedulingPolicyArn"] = body["schedulingPolicyArn"]
        self._check_queue(queue)
        self.queues[name] = queue
        return {"jobQueueName": name, "jobQueueArn": queue["jobQueueArn"]}

    def _describe_queues(self, body: dict[str, Any]) -> dict[str, Any]:
        wanted = body.get("jobQueues")
        found = list(self.queues.values())
        if wanted:
            found = [q for q in found if {*wanted} & {q["jobQueueName"], q["jobQueueArn"]}]
        page, more = _page(found, body)
        return {"jobQueues": page, **more}

    def _update_queue(self, body: dict[str, Any]) -> dict[str, Any]:
        queue = self._queue(body["jobQueue"])
        changed = {**queue, **{k: v for k, v in body.items() if k != "jobQueue"}}
        self._check_queue(changed)
        queue.update(changed)  # in place: the jobs hold their queue
        return {"jobQueueName": queue["jobQueueName"], "jobQueueArn": queue["jobQueueArn"]}

    # Service jobs.

    def _job(self, job_id: str) -> ServiceJob:
        if job_id not in self.jobs:
            raise ApiError(f"Service job {job_id} does not exist")
        return self.jobs[job_id]

    def _submit(self, body: dict[str, Any]) -> dict[str, Any]:
        token = body.get("clientToken")  # botocore fills in a fresh one when the caller has none
        if token in self.tokens:
            first, answer = self.tokens[token]
            if first != body:
                raise ApiError(f"clientToken {token} was already used with different parameters")
            return answer
        if not JOB_NAME.fullmatch(body["jobName"]):
            raise ApiError("Job name should match valid pattern")
        if not 0 <= body.get("schedulingPriority", 0) <= 9999:
            raise ApiError("schedulingPriority must be between 0 and 9999")
        queue = self._submittable(body)
        job_id = str(uuid.uuid4())
        job = ServiceJob(
            id=job_id,
            arn=self._arn("service-job", job_id),
            request=body,
            payload=_training_request(body),
            queue=queue,
            seq=len(self.jobs),
            created_at=_now_ms(),
        )
        self.jobs[job_id] = job
        answer = {"jobArn": job.arn, "jobName": job.name, "jobId": job_id}
        if token is not None:
            self.tokens[token] = (body, answer)
        return answer

    def _submittable(self, body: dict[str, Any]) -> dict[str, Any]:
        """The queue a service job may go to, or Batch's refusal."""
        ref = body["jobQueue"]
        queue = self._queue(ref)
        if queue["jobQueueType"] != SAGEMAKER_TRAINING:
            raise ApiError(
                f"JobQueue {ref} is of type {queue['jobQueueType']}: service jobs of type "
                f"{body['serviceJobType']} need a job queue of type SAGEMAKER_TRAINING"
            )
        if queue["state"] != "ENABLED":
            raise ApiError(f"JobQueue {ref} is not in a valid state: {queue['state']}")
        fair_share = "schedulingPolicyArn" in queue
        if fair_share and not body.get("shareIdentifier"):
            raise ApiError(
                f"JobQueue {ref} has a fair-share scheduling policy: shareIdentifier is required"
            )
        if not fair_share and "shareIdentifier" in body:
            raise ApiError(
                f"JobQueue {ref} has no fair-share scheduling policy: shareIdentifier "
                "must not be set"
            )
        return queue

    def _describe_job(self, body: dict[str, Any]) -> dict[str, Any]:
        self.schedule()
        return self._job(body["jobId"]).detail()

    def _list_jobs(self, body: dict[str, Any]) -> dict[str, Any]:
        """ListServiceJobs as documented: one filter at most; without one, only the jobs in
        jobStatus (RUNNING when unset); JOB_NAME and the created-at filters ignore jobStatus,
        SHARE_IDENTIFIER and QUOTA_SHARE_NAME do not. Newest first."""
        self.schedule()
        jobs = list(self.jobs.values())
        if "jobQueue" in body:
            queue = self._queue(body["jobQueue"])
            jobs = [j for j in jobs if j.queue is queue]
        filters = body.get("filters") or []
        if len(filters) > 1:
            raise ApiError("Only one filter can be used at a time")
        status = body.get("jobStatus")
        if filters:
            name, values = filters[0].get("name"), filters[0].get("values") or []
            if name not in LIST_FILTERS:
                raise ApiError(
                    f"Invalid filter name {name}: must be one of {', '.join(LIST_FILTERS)}"
                )
            try:
                jobs = [j for j in jobs if any(_matches(j, name, value) for value in values)]
            except ValueError:
                raise ApiError(f"Invalid value for filter {name}: {values}") from None
            if name not in ("SHARE_IDENTIFIER", "QUOTA_SHARE_NAME"):
                status = None
        elif status is None:
            status = "RUNNING"
        jobs = [j for j in jobs if status in (None, j.status)]
        page, more = _page(sorted(jobs, key=lambda j: -j.seq), body)
        return {"jobSummaryList": [j.summary() for j in page], **more}

    def _terminate(self, body: dict[str, Any]) -> dict[str, Any]:
        """The job ends FAILED with the reason at once (an ended one is left as it is); its
        training job, if it has one running, is stopped."""
        job = self._job(body["jobId"])
        if job.status in ENDED:
            return {}
        if job.training_job:
            self._stop_training_job(job)
        self._end(job, "FAILED", body["reason"])
        job.is_terminated = True
        return {}


def _training_request(body: dict[str, Any]) -> dict[str, Any]:
    """serviceRequestPayload as Batch reads it: the JSON of a CreateTrainingJob request
    (TrainingJobName may be left out: the job's name stands in when it is checked)."""
    try:
        payload = json.loads(body["serviceRequestPayload"])
    except ValueError as error:
        raise ApiError(f"serviceRequestPayload is not valid JSON: {error}") from None
    if not isinstance(payload, dict):
        raise ApiError("serviceRequestPayload is not a JSON object")
    shape = _model("sagemaker").operation_model("CreateTrainingJob").input_shape
    problem = _problem(shape, {"TrainingJobName": body["jobName"], **payload})
    if problem:
        raise ApiError(f"serviceRequestPayload is not a valid CreateTrainingJob request: {problem}")
    return payload


def _matches(job: ServiceJob, name: str, value: str) -> bool:
    if name == "JOB_NAME":  # case-insensitive; a trailing * matches any rest
        if value.endswith("*"):
            return job.name.lower().startswith(value[:-1].lower())
        return job.name.lower() == value.lower()
    if name == "SHARE_IDENTIFIER":
        return job.share == value
    if name == "QUOTA_SHARE_NAME":
        return job.request.get("quotaShareName") == value
    if name == "BEFORE_CREATED_AT":
        return job.created_at < int(value)
    return job.created_at > int(value)  # AFTER_CREATED_AT


def _action(strategy: dict[str, Any], reason: str) -> str:
    """What retryStrategy.evaluateOnExit says for ``reason``: the first glob that matches;
    RETRY when none does."""
    for rule in strategy.get("evaluateOnExit", []):
        if fnmatch.fnmatchcase(reason, rule.get("onStatusReason", "*")):
            return str(rule.get("action", "RETRY"))
    return "RETRY"


class _Handler(BaseHTTPRequestHandler):
    server: BatchServer

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, data, error_type = self.server.answer(self.path, raw)
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("x-amzn-RequestId", str(uuid.uuid4()))
        if error_type:
            self.send_header("x-amzn-ErrorType", error_type)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def batch_client(server: BatchServer | str, validate: bool = True) -> Any:
    """A plain boto3 Batch client for ``server`` (or its URL); ``validate=False`` leaves the
    checking of requests to the server."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "batch",
        endpoint_url=server if isinstance(server, str) else server.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(parameter_validation=validate, retries={"total_max_attempts": 1}),
    )


def sagemaker_queue(
    server_or_client: BatchServer | Any,
    name: str = "ml-queue",
    max_instances: int = 8,
    fair_share: bool = False,
    state: str = "ENABLED",
) -> str:
    """A SageMaker-training queue over the wire: its service environment (``name``-env, up to
    ``max_instances`` instances) and, with ``fair_share``, a fair-share policy. Its ARN."""
    client = (
        batch_client(server_or_client)
        if isinstance(server_or_client, BatchServer)
        else server_or_client
    )
    environment = client.create_service_environment(
        serviceEnvironmentName=f"{name}-env",
        serviceEnvironmentType=SAGEMAKER_TRAINING,
        capacityLimits=[{"maxCapacity": max_instances, "capacityUnit": "NUM_INSTANCES"}],
    )
    policy = {}
    if fair_share:
        created = client.create_scheduling_policy(
            name=f"{name}-fair-share", fairsharePolicy={"shareDecaySeconds": 3600}
        )
        policy = {"schedulingPolicyArn": created["arn"]}
    queue = client.create_job_queue(
        jobQueueName=name,
        jobQueueType=SAGEMAKER_TRAINING,
        state=state,
        priority=1,
        serviceEnvironmentOrder=[
            {"order": 1, "serviceEnvironment": environment["serviceEnvironmentArn"]}
        ],
        **policy,
    )
    return str(queue["jobQueueArn"])


def training_request(
    name: str,
    instances: int = 1,
    instance_type: str = "ml.m5.xlarge",
    account: str = "123456789012",
) -> dict[str, Any]:
    """A CreateTrainingJob request as the SDK writes one (Tags popped): a service job's
    serviceRequestPayload, once written as JSON."""
    return {
        "TrainingJobName": name,
        "AlgorithmSpecification": {
            "TrainingImage": f"{IMAGES}/pytorch-training:2.5-gpu-py311",
            "TrainingInputMode": "File",
        },
        "RoleArn": f"arn:aws:iam::{account}:role/SageMakerRole",
        "OutputDataConfig": {"S3OutputPath": "s3://sagelaunch-examples/output"},
        "ResourceConfig": {
            "InstanceType": instance_type,
            "InstanceCount": instances,
            "VolumeSizeInGB": 30,
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
        "HyperParameters": {"epochs": "1"},
    }

"""The fault proxy as a scarce-GPU account: it answers Service Quotas' ListServiceQuotas itself
(moto's server does not implement it: its servicequotas backend serves only the AWS default
quotas and GetServiceQuota), in the API's own shape; and, as SageMaker does when it finds no
instances, it turns a job of an instance type without capacity Failed with a CapacityError
reason (moto's backend state, the first time the job is described)."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from http.server import BaseHTTPRequestHandler

from tests.aws.proxy import FaultProxy, _operation, _read_body

LIST_QUOTAS = "servicequotas:ListServiceQuotas"
DESCRIBE = "sagemaker:DescribeTrainingJob"
LIST_JOBS = "sagemaker:ListTrainingJobs"
STOP = "sagemaker:StopTrainingJob"


CAPACITY_REASON = (
    "CapacityError: Unable to provision requested ML compute capacity. "
    "Please retry using a different ML instance type."
)


class CapacityProxy(FaultProxy):
    """A FaultProxy whose account has the applied SageMaker quotas in ``quotas`` (name -> value),
    where the types in ``no_capacity`` find no instances and the jobs of the types in
    ``failing_code`` fail in the user's code."""

    def __init__(self, upstream: str, quotas: dict[str, int]) -> None:
        self.quotas = quotas
        self.no_capacity: set[str] = set()
        self.failing_code: set[str] = set()
        self.keep_running = False  # jobs run until the test ends them (moto ends them at once):
        # held InProgress when listed or described; a test ends one by setting its status and
        # keep_running back
        self.spot_interruptions = 0  # a spot job is shown running, interrupted this many times
        self.spot_created_ago_s = 0.0  # ... and created this long ago (waiting for capacity)
        super().__init__(upstream)

    def _interrupt(self, job) -> None:  # type: ignore[no-untyped-def]
        """A spot job still running after ``spot_interruptions`` interruptions, until stopped."""
        if job.training_job_status != "Completed":
            return
        job.creation_time -= timedelta(seconds=self.spot_created_ago_s)
        now = job.creation_time
        interrupted = {"Status": "Interrupted", "StartTime": now, "StatusMessage": "spot"}
        job.training_job_status, job.secondary_status = "InProgress", "Interrupted"
        job.secondary_status_transitions = [
            {"Status": "Starting", "StartTime": now, "StatusMessage": "Starting"},
            *[dict(interrupted) for _ in range(self.spot_interruptions)],
        ]

    def stop_job(self, body: bytes) -> bytes:
        """StopTrainingJob, which moto's server does not implement: the job ends Stopped."""
        from tests.aws.conftest import training_job

        job = training_job(json.loads(body)["TrainingJobName"])
        job.training_job_status = job.secondary_status = "Stopped"
        with self.lock:
            self.requests[STOP] += 1
        return b"{}"

    def hold_created_jobs(self) -> None:
        """With keep_running: every job created through the proxy is still InProgress."""
        from tests.aws.conftest import training_job

        if self.keep_running:
            for name in list(self.created_names):
                job = training_job(name)
                scripted = job.resource_config.get("InstanceType") in (
                    self.no_capacity | self.failing_code
                )
                if job.training_job_status == "Completed" and not scripted:  # moto's own end
                    job.training_job_status = "InProgress"

    def end_as_scripted(self, body: bytes) -> bool:
        """Fail the described job as its instance type's capacity (or code) says; False when
        moto has no such job (yet)."""
        from tests.aws.conftest import training_job

        try:
            job = training_job(json.loads(body)["TrainingJobName"])
        except KeyError:
            return False
        if self.spot_interruptions and job.enable_managed_spot_training:
            self._interrupt(job)
            return True
        kind = job.resource_config.get("InstanceType")
        if job.training_job_status == "Completed" and kind in self.no_capacity | self.failing_code:
            job.training_job_status = "Failed"
            job.failure_reason = (
                CAPACITY_REASON if kind in self.no_capacity else "AlgorithmError: boom"
            )
        elif job.training_job_status == "Completed" and self.keep_running:
            job.training_job_status = "InProgress"
        return True

    def quota_page(self) -> bytes:
        listed = [
            {
                "ServiceCode": "sagemaker",
                "ServiceName": "Amazon SageMaker",
                "QuotaCode": f"L-{index:08X}",
                "QuotaName": name,
                "Value": float(value),
                "Unit": "None",
                "Adjustable": True,
                "GlobalQuota": False,
            }
            for index, (name, value) in enumerate(sorted(self.quotas.items()))
        ]
        return json.dumps({"Quotas": listed}).encode()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self
        base = super()._handler_class()

        class Handler(base):  # type: ignore[valid-type, misc]
            def _any(self) -> None:
                operation = _operation(self.command, self.path, self.headers)
                if operation == DESCRIBE:
                    body = _read_body(self)
                    if not proxy.end_as_scripted(body):
                        # A create of it may be landing in moto this instant: forwarded, the
                        # describe could read it as moto ends it (Completed), unscripted. The
                        # service's answer a moment earlier: no such job yet.
                        self._operation = operation
                        name = json.loads(body)["TrainingJobName"]
                        self._json_error(
                            400, "ValidationException", f"Could not find training job '{name}'."
                        )
                        return
                    self.rfile = io.BytesIO(body)  # type: ignore[assignment]
                    self.headers.replace_header("Content-Length", str(len(body)))
                if operation == STOP:
                    self._ok(proxy.stop_job(_read_body(self)))
                    return
                if operation == LIST_JOBS:
                    proxy.hold_created_jobs()
                if operation != LIST_QUOTAS:
                    super()._any()
                    return
                _read_body(self)
                with proxy.lock:
                    proxy.requests[LIST_QUOTAS] += 1
                self._ok(proxy.quota_page())

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _any

        return Handler


def twice_at_once(*args: str) -> list[dict]:
    """Run `sagelaunch ARGS -o json` in two processes at once (two retries of one CI step);
    both must succeed; their JSON outputs."""
    import subprocess
    import sys

    from tests.conftest import REPO

    command = [sys.executable, "-m", "sagelaunch", *args, "-o", "json"]
    runs = [
        subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-2000:] for _, err in outputs]
    return [json.loads(out) for out, _ in outputs]

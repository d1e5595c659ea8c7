"""The baseline for bench_plan: what a hand-written script does to see the same request —
import the SDK, build the SMDDP estimator of launch_configs/smddp-p4d.yaml, capture the request."""

import json
import sys

import boto3
import sagemaker
import sagemaker.telemetry.telemetry_logging as telemetry
from sdk_baseline import INPUTS, smddp_estimator

telemetry._send_telemetry_request = lambda *a, **k: None


class Capture(sagemaker.session.Session):
    def _intercept_create_request(self, request, create, func_name=None):
        self.captured = request


session = Capture(
    boto_session=boto3.Session(
        region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )
)
estimator = smddp_estimator(session, "s3://sagelaunch-examples/output/code/sourcedir.tar.gz")
estimator.fit(INPUTS, wait=False, logs=False, job_name="bert-smddp-1")
json.dump(session.captured, sys.stdout)

"""The baseline for bench_submit: what a hand-written script does to submit the same job —
import the SDK, build the SMDDP estimator of launch_configs/smddp-p4d.yaml with the local
entry points as source_dir, and `fit(wait=False)` (it tars and uploads the code every time).

Nothing is stubbed: the SDK's own calls (including its telemetry) are what is counted. The bench
points AWS_ENDPOINT_URL at moto and HTTPS_PROXY at its counting proxy, so all stays on loopback.
"""

import sys

import boto3
import sagemaker
from sdk_baseline import INPUTS, smddp_estimator

session = sagemaker.session.Session(boto_session=boto3.Session(region_name="us-east-1"))
estimator = smddp_estimator(session, sys.argv[1])
estimator.fit(INPUTS, wait=False, logs=False)

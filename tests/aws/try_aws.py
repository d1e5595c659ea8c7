"""Try the AWS side without an AWS account: `make try-aws`, i.e. `.venv/bin/python -m
tests.aws.try_aws [CONFIG]`.

Starts moto's server (a dev dependency: `make setup` installs it) on 127.0.0.1, creates the
examples' bucket and an IAM role there, points sagelaunch at it, and runs

    plan CONFIG --out plan.json  ->  submit plan.json  ->  status JOB  ->  logs JOB  ->  wait JOB

each command shown before it runs, as you would type it, then stops moto. Nothing outside
127.0.0.1 is contacted, and nothing of yours is read: no AWS profile, no credentials (fake
ones, moto's), a scratch folder for the plan. The variables are the ones botocore reads to reach
any endpoint (AWS_ENDPOINT_URL), so the same sagelaunch commands run against AWS once you drop
them and have credentials.

moto is a stand-in: a job is accepted and Completed at once, it runs no training and writes no
logs, and its Service Quotas does not serve ListServiceQuotas (submit says the quotas were not
checked: "not served by this endpoint").
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.paths import REPO

CONFIG = REPO / "launch_configs" / "cpu-local.yaml"  # a small job; its output_path's bucket:
BUCKET = "sagelaunch-examples"
REGION = "us-east-1"
ROLE_NAME = "SageMakerRole"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": "sagemaker.amazonaws.com"},
            "Action": "sts:AssumeRole",
        }
    ],
}


def environment(endpoint: str, role: str, scratch: Path) -> dict[str, str]:
    """This shell's environment, minus any AWS set-up of yours, pointed at ``endpoint``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "SAGELAUNCH_"))}
    if os.environ.get("SAGELAUNCH_CACHE_DIR"):
        env["SAGELAUNCH_CACHE_DIR"] = os.environ["SAGELAUNCH_CACHE_DIR"]
    env.update(
        AWS_ENDPOINT_URL=endpoint,
        AWS_ACCESS_KEY_ID="testing",  # moto accepts any
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_REGION=REGION,
        AWS_CONFIG_FILE=str(scratch / "no-aws-config"),  # none of your profiles
        AWS_SHARED_CREDENTIALS_FILE=str(scratch / "no-aws-credentials"),
        AWS_EC2_METADATA_DISABLED="true",
        SAGELAUNCH_ROLE=role,
    )
    return env


def start_moto() -> tuple[object, str]:
    from moto.server import ThreadedMotoServer

    # No request log, and not the traceback of each call moto does not implement
    # (ListServiceQuotas): sagelaunch says what it got.
    logging.getLogger("werkzeug").disabled = True
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    return server, f"http://{host}:{port}"


def prepare(endpoint: str) -> str:
    """The bucket of the example's output_path and a role SageMaker may assume; the role's ARN."""
    import boto3

    session = boto3.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION
    )
    session.client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
    iam = session.client("iam", endpoint_url=endpoint)
    role = iam.create_role(RoleName=ROLE_NAME, AssumeRolePolicyDocument=json.dumps(TRUST))
    return str(role["Role"]["Arn"])


def sagelaunch(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One command, shown as typed (`.venv/bin/sagelaunch ...`), its output passed through."""
    print(f"\n$ .venv/bin/sagelaunch {shlex.join(args)}", flush=True)
    done = subprocess.run(
        [sys.executable, "-m", "sagelaunch", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    sys.stdout.write(done.stdout)
    sys.stdout.flush()
    if done.returncode != 0:
        raise SystemExit(f"try-aws: `sagelaunch {args[0]}` exited {done.returncode}")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", type=Path, default=CONFIG, help="a launch config")
    config = parser.parse_args(argv).config.resolve()
    server, endpoint = start_moto()
    try:
        role = prepare(endpoint)
        print(f"moto's server on {endpoint}: bucket s3://{BUCKET}, role {role}")
        with tempfile.TemporaryDirectory(prefix="sagelaunch-try-aws-") as folder:
            scratch = Path(folder)
            env = environment(endpoint, role, scratch)
            print(f"export AWS_ENDPOINT_URL={endpoint} AWS_REGION={REGION} SAGELAUNCH_ROLE={role}")
            print("export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing")
            plan = scratch / "plan.json"
            sagelaunch(
                env, scratch, "plan", str(config), "--set", f"role={role}", "--out", str(plan)
            )
            job = json.loads(plan.read_text())["job_name"]  # the plan names the job
            sagelaunch(env, scratch, "submit", str(plan))
            sagelaunch(env, scratch, "status", job)
            sagelaunch(env, scratch, "logs", job)
            sagelaunch(env, scratch, "wait", job)
    finally:
        server.stop()  # type: ignore[attr-defined]
    print("\ndone: moto stopped. Against AWS: the same commands, without AWS_ENDPOINT_URL.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

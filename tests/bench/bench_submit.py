"""`sagelaunch submit plan.json` vs `submit CONFIG` vs the SDK's own `fit(wait=False)`, against
one moto server on loopback behind a counting proxy: wall time, time from the process start to
its first AWS request (what the 0.5 s target for `submit plan.json` is about: the moment the user's
job is being created), HTTP requests per submit, bytes uploaded, and whether the SDK was imported
at all."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from tests.aws.proxy import FaultProxy, serve_list_service_quotas
from tests.bench.timing import wall
from tests.conftest import ENTRYPOINTS, EXAMPLES, REPO

CONFIG = EXAMPLES / "smddp-p4d.yaml"
BUCKET = "sagelaunch-examples"
TARGET_PLAN_FILE_S = 0.5
REPEATS = 5


def run() -> dict:
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    serve_list_service_quotas()  # submit's quota pre-flight reads it
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    moto = f"http://{host}:{port}"
    proxy = FaultProxy(moto).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            return _bench(moto, proxy, Path(tmp))
    finally:
        proxy.stop()
        server.stop()


def _bench(moto: str, proxy: FaultProxy, tmp: Path) -> dict:
    env = _environment(proxy.url, tmp)
    plan = tmp / "plan.json"
    _run([sys.executable, "-m", "sagelaunch", "plan", str(CONFIG), "--out", str(plan)], env)

    def sagelaunch(target: Path) -> Callable[[str], list[str]]:
        return lambda key: [
            sys.executable,
            "-m",
            "sagelaunch",
            "submit",
            str(target),
            "--idempotency-key",
            key,
            "-o",
            "json",
        ]

    requests = _requests_per_submit(moto, proxy, plan, env)
    medians = _alternating_medians(
        proxy,
        {
            "submit_plan_file": sagelaunch(plan),
            "submit_config": sagelaunch(CONFIG),
            "sdk_fit_wait_false": lambda _: [
                sys.executable,
                str(Path(__file__).with_name("plain_sdk_submit.py")),
                str(ENTRYPOINTS / "pytorch"),
            ],
        },
        env,
    )
    to_first = medians["submit_plan_file"].to_first_request_s
    return {
        **{f"{name}_s": round(m.wall_s, 3) for name, m in medians.items()},
        **{f"{name}_cpu_s": round(m.cpu_s, 3) for name, m in medians.items()},
        **{
            f"{name}_to_first_request_s": round(m.to_first_request_s, 3)
            for name, m in medians.items()
        },
        "target_plan_file_s": TARGET_PLAN_FILE_S,
        "plan_file_under_target": to_first < TARGET_PLAN_FILE_S,
        "plan_file_imports_sagemaker": _imports_sagemaker(plan, env),
        **requests,
    }


def _requests_per_submit(moto: str, proxy: FaultProxy, plan: Path, env: dict) -> dict:
    """HTTP requests (and S3 bytes sent) per submit, counted at the proxy."""
    _reset_moto(moto, proxy)
    submit = [sys.executable, "-m", "sagelaunch", "submit", str(plan), "-o", "json"]
    first = _counted(proxy, lambda: _run(submit, env))
    same_plan_again = _counted(proxy, lambda: _run(submit, env))
    new_key = _counted(proxy, lambda: _run([*submit, "--idempotency-key", "bench"], env))
    sdk_script = [
        sys.executable,
        str(Path(__file__).with_name("plain_sdk_submit.py")),
        str(ENTRYPOINTS / "pytorch"),
    ]
    sdk = _counted(proxy, lambda: _run(sdk_script, env))
    sdk_aws = {k: v for k, v in sdk["requests"].items() if not k.startswith("https-tunnel:")}
    return {
        "requests_first_submit": first["requests"],
        "requests_resubmit_same_plan": same_plan_again["requests"],
        "requests_new_key_unchanged_code": new_key["requests"],
        "requests_sdk_fit": sdk["requests"],
        "requests_first_submit_total": sum(first["requests"].values()),
        "requests_sdk_fit_aws_api_total": sum(sdk_aws.values()),
        "requests_sdk_fit_total": sum(sdk["requests"].values()),
        "fewer_or_equal_requests_than_sdk": sum(first["requests"].values())
        <= sum(sdk_aws.values()),
        "upload_bytes_first_submit": first["s3_bytes"],
        "upload_bytes_resubmit_unchanged_code": same_plan_again["s3_bytes"] + new_key["s3_bytes"],
        "upload_bytes_sdk_fit": sdk["s3_bytes"],
    }


def _counted(proxy: FaultProxy, action: Callable[[], object]) -> dict:
    proxy.reset()
    action()
    return {"requests": dict(sorted(proxy.requests.items())), "s3_bytes": proxy.s3_bytes_in}


class Timing(NamedTuple):
    wall_s: float
    cpu_s: float  # user + sys: does not move with the machine's load
    to_first_request_s: float  # process start to the proxy receiving its first AWS request


def _alternating_medians(
    proxy: FaultProxy, commands: dict[str, Callable[[str], list[str]]], env: dict
) -> dict[str, Timing]:
    """Round-robin runs, each submit under a fresh key (a new job, code already uploaded):
    the median of each measure."""
    samples: dict[str, list[Timing]] = {name: [] for name in commands}
    for name, command in commands.items():  # warm-up: page cache, and the bundle in S3
        _timed(proxy, command(f"{name}-warm"), env)
    for index in range(REPEATS):
        for name, command in commands.items():
            samples[name].append(_timed(proxy, command(f"{name}-{index}"), env))
    return {
        name: Timing(*(statistics.median(column) for column in zip(*runs, strict=True)))
        for name, runs in samples.items()
    }


def _timed(proxy: FaultProxy, cmd: list[str], env: dict) -> Timing:
    proxy.reset()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    seconds = wall(cmd, cwd=REPO, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if proxy.first_request_at is None:
        raise RuntimeError(f"{' '.join(cmd)} sent no AWS request")
    return Timing(seconds, cpu, proxy.first_request_at - start)


def _imports_sagemaker(plan: Path, env: dict) -> bool:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sagelaunch", "submit", str(plan), "-o", "json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=True,
    )
    modules = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    return "sagemaker" in modules


def _environment(endpoint: str, home: Path) -> dict:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": "/nonexistent",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        # The SDK's telemetry GET goes to the counting proxy, which refuses it: seen, not sent.
        "HTTPS_PROXY": endpoint,
        "NO_PROXY": "127.0.0.1,localhost",
        "SAGEMAKER_SUPPRESS_V2_WARNING": "1",
    }


def _reset_moto(moto: str, proxy: FaultProxy) -> None:
    urllib.request.urlopen(urllib.request.Request(f"{moto}/moto-api/reset", method="POST")).close()
    import boto3

    boto3.client(
        "s3",
        endpoint_url=moto,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    ).create_bucket(Bucket=BUCKET)


def _run(cmd: list[str], env: dict) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr[-2000:]}")
    return proc.stdout


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    print(json.dumps(run(), indent=2))

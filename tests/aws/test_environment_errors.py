"""The user's AWS environment gone wrong, through the real command in a fresh process: a profile
that does not exist, a region with a blank or a typo, credentials AWS does not accept, a job
that does not exist. Each is one `error:` line with its fix, the right exit code (SPEC §4: 2
config/usage, 3 AWS), and no traceback."""

from __future__ import annotations

import json

import pytest

from tests.aws.conftest import SMDDP, submitted
from tests.aws.test_faults import run_cli

pytestmark = pytest.mark.integration


def one_error(proc, code: int) -> str:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    return line


def hint(proc) -> str:
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("hint:")]
    return line


@pytest.mark.parametrize(
    "args",
    [
        ["plan", str(SMDDP), "--no-check-quota"],
        ["submit", str(SMDDP)],
        ["status", "some-job"],
    ],
    ids=["plan", "submit", "status"],
)
def test_a_profile_that_does_not_exist_is_exit_3_with_the_fix(moto, tmp_path, args):
    """The SDK reads the profile when it is imported: checked before, on a plan cache miss (a
    fresh cache folder), so plan and submit say so in one line instead of crashing."""
    env = {"AWS_PROFILE": "nosuchprofile", "SAGELAUNCH_CACHE_DIR": str(tmp_path / "cache")}
    proc = run_cli(*args, env_changes=env)
    line = one_error(proc, 3)
    assert line.startswith("error: AWS profile 'nosuchprofile' (from $AWS_PROFILE) is not in ")
    assert "/nonexistent/aws-config" in line  # AWS_CONFIG_FILE, as the tests set it
    assert "aws configure --profile nosuchprofile" in hint(proc)
    assert "unset AWS_PROFILE" in hint(proc)


def test_a_region_with_a_trailing_blank_is_that_region(moto, saved_plan):
    """`--region 'us-east-1 '` is us-east-1: the plan (the session's cached one: same key) and
    the AWS commands take it."""
    proc = run_cli(
        "plan", str(SMDDP), "--region", "us-east-1 ", "--no-check-quota", "-o", "json",
        env_changes={},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["region"] == "us-east-1"
    status = run_cli("status", "no-such-job", "--region", " us-east-1 ", env_changes={})
    assert "no training job named 'no-such-job'" in one_error(status, 3)


def test_a_region_typo_on_the_command_line_is_exit_2_with_the_nearest(moto, tmp_path):
    env = {"SAGELAUNCH_CACHE_DIR": str(tmp_path / "cache")}
    proc = run_cli("plan", str(SMDDP), "--region", "us-eest-1", "--no-check-quota", env_changes=env)
    line = one_error(proc, 2)  # the image rule or the check before the SDK: either names it
    assert "--region" in line and "'us-eest-1'" in line, line
    assert "did you mean" in line and "us-east-1" in line and "us-west-1" in line, line
    status = run_cli("status", "some-job", env_changes={"AWS_DEFAULT_REGION": "eu-wset-1"})
    assert "unknown AWS region 'eu-wset-1': did you mean eu-west-1?" in one_error(status, 2)


def test_a_region_typo_in_the_config_points_at_its_line(moto, tmp_path):
    """With an explicit image_uri no image rule reads the region: the check before the SDK
    does, and points at the `region:` key's own line (not the SDK's error on `framework`)."""
    config = tmp_path / "typo.yaml"
    config.write_text(
        f"extends: {SMDDP}\n"
        "name: typo\n"
        "image_uri: 763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.2.0-gpu-py310\n"
        "region: us-eest-1\n"
    )
    env = {"SAGELAUNCH_CACHE_DIR": str(tmp_path / "cache")}
    line = one_error(run_cli("plan", str(config), "--no-check-quota", env_changes=env), 2)
    assert line.startswith(
        f"error: {config}:4:1: region: unknown AWS region 'us-eest-1': did you mean us-east-1"
    )


def test_logs_of_a_job_that_does_not_exist_is_exit_3_like_status(moto):
    logs = one_error(run_cli("logs", "no-such-job", env_changes={}), 3)
    status = one_error(run_cli("status", "no-such-job", env_changes={}), 3)
    assert logs == "error: no training job named 'no-such-job' in this account and region"
    assert status.startswith("error: no training job named 'no-such-job' (nor a tuning job)")


def test_logs_of_a_job_without_log_streams_yet_is_exit_0(cli, moto, plan_copy):
    job = submitted(cli("submit", plan_copy, "-o", "json"))
    proc = run_cli("logs", job["job_name"], env_changes={})
    assert proc.returncode == 0, proc.stderr
    assert f"no log events for {job['job_name']} (yet)" in proc.stderr
    assert "error:" not in proc.stderr and proc.stdout == ""


BAD_KEY = "The AWS Access Key Id you provided does not exist in our records."


def test_a_wrong_access_key_says_the_credentials_are_wrong_not_the_policy(proxy, plan_copy):
    """submit's first call is S3's HeadObject, whose 403 has no body (a wrong key and a missing
    permission look the same): a one-byte GET tells, and the error names the credentials and
    where they came from (the environment, here), with no IAM-policy advice."""
    proxy.script("s3:HeadObject", "403", "Forbidden", status=403)
    proxy.script("s3:GetObject", "InvalidAccessKeyId", BAD_KEY, status=403)
    proc = run_cli("submit", str(plan_copy), env_changes={})
    line = one_error(proc, 3)
    assert line.startswith(
        "error: AWS did not accept the credentials from the environment (AWS_ACCESS_KEY_ID) "
        "(GetObject: The AWS Access Key Id you provided does not exist"
    )
    assert "AWS_SECRET_ACCESS_KEY" in hint(proc) and "IAM" not in proc.stderr
    assert proxy.requests["sagemaker:CreateTrainingJob"] == 0


@pytest.mark.parametrize("code", ["UnrecognizedClientException", "InvalidClientTokenId"])
def test_a_token_sagemaker_does_not_recognise_names_the_credentials(proxy, code):
    proxy.script(
        "sagemaker:DescribeTrainingJob",
        code,
        "The security token included in the request is invalid.",
    )
    proc = run_cli("status", "some-job", env_changes={"AWS_MAX_ATTEMPTS": "1"})
    line = one_error(proc, 3)
    assert "did not accept the credentials from the environment (AWS_ACCESS_KEY_ID)" in line
    assert "IAM" not in proc.stderr


def test_access_denied_still_names_the_policy(proxy, plan_copy):
    """A real permission problem (the GET says AccessDenied) keeps the IAM-policy hint."""
    proxy.script("s3:HeadObject", "403", "Forbidden", status=403)
    proxy.script("s3:GetObject", "AccessDenied", "Access Denied", status=403)
    proc = run_cli("submit", str(plan_copy), env_changes={})
    assert "access denied: GetObject" in one_error(proc, 3)
    assert "IAM policy must allow GetObject" in hint(proc)

"""examples/ci: the GitHub Actions workflow and the GitLab CI file, parsed and run.

Each file is read as YAML; the `run:` / `script:` lines of each job are run by bash, in order, in a
scratch checkout (launch_configs/ and entrypoints/ linked in), with the CI's variables filled in
from a small table, against moto's server. Steps that only set the machine up (checkout, Python,
`pip install uv`, AWS credentials, artifact upload) are the CI's own and are not run, nor is the
install of sagelaunch from its wheel (the venv running these tests stands in for it;
tests/packaging/test_wheel.py runs those lines and these jobs from the installed wheel); the test
checks that those are all it leaves out. The workflow is also linted by actionlint.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.aws.conftest import boto_client, training_job
from tests.conftest import ENTRYPOINTS, EXAMPLES, REPO

pytestmark = pytest.mark.integration

CI = REPO / "examples" / "ci"
BIN = Path(sys.executable).parent
SHA = "0123456789abcdef0123456789abcdef01234567"
ROLE = "arn:aws:iam::123456789012:role/SageMakerRole"
GITHUB_CONTEXT = {"github.sha": SHA, "github.ref": "refs/heads/main", "vars.SAGELAUNCH_ROLE": ROLE}
SETUP_ONLY = {"pip install uv"}  # what a CI runner needs, not what sagelaunch does


@pytest.fixture(scope="module")
def plan_cache(tmp_path_factory) -> Path:
    """One plan cache for the module: the SDK plans the example once, later runs hit the cache
    (as a CI runner keeping `.sagelaunch/cache` between jobs would)."""
    return tmp_path_factory.mktemp("ci-plan-cache")


@pytest.fixture
def checkout(tmp_path: Path, plan_cache: Path) -> Path:
    work = tmp_path / "repo"
    (work / ".sagelaunch").mkdir(parents=True)
    (work / ".sagelaunch" / "cache").symlink_to(plan_cache)
    (work / "launch_configs").symlink_to(EXAMPLES)
    (work / "entrypoints").symlink_to(ENTRYPOINTS)
    return work


def bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """As the runners do: bash, stop at the first failing command, pipefail."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def expand(value: str) -> str:
    """GitHub's ${{ expr }} from the context table (an unknown expression fails the test)."""
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: GITHUB_CONTEXT[m.group(1)], value)


def installs_sagelaunch(script: str) -> bool:
    """The examples' install of sagelaunch (build the wheel, `uv tool install` it)."""
    return "uv tool install" in script


def base_env(extra: dict[str, Any], environ: dict[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default: this process's, with sagelaunch and python3 as installed here first
    on PATH) and the CI's variables ``extra``."""
    if environ is None:
        environ = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return {**environ, **{k: expand(str(v)) for k, v in extra.items()}}


def github_job(
    workflow: dict[str, Any],
    name: str,
    checkout: Path,
    environ: dict[str, str] | None = None,
    install: bool = False,
) -> dict[str, Any]:
    """Run one job's `run` steps (the install of sagelaunch only with ``install``); returns its
    exit code, summary and outputs. A step's lines in $GITHUB_PATH go on PATH for the next."""
    job = workflow["jobs"][name]
    summary, outputs = checkout / "summary.md", checkout / "outputs.txt"
    github_path = checkout / "github-path.txt"
    for file in (summary, outputs, github_path):
        file.write_text("")
    env = base_env({**workflow.get("env", {}), **job.get("env", {})}, environ)
    env.update(GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(outputs))
    env.update(GITHUB_PATH=str(github_path))
    skipped = []
    for step in job["steps"]:
        script = step.get("run", "").strip()
        if not script or script in SETUP_ONLY or (installs_sagelaunch(script) and not install):
            skipped.append(step.get("uses") or script)
            continue
        added = github_path.read_text().split("\n")[::-1]  # the last line added comes first
        path = os.pathsep.join([*filter(None, added), env["PATH"]])
        step_env = {k: expand(str(v)) for k, v in step.get("env", {}).items()}
        done = bash(step["run"], checkout, {**env, "PATH": path, **step_env})
        if done.returncode != 0:
            return {"code": done.returncode, "stderr": done.stderr, "skipped": skipped,
                    "summary": summary.read_text(), "outputs": outputs.read_text()}  # fmt: skip
    return {"code": 0, "stderr": "", "skipped": skipped, "summary": summary.read_text(),
            "outputs": outputs.read_text()}  # fmt: skip


def load_workflow() -> dict[str, Any]:
    workflow = yaml.safe_load((CI / "github-actions.yml").read_text())
    workflow["on"] = workflow.pop(True, workflow.get("on"))  # YAML 1.1 reads `on` as true
    return workflow


def github_install(workflow: dict[str, Any]) -> str:
    """The one script every job of the workflow installs sagelaunch with."""
    scripts = {
        step["run"].strip()
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if installs_sagelaunch(step.get("run", ""))
    }
    assert len(scripts) == 1, scripts
    return scripts.pop()


def gitlab_install(pipeline: dict[str, Any]) -> list[str]:
    """The lines of GitLab's before_script that install sagelaunch (after the setup-only ones)."""
    lines = pipeline["default"]["before_script"]
    setup = [line for line in lines if line in SETUP_ONLY]
    assert lines[: len(setup)] == setup == ["pip install uv"], lines
    return lines[len(setup) :]


def test_github_pull_request_validates_plans_and_summarises(moto, checkout):
    workflow = load_workflow()
    assert set(workflow["on"]) == {"pull_request", "push"}
    assert workflow["jobs"]["plan"]["if"] == "github.event_name == 'pull_request'"
    result = github_job(workflow, "plan", checkout)
    assert result["code"] == 0, result["stderr"][-3000:]
    plan = json.loads((checkout / "plan.json").read_text())
    assert (checkout / "plan.sourcedir.tar.gz").is_file()  # the artifact's second file
    assert f"### sagelaunch plan: `{plan['job_name']}`" in result["summary"]
    assert "| instances | 2 × ml.p4d.24xlarge |" in result["summary"]
    assert set(result["skipped"]) == {
        "actions/checkout@v4", "actions/setup-python@v5", "pip install uv",
        github_install(workflow), "actions/upload-artifact@v4",
    }  # fmt: skip


def test_github_merge_submits_once_waits_and_maps_exit_codes(moto, checkout):
    workflow = load_workflow()
    first = github_job(workflow, "submit", checkout)
    assert first["code"] == 0, first["stderr"][-3000:]
    assert "outcome=Completed" in first["outputs"]
    assert "### Training job: Completed" in first["summary"]
    submitted = json.loads((checkout / "submit.json").read_text())
    assert submitted["status"] == "Completed" and not submitted["attached"]
    again = github_job(workflow, "submit", checkout)  # a re-run of the workflow
    assert again["code"] == 0 and json.loads((checkout / "submit.json").read_text())["attached"]
    jobs = boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"]
    assert [j["TrainingJobName"] for j in jobs] == [submitted["job_name"]]
    training_job(submitted["job_name"]).training_job_status = "Failed"
    training_job(submitted["job_name"]).failure_reason = "AlgorithmError: boom"
    failed = github_job(workflow, "submit", checkout)
    assert failed["code"] == 1 and "outcome=Failed" in failed["outputs"]
    assert "### Training job: Failed" in failed["summary"]
    assert "aws-actions/configure-aws-credentials@v4" in failed["skipped"]


def gitlab_job(pipeline: dict[str, Any], name: str, checkout: Path) -> subprocess.CompletedProcess:
    job = pipeline[name]
    gitlab_install(pipeline)  # before_script: uv, then the install test_wheel.py checks
    env = base_env({**pipeline["variables"], "CI_COMMIT_SHA": SHA, "SAGELAUNCH_ROLE": ROLE})
    return bash("\n".join(job["script"]), checkout, env)


def test_gitlab_merge_request_and_default_branch(moto, checkout):
    pipeline = yaml.safe_load((CI / "gitlab-ci.yml").read_text())
    assert pipeline["plan"]["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    planned = gitlab_job(pipeline, "plan", checkout)
    assert planned.returncode == 0, planned.stderr[-3000:]
    assert "instances  2 x ml.p4d.24xlarge" in planned.stdout
    assert all((checkout / p).is_file() for p in pipeline["plan"]["artifacts"]["paths"])
    trained = gitlab_job(pipeline, "train", checkout)
    assert trained.returncode == 0, trained.stderr[-3000:]
    assert "training job: Completed" in trained.stdout
    job_name = json.loads((checkout / "submit.json").read_text())["job_name"]
    training_job(job_name).training_job_status = "Stopped"
    stopped = gitlab_job(pipeline, "train", checkout)  # a retried pipeline job
    assert stopped.returncode == 4 and "training job: Stopped" in stopped.stdout
    assert pipeline["train"]["allow_failure"] == {"exit_codes": [5]}


def test_actionlint_passes_the_workflow_and_catches_a_broken_one(tmp_path):
    actionlint = BIN / "actionlint"
    good = subprocess.run(
        [str(actionlint), str(CI / "github-actions.yml")], capture_output=True, text=True
    )
    assert good.returncode == 0, good.stdout + good.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text((CI / "github-actions.yml").read_text().replace("runs-on:", "run-on:", 1))
    bad = subprocess.run([str(actionlint), str(broken)], capture_output=True, text=True)
    assert bad.returncode != 0 and "runs-on" in bad.stdout

"""Hugging Face jobs under `sagelaunch local`: the starter `init huggingface` writes trains on 2
emulated hosts and saves a model `from_pretrained` loads; the job sees the Hugging Face DLC's
packages (transformers, accelerate at the image's pins, from the overlay), not this venv's
TensorFlow; a job without internet that asks the Hub for a model fails saying how to give the
model as a channel.

transformers and accelerate are not in this venv: each run installs them into its overlay from
uv's cache, which `make test` fills (the Makefile's TEST_WHEELS), as a user's second run does.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from tests.local import hub_wheels
from tests.local.conftest import checksums, clean_env, in_uv_cache, run_local

OVERLAY = re.compile(r"software: .*(?:into|cached in) (\S+?)(?: \.\.\.|\))?$", re.MULTILINE)


@pytest.fixture
def cached_wheels(tmp_path: Path) -> None:
    if not all(in_uv_cache(pin, tmp_path) for pin in hub_wheels.pins("4.56.2", ["transformers"])):
        pytest.skip("transformers is not in uv's cache (`make test` fills it: TEST_WHEELS)")


def said(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def user_files(folder: Path) -> dict[str, str]:
    """checksums() less sagelaunch's own folder beside the config (its overlays' cache)."""
    return {
        path: sha for path, sha in checksums(folder).items() if path.split("/")[0] != ".sagelaunch"
    }


def overlay(output: str) -> str:
    """The overlay folder the run installed the image's packages into (its software line)."""
    found = OVERLAY.findall(output)
    assert found, output[-3000:]
    return found[0]


@pytest.mark.slow
def test_the_starter_trains_on_two_hosts_and_saves_what_from_pretrained_loads(
    cli, tmp_path, cached_wheels
):
    starter = tmp_path / "starter"
    starter.mkdir()
    config = starter / "huggingface.yaml"
    written = cli("init", "huggingface", "--out", config)
    assert written.exit_code == 0, written.output
    assert (starter / "train_huggingface.py").is_file() and (starter / "data/train.txt").is_file()
    before = user_files(starter)
    run = tmp_path / "run"
    done = run_local(config, "--workdir", str(run), timeout=300, env=clean_env(UV_OFFLINE="1"))
    output = said(done)
    assert done.returncode == 0, output[-4000:]
    # The DLC's pins, the Trainer's accelerate with them; the image named.
    assert "software: installing transformers==4.56.2 accelerate==1.10.1" in output
    assert "what the Hugging Face transformers 4.56 GPU image holds" in output
    assert "pytorch_version 2.8.0, but this run uses this machine's pytorch" in output
    assert "[algo-1] train_loss=" in output and "steps=20 processes=2" in output
    assert user_files(starter) == before  # untouched
    model = tmp_path / "model"
    with tarfile.open(run / "model.tar.gz") as tar:
        tar.extractall(model, filter="data")
    hyperparameters = yaml.safe_load(config.read_text())["hyperparameters"]
    loads = (
        "import sys; from transformers import AutoModelForCausalLM; "
        "model = AutoModelForCausalLM.from_pretrained(sys.argv[1]); "
        "print(type(model).__name__, model.config.n_layer, model.config.n_embd)"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", loads, str(model)],
        capture_output=True,
        text=True,
        # USE_TF=0: transformers would import this venv's TensorFlow too, seconds it needs not
        env=clean_env(PYTHONPATH=overlay(output), USE_TF="0"),
        check=False,
    )
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert loaded.stdout.split() == ["GPT2LMHeadModel", "2", "64"], hyperparameters


HUB_JOB = """\
import importlib.util
import transformers
from transformers import AutoModelForCausalLM

print("tensorflow importable:", importlib.util.find_spec("tensorflow") is not None)
print("transformers", transformers.__version__)
AutoModelForCausalLM.from_pretrained("gpt2")  # from the Hub: this job has no internet
"""


@pytest.mark.slow
def test_an_isolated_job_sees_the_images_packages_and_is_told_to_give_the_model_as_a_channel(
    write_config, tmp_path, cached_wheels
):
    config = write_config(
        {
            "name": "hub-download",
            "framework": "huggingface",
            "entry_point": "train.py",
            "source_dir": "code",
            "transformers_version": "4.56.2",
            "pytorch_version": "2.8.0",
            "py_version": "py312",
            "compute": {"instance_type": "ml.g5.xlarge", "instance_count": 1},
            "network": {"isolation": True},
        },
        {"train.py": HUB_JOB},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"), env=clean_env(UV_OFFLINE="1"))
    output = said(done)
    assert done.returncode == 1, output[-4000:]
    assert "[algo-1] tensorflow importable: False" in output  # this venv has it; the image not
    assert "[algo-1] transformers 4.56.2" in output
    hint = output[output.index("hint:") :]
    assert "could not download from the Hugging Face Hub" in hint
    assert (
        "network.isolation: true" in hint
        and "--model_name_or_path /opt/ml/input/data/model" in hint
    )

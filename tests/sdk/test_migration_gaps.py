"""Issue 43, the last migration gaps, each checked against the SDK itself: the request a
hand-written SDK script sends (captured through botocore's Stubber, as test_import_exact.py does,
not through sagelaunch's own capture session) is what `plan` sends for the config written like
it, and what `plan` sends again after `import`.

- a channel whose input_mode is set to the job's own (TrainingInput(..., input_mode="File")):
  the SDK sends InputDataConfig[i].InputMode, so plan does and import keeps it;
"""

from __future__ import annotations

import pytest
import sagemaker.telemetry.telemetry_logging as telemetry
import yaml
from sagemaker.inputs import TrainingInput
from sagemaker.pytorch import PyTorch

from sagelaunch.config.importer import import_request
from sagelaunch.config.validation import load_valid
from tests.sdk.test_import_exact import OUT, ROLE, captured, replanned, without_code_location


@pytest.fixture(autouse=True)
def _no_telemetry(monkeypatch):
    monkeypatch.setattr(telemetry, "_send_telemetry_request", lambda *a, **k: None)


def pytorch(session, **kwargs):
    return PyTorch(
        entry_point="train.py",
        source_dir="s3://bkt/code/sourcedir.tar.gz",
        role=ROLE,
        framework_version="2.2.0",
        py_version="py310",
        instance_type="ml.g5.xlarge",
        instance_count=1,
        output_path=OUT,
        sagemaker_session=session,
        **kwargs,
    )


@pytest.mark.parametrize(
    ("job_mode", "channel_mode"),
    [(None, "File"), ("FastFile", "FastFile"), ("Pipe", "File"), (None, None)],
)
def test_a_channel_input_mode_set_to_the_jobs_is_sent_and_imported(
    tmp_path, job_mode, channel_mode
):
    extra = {"input_mode": job_mode} if job_mode else {}
    modes = {"input_mode": channel_mode} if channel_mode else {}
    inputs = {
        "train": TrainingInput("s3://bkt/train/", **modes),
        "validation": TrainingInput("s3://bkt/validation/"),
    }
    sent = captured(lambda s: pytorch(s, **extra), inputs)
    channels = {c["ChannelName"]: c for c in sent["InputDataConfig"]}
    assert channels["train"].get("InputMode") == channel_mode  # the SDK sends what it is given
    assert "InputMode" not in channels["validation"]
    config = import_request(sent, source_dir="code")
    assert config["inputs"]["train"].get("input_mode") == channel_mode
    assert "input_mode" not in config["inputs"]["validation"]
    assert without_code_location(replanned(sent, tmp_path)) == without_code_location(sent)


def test_a_config_that_leaves_input_mode_unset_plans_as_before(tmp_path):
    """The default stays unset: nothing is sent (the golden plans hold the rest)."""
    path = tmp_path / "job.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "channels",
                "framework": "pytorch",
                "entry_point": "train.py",
                "framework_version": "2.2.0",
                "role": ROLE,
                "output_path": OUT,
                "compute": {"instance_type": "ml.g5.xlarge"},
                "inputs": {"train": "s3://bkt/train/", "test": {"uri": "s3://bkt/test/"}},
            }
        )
    )
    (tmp_path / "train.py").write_text("print('train')\n")
    loaded, _ = load_valid(path)
    assert all(channel.input_mode is None for channel in loaded.config.inputs.values())


def test_a_file_system_channel_has_no_input_mode_of_its_own(tmp_path):
    request = captured(pytorch, {"train": TrainingInput("s3://bkt/train/")})
    request["InputDataConfig"].append(
        {
            "ChannelName": "fsx",
            "InputMode": "File",
            "DataSource": {
                "FileSystemDataSource": {
                    "FileSystemId": "fs-0123456789abcdef0",
                    "FileSystemType": "FSxLustre",
                    "DirectoryPath": "/fsx/data",
                    "FileSystemAccessMode": "ro",
                }
            },
        }
    )
    with pytest.raises(Exception, match=r"InputDataConfig\[fsx\].InputMode"):
        import_request(request, source_dir="code")


def test_a_file_system_channel_with_input_mode_is_refused_at_its_line(cli, tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(
        "name: fsx\nframework: pytorch\nentry_point: train.py\nframework_version: '2.2.0'\n"
        "compute: {instance_type: ml.g5.xlarge}\ninputs:\n"
        "  fsx: {file_system: {type: FSxLustre, id: fs-0123456789abcdef0, path: /fsx/d},"
        " input_mode: File}\n"
    )
    (tmp_path / "train.py").write_text("print('train')\n")
    result = cli("validate", path)
    assert result.exit_code == 2
    assert "a file_system channel has none of its own" in result.output

"""The code bundle holds what the SDK uploads: its own `fw_utils.tar_and_upload_dir`, run against
moto's S3, is the oracle. Without source_dir the SDK uploads the entry point script alone; with
one, the folder."""

from __future__ import annotations

import io
import tarfile

import boto3
import pytest
import sagemaker.fw_utils

from sagelaunch import bundle
from sagelaunch.config.loader import load
from tests.aws.conftest import BUCKET, REGION, boto_client

CONFIG = """\
name: beside
framework: pytorch
entry_point: train.py
framework_version: "2.2.0"
region: us-east-1
role: arn:aws:iam::123456789012:role/SageMakerRole
output_path: s3://sagelaunch-examples/out/
compute: {instance_type: ml.g5.2xlarge}
"""


def sdk_members(script, directory=None, dependencies=()) -> list[str]:
    """The member names of the sourcedir.tar.gz the SDK uploads for this script and folder."""
    session = boto3.Session(region_name=REGION)
    uploaded = sagemaker.fw_utils.tar_and_upload_dir(
        session,
        BUCKET,
        "sdk",
        str(script),
        directory=directory and str(directory),
        dependencies=[str(d) for d in dependencies],
    )
    key = uploaded.s3_prefix.split(f"s3://{BUCKET}/", 1)[1]
    body = boto_client("s3").get_object(Bucket=BUCKET, Key=key)["Body"].read()
    with tarfile.open(fileobj=io.BytesIO(body), mode="r:gz") as tar:
        return sorted(m.name for m in tar.getmembers() if m.isfile())


def our_members(config) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(bundle.for_config(load(config)).data)) as tar:
        return sorted(m.name for m in tar.getmembers() if m.isfile())


@pytest.fixture
def project(tmp_path):
    """A config beside its script and other files a user keeps there."""
    (tmp_path / "train.py").write_text("print('train')\n")
    (tmp_path / "notes.md").write_text("my notes\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "sample.csv").write_text("1,2\n")
    (tmp_path / "job.yaml").write_text(CONFIG)
    return tmp_path


def test_without_source_dir_only_the_script_is_uploaded_as_the_sdk_does(moto, project):
    assert our_members(project / "job.yaml") == sdk_members(project / "train.py") == ["train.py"]


def test_with_source_dir_the_folder_is_uploaded_as_the_sdk_does(moto, project):
    code = project / "code"
    code.mkdir()
    (code / "train.py").write_text("print('train')\n")
    (code / "lib").mkdir()
    (code / "lib" / "util.py").write_text("X = 1\n")
    config = project / "with-source.yaml"
    config.write_text(CONFIG + "source_dir: code\n")
    expected = sdk_members("train.py", code)
    assert our_members(config) == expected == ["lib/util.py", "train.py"]


def test_a_shipped_entry_point_brings_the_folder_it_imports_from(project):
    config = project / "shipped.yaml"
    config.write_text(CONFIG.replace("train.py", "train_pytorch.py"))
    members = our_members(config)
    assert "train_pytorch.py" in members and len(members) > 1
    assert "notes.md" not in members


@pytest.fixture
def libraries(project):
    """A module file and a package folder kept outside the code, named as dependencies."""
    shared = project.parent / f"{project.name}-shared"
    (shared / "mylib").mkdir(parents=True)
    (shared / "mylib" / "__init__.py").write_text("X = 1\n")
    (shared / "helpers.py").write_text("Y = 2\n")
    return [shared / "helpers.py", shared / "mylib"]


@pytest.mark.parametrize("with_source_dir", [False, True])
def test_dependencies_go_at_the_top_level_as_the_sdk_puts_them(
    moto, project, libraries, with_source_dir
):
    code = project / "code"
    code.mkdir()
    (code / "train.py").write_text("print('train')\n")
    written = [f"../{project.name}-shared/helpers.py", f"../{project.name}-shared/mylib"]
    config = project / "deps.yaml"
    config.write_text(
        CONFIG + f"dependencies: {written}\n" + ("source_dir: code\n" if with_source_dir else "")
    )
    if with_source_dir:
        expected = sdk_members("train.py", code, libraries)
    else:
        expected = sdk_members(project / "train.py", None, libraries)
    assert our_members(config) == expected
    assert "helpers.py" in expected and "mylib/__init__.py" in expected


def test_a_missing_dependency_stops_plan_naming_it(cli, project):
    config = project / "missing.yaml"
    config.write_text(CONFIG + "dependencies: [lib/absent.py]\n")
    result = cli("plan", config)
    assert result.exit_code == 2
    assert "dependencies[0]" in result.output and "lib/absent.py not found" in result.output

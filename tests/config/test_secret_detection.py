"""Which environment values `import` writes as ``${env:NAME}`` references: the detector decides on
the name *and* the value (sagelaunch.secretscan). A corpus of secrets it must find and of values
it must leave alone (each reference is a variable the user has to export before the imported
config plans again, so a false positive costs as much as it annoys), and what import says."""

from __future__ import annotations

import json

import pytest
import yaml

from sagelaunch.secretscan import finding, scan
from sagelaunch.translate.importer import import_request

# Fake credentials of the real shapes (AWS's documented example keys, random filler elsewhere).
SECRETS = {
    "AWS_ACCESS_KEY_ID": ("AKIAIOSFODNN7EXAMPLE", "AWS access key id"),
    "MY_ID": ("ASIAY34FZKBOKMUTVV7A", "AWS access key id"),
    "AWS_SECRET_ACCESS_KEY": ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS secret access key"),
    "UPLOAD_CONFIG": ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS secret access key"),
    "AWS_SESSION_TOKEN": ("IQoJb3JpZ2luX2VjEHQaCXVzLWVhc3QtMSJH/MEUCIQD+x==", "token"),
    "HF_TOKEN": ("hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "Hugging Face token"),
    "HUGGING_FACE_HUB_TOKEN": ("hf_QwErTyUiOpAsDfGhJkLzXcVbNm12345678", "Hugging Face token"),
    "GH_PAT": ("ghp_1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz", "GitHub token"),
    "GITLAB": ("glpat-Ab12Cd34Ef56Gh78Ij90", "GitLab token"),
    "SLACK_HOOK": ("xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "Slack token"),
    "OPENAI_API_KEY": ("sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34", "sk-"),
    "STRIPE": ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "Stripe"),
    "MAPS": ("AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "Google API key"),
    "SESSION": (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "JSON Web Token",
    ),
    "DATABASE_URL": ("postgresql://app:s3cr3t-pw@db.internal:5432/app", "URL with a password"),
    "TLS": ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "PEM"),
    "DB_PASSWORD": ("hunter2x!", "password"),
    "mysqlPassword": ("correct horse battery", "password"),
    "SMTP_PASS": ("letmein99", "password"),
    "CLIENT_SECRET": ("a1b2c3d4e5f6", "secret"),
    "WANDB_API_KEY": ("0123456789abcdef0123456789abcdef01234567", "API key"),
    "COMET_APIKEY": ("JbK0xsQfHo2sOgsh1Wm6", "API key"),
    "GOOGLE_CREDENTIALS": ('{"type": "service_account"}', "credential"),
    "SIGNING_KEY": ("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "key"),
    "KEY_MATERIAL": ("Xq7Lm2Pz9Kd4Rt8Vn", "key"),
    "UNNAMED": ("Zx8Qm2Lp9Rt4Vw7Yk3Nc6Bf1Hj5Gd0Sa", "high-entropy"),
}

# Values that must stay values (their names look secret-ish, or their values look random-ish).
VALUES = {
    "env_key1": "env_value1",
    "env_key2": "env_value2",
    "TOKENIZERS_PARALLELISM": "false",
    "MAX_TOKENS": "4096",
    "NUM_TOKEN": "2048",
    "SECRET_ARN": "arn:aws:secretsmanager:us-east-1:111122223333:secret:db-AbCdEf",
    "SECRET_NAME": "prod/db",
    "HF_TOKEN_PATH": "/opt/ml/input/data/secrets/token",
    "PASSWORD_FILE": "/run/secrets/db",
    "GOOGLE_APPLICATION_CREDENTIALS": "/opt/ml/code/sa.json",
    "AWS_ACCESS_KEY_ID": "",
    "API_KEY": "${env:API_KEY}",
    "DB_PASSWORD": "<your-password>",
    "AUTH_TOKEN": "***",
    "USE_AUTH": "true",
    "KEY": "value",
    "SORT_KEY": "timestamp",
    "S3_KEY": "data/train/part-0001.csv",
    "CACHE_KEY": "llama-2-7b-chat-hf-finetuned-v2",
    "MODEL_ID": "meta-llama/Llama-2-7b-hf",
    "RUN_NAME": "MyExperimentRun2024AugustFinal01",
    "ARCH": "ResNet50ImageNetPretrainedV2FinalVersion",
    "GIT_COMMIT": "9fceb02d0ae598e95dc970b74767f19372d61af8",
    "RUN_UUID": "123e4567-e89b-12d3-a456-426614174000",
    "NCCL_DEBUG": "WARN",
    "NCCL_SOCKET_IFNAME": "^lo,docker0",
    "PYTHONPATH": "/opt/ml/code:/opt/ml/code/lib",
    "HTTP_PROXY": "http://proxy.internal:3128",
    "TOKEN_URL": "https://auth.example.com/oauth2/token",
    "SAGEMAKER_REQUIREMENTS": "requirements.txt",
    "TRANSFORMERS_CACHE": "/tmp/.cache",
    "EPOCHS": "3",
    "LR": "3e-4",
    "KEY_COLUMN": "customer_id",
}


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_secrets_are_found_by_name_or_shape(name):
    value, why = SECRETS[name]
    found = finding(name, value)
    assert found is not None, name
    assert why in found.reason and value not in found.reason


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_stay_values(name):
    assert finding(name, VALUES[name]) is None, (name, finding(name, VALUES[name]))


def test_the_issues_case_the_secret_keys_and_the_plain_ones():
    environment = {
        "env_key1": "env_value1",
        "env_key2": "env_value2",
        "AWS_SECRET_ACCESS_KEY": SECRETS["AWS_SECRET_ACCESS_KEY"][0],
        "HF_TOKEN": SECRETS["HF_TOKEN"][0],
        "DB_PASSWORD": "hunter2x!",
    }
    assert [f.name for f in scan(environment)] == [
        "AWS_SECRET_ACCESS_KEY",
        "HF_TOKEN",
        "DB_PASSWORD",
    ]


def request_with(environment: dict) -> dict:
    return {
        "TrainingJobName": "secrets-2026-01-01-00-00-00-000",
        "AlgorithmSpecification": {
            "TrainingImage": "763104351884.dkr.ecr.us-east-1.amazonaws.com/"
            "pytorch-training:2.2.0-gpu-py310",
            "TrainingInputMode": "File",
        },
        "RoleArn": "arn:aws:iam::111122223333:role/SageMakerRole",
        "HyperParameters": {"sagemaker_program": '"train.py"', "sagemaker_region": '"us-east-1"'},
        "OutputDataConfig": {"S3OutputPath": "s3://bkt/out/"},
        "ResourceConfig": {
            "InstanceType": "ml.g5.xlarge",
            "InstanceCount": 1,
            "VolumeSizeInGB": 30,
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
        "Environment": environment,
    }


def test_import_writes_references_for_secrets_only():
    environment = {**VALUES, **{name: value for name, (value, _) in SECRETS.items()}}
    environment = {k: v for k, v in environment.items() if v and "${" not in v}
    config = import_request(request_with(environment), source_dir="code")
    written = config["environment"]
    for name in SECRETS:
        assert written[name] == "${env:" + name + "}", name
    for name, value in VALUES.items():
        if name in written and name not in SECRETS:
            assert written[name] == value, name


def test_import_says_which_values_it_replaced_and_why_never_the_values(cli, tmp_path):
    secret = SECRETS["HF_TOKEN"][0]
    source = tmp_path / "job.json"
    environment = {"env_key1": "env_value1", "HF_TOKEN": secret, "DB_PASSWORD": "hunter2x!"}
    source.write_text(json.dumps(request_with(environment)))
    out = tmp_path / "job.yaml"
    result = cli("import", source, "--out", out, "--source-dir", tmp_path / "code")
    assert result.exit_code == 0, result.output
    assert "2 environment value(s) written as ${env:NAME} references" in result.stderr
    assert "HF_TOKEN: value has the shape of a Hugging Face token" in result.stderr
    assert "DB_PASSWORD: name says a password and the value is not trivial" in result.stderr
    assert "env_key1" not in result.stderr
    assert secret not in result.output and "hunter2x!" not in result.output
    written = yaml.safe_load(out.read_text())["environment"]
    assert written == {
        "env_key1": "env_value1",
        "HF_TOKEN": "${env:HF_TOKEN}",
        "DB_PASSWORD": "${env:DB_PASSWORD}",
    }

"""Run under the SDK v3 virtualenv (.venv-v3): the CreateTrainingJob request ModelTrainer builds
for an exported script, offline, printed as JSON.

``python capture_v3.py SCRIPT`` loads the script as a module, calls its ``make_trainer(session)``
and ``input_data()``, and asks ModelTrainer's own request builder (`_create_training_job_args`,
what ``train()`` sends, in boto3 form) for the request. The session is v3's own with two offline
stand-ins: a fixed default bucket, and uploads that record what would go to S3 (the sm_drivers
channel's sourcecode.json / distributed.json) instead of sending it. Any connection beyond
loopback is refused and reported. Imports only the standard library and the v3 SDK.
"""

from __future__ import annotations

import json
import os
import runpy
import socket
import sys
from pathlib import Path
from typing import ClassVar

ATTEMPTS: list[str] = []
BUCKET = "offline-capture-bucket"


def refuse_network() -> None:
    real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def loopback(host: object) -> bool:
        return str(host) in ("127.0.0.1", "::1", "localhost")

    def connect(self, address):  # type: ignore[no-untyped-def]
        if not loopback(address[0] if isinstance(address, tuple) else address):
            ATTEMPTS.append(str(address))
            raise OSError("offline capture: no network")
        return real_connect(self, address)

    def getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not loopback(host):
            ATTEMPTS.append(str(host))
            raise socket.gaierror("offline capture: no network")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]


def capture_session(region: str):  # type: ignore[no-untyped-def]
    import boto3
    from sagemaker.core.helper.session_helper import Session

    class CaptureSession(Session):
        uploads: ClassVar[dict[str, dict[str, object]]] = {}

        def default_bucket(self) -> str:
            return BUCKET

        def upload_data(self, path, bucket=None, key_prefix="data", callback=None, extra_args=None):  # type: ignore[no-untyped-def]
            files = {}
            for name in ("sourcecode.json", "distributed.json"):
                candidate = Path(path) / name
                if candidate.is_file():
                    files[name] = json.loads(candidate.read_text())
            self.uploads[key_prefix.rsplit("/", 1)[-1]] = files
            return f"s3://{bucket or BUCKET}/{key_prefix}"

    boto = boto3.Session(
        region_name=region, aws_access_key_id="offline", aws_secret_access_key="offline"
    )
    return CaptureSession(boto_session=boto)


def main(script: str) -> int:
    # The role check ModelTrainer makes (iam:SimulatePrincipalPolicy) fails fast on a closed
    # loopback port; the SDK then stages in the default bucket, as it does without IAM access.
    os.environ.update(
        AWS_ENDPOINT_URL_IAM="http://127.0.0.1:9",
        AWS_MAX_ATTEMPTS="1",
        AWS_EC2_METADATA_DISABLED="true",
        SAGEMAKER_SUPPRESS_V2_WARNING="1",
        SAGEMAKER_VALIDATE_ROLE="false",  # the SDK's switch for its IAM permission check
    )
    refuse_network()
    module = runpy.run_path(script)
    session = capture_session(module["REGION"])
    trainer = module["make_trainer"](session)
    request = trainer._create_training_job_args(
        input_data_config=module["input_data"](), boto3=True
    )
    print(
        json.dumps(
            {"request": request, "uploads": session.uploads, "network": ATTEMPTS},
            default=str,
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

"""boto3 sessions for the tests' own SDK captures (the oracle side: ``estimator.fit()`` through a
stubbed client). They share one botocore loader: a fresh session parses the SageMaker service
model again (~0.3 s per estimator), which is botocore's file cache, not what a capture checks."""

from __future__ import annotations

import functools

import boto3
import botocore.loaders
import botocore.session


@functools.cache
def _loader() -> botocore.loaders.Loader:
    return botocore.loaders.create_loader()


def stub_boto_session(region: str = "us-east-1") -> boto3.Session:
    core = botocore.session.Session()
    core.register_component("data_loader", _loader())
    return boto3.Session(
        region_name=region,
        botocore_session=core,
        aws_access_key_id="k",
        aws_secret_access_key="s",
    )

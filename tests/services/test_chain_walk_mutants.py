"""The chain walk's parts no other fast test reached (`make mutate`'s survivors): a walk made from
a config keeps its key and region, each new job is tagged with its place in the chain and the
refusals before it, and only a lack of capacity is a capacity ending."""

from __future__ import annotations

from typing import Any

from sagelaunch.aws.session import Clients
from sagelaunch.config.model import Compute
from sagelaunch.services.attempts import ATTEMPT, NEXT, PREVIOUS, QUOTA_REFUSED
from sagelaunch.services.chain_walk import ChainWalk, capacity_ending


class Tagged:
    """A SageMaker client that records every AddTags it receives."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, str]]] = []

    def add_tags(self, ResourceArn: str, Tags: list[dict[str, str]]) -> dict[str, Any]:
        self.sent.append((ResourceArn, {t["Key"]: t["Value"] for t in Tags}))
        return {}


def test_a_walk_of_a_config_keeps_its_key_and_region_and_is_true_with_a_chain():
    compute = Compute(
        instance_type="ml.g5.xlarge",
        fallback=[{"instance_type": "ml.g5.2xlarge", "region": "us-west-2"}],
    )
    walk = ChainWalk.of(compute, key="ci-7", region="us-east-1")
    assert walk and [f.instance_type for f in walk.fallbacks] == ["ml.g5.2xlarge"]
    assert walk.key_for(1) == "ci-7/attempt-1"
    assert walk.next_after(0) is None  # bound to us-east-1: the us-west-2 alternative is passed


def test_each_job_is_tagged_after_the_last_one_made_with_the_refusals_since():
    sagemaker = Tagged()
    aws = Clients("us-east-1", sagemaker=sagemaker)
    walk = ChainWalk([], key="ci-7")
    walk.joined(aws, "arn:job-0", 0)
    walk.quota_refused(1)
    walk.quota_refused(2)
    walk.joined(aws, "arn:job-3", 3)
    walk.joined(aws, "arn:job-4", 4)
    assert sagemaker.sent == [
        ("arn:job-0", {ATTEMPT: "0"}),
        ("arn:job-3", {ATTEMPT: "3", PREVIOUS: "arn:job-0", QUOTA_REFUSED: "1 2"}),
        ("arn:job-0", {NEXT: "arn:job-3"}),
        ("arn:job-4", {ATTEMPT: "4", PREVIOUS: "arn:job-3"}),
        ("arn:job-3", {NEXT: "arn:job-4"}),
    ]
    assert walk.made == (aws, "arn:job-4") and walk.refused == []


def test_a_job_that_exists_already_is_the_one_the_next_links_after_untagged():
    sagemaker = Tagged()
    aws = Clients("us-east-1", sagemaker=sagemaker)
    walk = ChainWalk([], key="ci-7")
    walk.quota_refused(1)
    walk.attached(aws, "arn:job-2")
    assert sagemaker.sent == [] and walk.refused == []
    walk.joined(aws, "arn:job-3", 3)
    assert sagemaker.sent[0] == ("arn:job-3", {ATTEMPT: "3", PREVIOUS: "arn:job-2"})


def test_only_a_job_sagemaker_found_no_instances_for_has_a_capacity_ending():
    reason = "CapacityError: Unable to provision requested ML compute capacity."
    failed = {"TrainingJobStatus": "Failed", "FailureReason": reason}
    assert capacity_ending(failed) == f"capacity: {reason}"
    code = {"TrainingJobStatus": "Failed", "FailureReason": "AlgorithmError: boom"}
    assert capacity_ending(code) is None
    assert capacity_ending({"TrainingJobStatus": "Completed"}) is None

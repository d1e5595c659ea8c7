"""Job names for shell completion: one quick ListTrainingJobs, or nothing.

A TAB must never hang or print an error: one attempt, a one-second connect timeout, no retries,
a quick instance-metadata probe, and any failure (no credentials, no region, no network, access
denied) completes nothing.
"""

from __future__ import annotations

import botocore.session
from botocore.config import Config

from sagelaunch.aws.session import default_region

QUICK = Config(
    connect_timeout=1, read_timeout=2, retries={"total_max_attempts": 1, "mode": "standard"}
)


def recent_job_names(prefix: str, limit: int = 20) -> list[str]:
    """Up to ``limit`` training job names starting with ``prefix``, newest first."""
    try:
        session = botocore.session.Session()
        # Off EC2 the instance-metadata credential probe would wait a second or more; on EC2
        # it answers in milliseconds.
        session.set_config_variable("metadata_service_timeout", 1)  # whole seconds
        session.set_config_variable("metadata_service_num_attempts", 1)
        region = default_region(session)
        if not region:
            return []
        client = session.create_client("sagemaker", region_name=region, config=QUICK)
        query = {"SortBy": "CreationTime", "SortOrder": "Descending", "MaxResults": limit}
        if prefix:
            query["NameContains"] = prefix
        page = client.list_training_jobs(**query)
    except Exception:  # completion is best effort: a TAB never shows an error
        return []
    names = [job["TrainingJobName"] for job in page.get("TrainingJobSummaries", [])]
    return [name for name in names if name.startswith(prefix)]

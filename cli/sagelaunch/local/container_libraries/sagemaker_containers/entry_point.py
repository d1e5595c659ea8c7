"""`sagemaker_containers.entry_point`: the part scripts call before distributed training."""

from __future__ import annotations

from _stand_in_hosts import job_hosts, wait_hostname_resolution


def _wait_hostname_resolution() -> None:
    """Until every host of the job (SM_HOSTS) resolves, as the container's entry point waits."""
    wait_hostname_resolution(job_hosts())

"""sagelaunch local's stand-in for `sagemaker_containers`, the training library the XGBoost
container ships (its requirements pin sagemaker-containers 2.8.6.post2, which no longer imports on
Python 3.10+: `collections.Mapping`). Public script-mode scripts call `training_env()` for the
job's settings and `entry_point._wait_hostname_resolution()` before distributed training, and
import `beta.framework` for their inference functions; this package gives them the first two and
lets the third import (serving is not emulated). Put on a host's path only when the job's code
imports it and this machine has no such package.
"""

from __future__ import annotations

from sagemaker_containers._env import TrainingEnv, training_env

__all__ = ["TrainingEnv", "training_env"]

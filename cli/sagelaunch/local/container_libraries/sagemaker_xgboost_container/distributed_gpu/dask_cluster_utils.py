# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/distributed_gpu/dask_cluster_utils.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.distributed_gpu.dask_cluster_utils in sagelaunch local: the
container's names, not its behaviour. Its constants carry the container's values; the rest
raises when used (never at import), naming what is not emulated and where the job runs
instead."""

from sagemaker_xgboost_container import _not_emulated

SCHEDULER_EXEC_PATH = "/opt/venv/bin/dask-scheduler"
CUDA_WORKER_EXEC_PATH = "/opt/venv/bin/dask-cuda-worker"
SCHEDULER_CONN_TIMEOUT = "20s"
start_daemons_in_current_instance = _not_emulated.function(
    __name__, "start_daemons_in_current_instance"
)
get_host_ip = _not_emulated.function(__name__, "get_host_ip")

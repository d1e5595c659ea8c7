# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/distributed_gpu/distributed_gpu_training.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.distributed_gpu.distributed_gpu_training in sagelaunch local: the
container's names, not its behaviour. Its constants carry the container's values; the rest
raises when used (never at import), naming what is not emulated and where the job runs
instead."""

from sagemaker_xgboost_container import _not_emulated

logger = _not_emulated.logger(__name__)
SCHEDULER_PORT = "8786"
WAIT_FOR_ALL_WORKERS_TIMEOUT_SEC = 20
WORKER_STAY_ALIVE_CHECK_FREQ_SEC = 10
SUPPORTED_TRAINING_CONTENT_TYPES = {"csv", "parquet"}
NON_GPU_ERROR_MSG = (
    "Dask training is only available for `hist` (or `gpu_hist`) training on GPU instances."
)
PIPE_MODE_ERROR_MSG = "Dask training is not supported for pipe mode input. Please use File mode."
INPUT_FORMAT_ERROR_MSG = "Dask training is only supported for CSV and Parquet input."
NOT_REPLICATED_ERROR_MSG = "Dask distributed training requires FullyReplicated data."
validate_gpu_train_configuration = _not_emulated.function(
    __name__, "validate_gpu_train_configuration"
)
run_training_with_dask = _not_emulated.function(__name__, "run_training_with_dask")

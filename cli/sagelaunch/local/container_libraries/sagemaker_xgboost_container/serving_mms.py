# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/serving_mms.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.serving_mms in sagelaunch local: the container's names, not its
behaviour. Its constants carry the container's values; the rest raises when used (never at
import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

ALGO_HANDLER_SERVICE = "sagemaker_xgboost_container.algorithm_mode.handler_service"
USER_HANDLER_SERVICE = "sagemaker_xgboost_container.handler_service"
PORT = 8080
DEFAULT_MAX_CONTENT_LEN = 6291456
MAX_CONTENT_LEN_LIMIT = 20971520
MMS_NUM_MODEL_WORKERS_INIT = 1
MMS_MODEL_JOB_QUEUE_SIZE_DEFAULT = 100
get_mms_config_file_path = _not_emulated.function(__name__, "get_mms_config_file_path")
start_mxnet_model_server = _not_emulated.function(__name__, "start_mxnet_model_server")

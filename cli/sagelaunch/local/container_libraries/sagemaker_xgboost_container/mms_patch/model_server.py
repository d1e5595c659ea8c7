# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/mms_patch/model_server.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.mms_patch.model_server in sagelaunch local: the container's names,
not its behaviour. Its constants carry the container's values; the rest raises when used
(never at import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

logger = _not_emulated.logger(__name__)
DEFAULT_HANDLER_SERVICE = _not_emulated.value(__name__, "DEFAULT_HANDLER_SERVICE")
MMS_CONFIG_FILE = "/etc/sagemaker-mms.properties"
DEFAULT_MMS_CONFIG_FILE = _not_emulated.value(__name__, "DEFAULT_MMS_CONFIG_FILE")
DEFAULT_MMS_LOG_FILE = _not_emulated.value(__name__, "DEFAULT_MMS_LOG_FILE")
DEFAULT_MMS_MODEL_DIRECTORY = _not_emulated.value(__name__, "DEFAULT_MMS_MODEL_DIRECTORY")
DEFAULT_MMS_MODEL_NAME = "model"
PYTHON_PATH_ENV = "PYTHONPATH"
REQUIREMENTS_PATH = _not_emulated.value(__name__, "REQUIREMENTS_PATH")
MMS_NAMESPACE = "com.amazonaws.ml.mms.ModelServer"
start_model_server = _not_emulated.function(__name__, "start_model_server")

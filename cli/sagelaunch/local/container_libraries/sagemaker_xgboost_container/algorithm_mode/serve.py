# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/algorithm_mode/serve.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.algorithm_mode.serve in sagelaunch local: the container's names,
not its behaviour. Its constants carry the container's values; the rest raises when used
(never at import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

SAGEMAKER_BATCH = _not_emulated.environment("SAGEMAKER_BATCH", None)
SUPPORTED_ACCEPTS = [
    "application/json",
    "application/jsonlines",
    "application/x-recordio-protobuf",
    "text/csv",
]
logging = _not_emulated.logger(__name__)
PARSED_MAX_CONTENT_LENGTH = _not_emulated.environment("MAX_CONTENT_LENGTH", "6291456", cast=int)
number_of_workers = _not_emulated.function(__name__, "number_of_workers")
GunicornApplication = _not_emulated.placeholder_class(__name__, "GunicornApplication")
ScoringService = _not_emulated.placeholder_class(__name__, "ScoringService")
load_model = _not_emulated.function(__name__, "load_model")
ping = _not_emulated.function(__name__, "ping")
execution_parameters = _not_emulated.function(__name__, "execution_parameters")
invocations = _not_emulated.function(__name__, "invocations")

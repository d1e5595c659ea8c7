# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/algorithm_mode/hyperparameter_validation.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.algorithm_mode.hyperparameter_validation in sagelaunch local: the
container's names, not its behaviour. Its constants carry the container's values; the rest
raises when used (never at import), naming what is not emulated and where the job runs
instead."""

from sagemaker_xgboost_container import _not_emulated

initialize = _not_emulated.function(__name__, "initialize")

# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/handler_service.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.handler_service in sagelaunch local: the container's names, not
its behaviour. Its constants carry the container's values; the rest raises when used (never at
import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

HandlerService = _not_emulated.placeholder_class(__name__, "HandlerService")

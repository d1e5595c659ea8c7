# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/algorithm_mode/train.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.algorithm_mode.train in sagelaunch local: the container's names,
not its behaviour. Its constants carry the container's values; the rest raises when used
(never at import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

logger = _not_emulated.logger(__name__)
DOCUMENTATION_LINK = "https://docs.aws.amazon.com/sagemaker/latest/dg/xgboost.html"
get_validated_dmatrices = _not_emulated.function(__name__, "get_validated_dmatrices")
sagemaker_train = _not_emulated.function(__name__, "sagemaker_train")
train_job = _not_emulated.function(__name__, "train_job")
print_cv_metric = _not_emulated.function(__name__, "print_cv_metric")

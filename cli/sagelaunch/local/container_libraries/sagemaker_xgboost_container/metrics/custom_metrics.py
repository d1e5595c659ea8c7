# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/metrics/custom_metrics.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.metrics.custom_metrics in sagelaunch local: the container's names,
not its behaviour. Its constants carry the container's values; the rest raises when used
(never at import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

sigmoid = _not_emulated.function(__name__, "sigmoid")
margin_to_class_label = _not_emulated.function(__name__, "margin_to_class_label")
accuracy = _not_emulated.function(__name__, "accuracy")
balanced_accuracy = _not_emulated.function(__name__, "balanced_accuracy")
f1 = _not_emulated.function(__name__, "f1")
f1_binary = _not_emulated.function(__name__, "f1_binary")
f1_macro = _not_emulated.function(__name__, "f1_macro")
mae = _not_emulated.function(__name__, "mae")
mse = _not_emulated.function(__name__, "mse")
rmse = _not_emulated.function(__name__, "rmse")
precision = _not_emulated.function(__name__, "precision")
precision_macro = _not_emulated.function(__name__, "precision_macro")
precision_micro = _not_emulated.function(__name__, "precision_micro")
recall = _not_emulated.function(__name__, "recall")
recall_macro = _not_emulated.function(__name__, "recall_macro")
recall_micro = _not_emulated.function(__name__, "recall_micro")
r2 = _not_emulated.function(__name__, "r2")
compute_multiclass_and_binary_metrics = _not_emulated.function(
    __name__, "compute_multiclass_and_binary_metrics"
)
CUSTOM_METRICS = _not_emulated.value(__name__, "CUSTOM_METRICS")
get_custom_metrics = _not_emulated.function(__name__, "get_custom_metrics")
configure_feval = _not_emulated.function(__name__, "configure_feval")

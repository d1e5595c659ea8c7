# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/serving.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.serving in sagelaunch local: the container's names, not its
behaviour. Its constants carry the container's values; the rest raises when used (never at
import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

logger = _not_emulated.logger(__name__)
is_multi_model = _not_emulated.function(__name__, "is_multi_model")
set_default_serving_env_if_unspecified = _not_emulated.function(
    __name__, "set_default_serving_env_if_unspecified"
)
default_model_fn = _not_emulated.function(__name__, "default_model_fn")
default_input_fn = _not_emulated.function(__name__, "default_input_fn")
default_predict_fn = _not_emulated.function(__name__, "default_predict_fn")
default_output_fn = _not_emulated.function(__name__, "default_output_fn")
app = None
main = _not_emulated.function(__name__, "main")
serving_entrypoint = _not_emulated.function(__name__, "serving_entrypoint")

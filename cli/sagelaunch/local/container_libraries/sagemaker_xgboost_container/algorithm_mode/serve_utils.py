# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/algorithm_mode/serve_utils.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.algorithm_mode.serve_utils in sagelaunch local: the container's
names, not its behaviour. Its constants carry the container's values; the rest raises when
used (never at import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

logging = _not_emulated.logger(__name__)
PKL_FORMAT = "pkl_format"
XGB_FORMAT = "xgb_format"
SAGEMAKER_BATCH = _not_emulated.environment("SAGEMAKER_BATCH", None)
SAGEMAKER_INFERENCE_OUTPUT = _not_emulated.environment("SAGEMAKER_INFERENCE_OUTPUT", None)
PREDICTED_LABEL = "predicted_label"
LABELS = "labels"
PROBABILITY = "probability"
PROBABILITIES = "probabilities"
RAW_SCORE = "raw_score"
RAW_SCORES = "raw_scores"
PREDICTED_SCORE = "predicted_score"
TOP_LEVEL_OUT_KEY = "predictions"
SCORE_OUT_KEY = "score"
ALL_VALID_SELECT_KEYS = [
    "predicted_label",
    "labels",
    "probability",
    "probabilities",
    "raw_score",
    "raw_scores",
    "predicted_score",
]
VALID_OBJECTIVES = {
    "reg:squarederror": ["predicted_score"],
    "reg:logistic": ["predicted_score"],
    "reg:gamma": ["predicted_score"],
    "reg:absoluteerror": ["predicted_score"],
    "reg:tweedie": ["predicted_score"],
    "binary:logistic": [
        "predicted_label",
        "labels",
        "probability",
        "probabilities",
        "raw_score",
        "raw_scores",
    ],
    "binary:logitraw": ["predicted_label", "labels", "raw_score", "raw_scores"],
    "binary:hinge": ["predicted_label", "labels", "raw_score", "raw_scores"],
    "multi:softmax": ["predicted_label", "labels", "raw_score", "raw_scores"],
    "multi:softprob": [
        "predicted_label",
        "labels",
        "probability",
        "probabilities",
        "raw_score",
        "raw_scores",
    ],
}
parse_content_data = _not_emulated.function(__name__, "parse_content_data")
get_loaded_booster = _not_emulated.function(__name__, "get_loaded_booster")
predict = _not_emulated.function(__name__, "predict")
is_selectable_inference_output = _not_emulated.function(__name__, "is_selectable_inference_output")
get_selected_output_keys = _not_emulated.function(__name__, "get_selected_output_keys")
get_selected_predictions = _not_emulated.function(__name__, "get_selected_predictions")
encode_selected_predictions = _not_emulated.function(__name__, "encode_selected_predictions")
encode_predictions_as_json = _not_emulated.function(__name__, "encode_predictions_as_json")
is_ensemble_enabled = _not_emulated.function(__name__, "is_ensemble_enabled")

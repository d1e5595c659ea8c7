# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/constants/xgb_content_types.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.constants.xgb_content_types in sagelaunch local: the container's
constants, with its values."""

X_LIBSVM = "text/x-libsvm"
LIBSVM = "text/libsvm"
X_PARQUET = "application/x-parquet"
X_RECORDIO_PROTOBUF = "application/x-recordio-protobuf"

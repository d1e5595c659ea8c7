# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/constants/__init__.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.constants in sagelaunch local: a package, as in the container."""

"""Not emulated: the container's Rabit helpers (`rabit_run`) start XGBoost's tracker its own way.
On several hosts, sagelaunch's shipped train_xgboost.py (or XGBoost's collective API) runs under
`sagelaunch local`; on one host a script needs no tracker."""

raise ImportError(
    "sagelaunch local stands in for sagemaker_xgboost_container.data_utils only: the "
    "container's distributed module (rabit_run) is not emulated; run one host, or use the "
    "shipped train_xgboost.py for several"
)

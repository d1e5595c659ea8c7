"""sagelaunch local's stand-in for the XGBoost container's own library,
`sagemaker_xgboost_container` (aws/sagemaker-xgboost-container), which no package index offers.
Public script-mode scripts import its `data_utils.get_dmatrix` to read their channels and its
`distributed.rabit_run` to train across hosts; this package gives them both, as the container
does in File input mode, and refuses by name what it does not emulate (Pipe mode,
recordio-protobuf). It is put on a host's path only when the job's code imports it and this
machine has no such package.
"""

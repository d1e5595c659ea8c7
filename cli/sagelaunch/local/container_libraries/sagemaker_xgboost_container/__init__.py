"""sagelaunch local's stand-in for the XGBoost container's own library,
`sagemaker_xgboost_container` (aws/sagemaker-xgboost-container), which no package index offers.
It has every module and public name the 3.0-5 container's library has (listed from its source in
sagelaunch/data/xgboost_container_surface.json): script-mode scripts get `data_utils.get_dmatrix`
to read their channels as the container does in File mode, `distributed.rabit_run` to train
across hosts, and `checkpointing` (the container's own code) to save a checkpoint per round and
resume from the newest. The rest (algorithm mode, serving, Dask, recordio-protobuf, Pipe mode)
imports as in the container and raises by name when used. It is put on a host's path only when
the job's code imports it and this machine has no such package.
"""

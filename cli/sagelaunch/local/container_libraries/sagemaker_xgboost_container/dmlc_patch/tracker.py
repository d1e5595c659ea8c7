# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/dmlc_patch/tracker.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.dmlc_patch.tracker in sagelaunch local: the container's names, not
its behaviour. Its constants carry the container's values; the rest raises when used (never at
import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

logger = _not_emulated.logger(__name__)
ExSocket = _not_emulated.placeholder_class(__name__, "ExSocket")
kMagic = 65433
get_some_ip = _not_emulated.function(__name__, "get_some_ip")
get_family = _not_emulated.function(__name__, "get_family")
SlaveEntry = _not_emulated.placeholder_class(__name__, "SlaveEntry")
RabitTracker = _not_emulated.placeholder_class(__name__, "RabitTracker")
PSTracker = _not_emulated.placeholder_class(__name__, "PSTracker")
get_host_ip = _not_emulated.function(__name__, "get_host_ip")
submit = _not_emulated.function(__name__, "submit")
start_rabit_tracker = _not_emulated.function(__name__, "start_rabit_tracker")
main = _not_emulated.function(__name__, "main")

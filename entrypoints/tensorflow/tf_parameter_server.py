"""The parameter server the SageMaker TensorFlow container starts on every host beside the worker.

The container's ``_run_ps`` serves ``tf.distribute.Server(ClusterSpec(cluster), job_name="ps",
task_index=<host index>)`` with GPUs hidden, using the cluster of its TF_CONFIG (TF1-style roles:
master, worker, ps), and keeps serving until the host is torn down. ``sagelaunch local`` runs this
script per emulated host with the ps TF_CONFIG the container builds, and stops it once the
workers are done. The chief's TF2 coordinator later sends every server its own cluster view
(master renamed chief), so the ps needs no renaming.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main() -> int:
    import tensorflow as tf

    tf_config = json.loads(os.environ["TF_CONFIG"])
    task = tf_config["task"]
    no_gpu = tf.compat.v1.ConfigProto(device_count={"GPU": 0})
    server = tf.distribute.Server(
        tf.train.ClusterSpec(tf_config["cluster"]),
        job_name="ps",
        task_index=int(task["index"]),
        config=no_gpu,
    )
    print(f"parameter server {task['index']} at {server.target}", flush=True)
    server.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The tf.distribute strategy (or Horovod-style library) for this process's role (tf_cluster)."""

from __future__ import annotations

import types

import tensorflow as tf

import smenv
import tf_cluster
from tf_cluster import Role


def resolver(who: Role) -> tf.distribute.cluster_resolver.ClusterResolver:
    """The TF2 cluster (SageMaker's master already renamed chief), without touching TF_CONFIG."""
    assert who.cluster is not None
    return tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(who.cluster),
        task_type=who.task_type,
        task_id=who.task_index,
        rpc_layer="grpc",
    )


def synchronous(who: Role, name: str = "auto") -> tf.distribute.Strategy:
    """One step at a time on every replica: one host (Mirrored / OneDevice / CentralStorage,
    named by --tf_distribute or picked from the devices) or MWMS."""
    if name != "auto":
        return one_host(who, name)
    if who.kind == tf_cluster.MULTI_WORKER:
        # CPU hosts all-reduce over rings of gRPC; GPU hosts let TF pick NCCL.
        options = tf.distribute.experimental.CommunicationOptions(
            implementation=tf.distribute.experimental.CommunicationImplementation.AUTO
        )
        return tf.distribute.MultiWorkerMirroredStrategy(
            cluster_resolver=resolver(who), communication_options=options
        )
    if who.kind == tf_cluster.MIRRORED:
        return tf.distribute.MirroredStrategy()
    return tf.distribute.OneDeviceStrategy("/cpu:0")


def one_host(who: Role, name: str) -> tf.distribute.Strategy:
    """--tf_distribute one_device|mirrored|central_storage: single-host strategies; a job whose
    environment set up several workers would train apart on each, so that is refused."""
    if who.kind not in (tf_cluster.MIRRORED, tf_cluster.ONE_DEVICE):
        raise smenv.UsageError(
            f"--tf_distribute {name} runs on one host, but this job's distribution set up "
            f"{who.kind}; drop --tf_distribute (auto follows the distribution)"
        )
    gpus = tf.config.list_logical_devices("GPU")
    if name == "one_device":
        return tf.distribute.OneDeviceStrategy("/gpu:0" if gpus else "/cpu:0")
    if name == "mirrored":
        return tf.distribute.MirroredStrategy()
    # Variables on the CPU (one copy), computation replicated on every GPU: the single-host
    # parameter-server layout.
    return tf.distribute.experimental.CentralStorageStrategy()


def parameter_server(who: Role) -> tuple[tf.distribute.Strategy, object]:
    """The chief's ParameterServerStrategy and the ClusterCoordinator that schedules steps."""
    strategy = tf.distribute.experimental.ParameterServerStrategy(resolver(who))
    return strategy, tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)


def serve_as_worker(who: Role) -> None:
    """A parameter-server worker: a TF server running what the chief schedules, until the chief
    is gone (the container waits for the master the same way before the host exits)."""
    assert who.cluster is not None and who.chief_address is not None
    server = tf.distribute.Server(
        tf.train.ClusterSpec(who.cluster),
        job_name=who.task_type,
        task_index=who.task_index,
        protocol="grpc",
        start=True,
    )
    print(f"worker {who.task_index}: serving at {server.target}; waiting for the chief", flush=True)
    tf_cluster.wait_until_down(who.chief_address)


def collective_library(kind: str) -> types.ModuleType:
    """Horovod (mpi) or SMDDP's Horovod-style TensorFlow API, or a UsageError saying why not."""
    try:
        if kind == tf_cluster.SMDDP:
            import smdistributed.dataparallel.tensorflow as library  # type: ignore[import-not-found]
        else:
            import horovod.tensorflow as library  # type: ignore[import-not-found]
    except ImportError as exc:
        where = (
            "SageMaker's TensorFlow 2.3-2.11 GPU images"
            if kind == tf_cluster.SMDDP
            else "SageMaker's TensorFlow GPU images; elsewhere `pip install horovod` built against "
            "this TensorFlow"
        )
        raise smenv.UsageError(
            f"distribution {kind} needs {exc.name or 'its library'}, which is not installed "
            f"here: it ships with {where}"
        ) from None
    return library

"""The TensorFlow rules' cases for test_rules.py: overrides that fire, a message fragment, and
overrides where the rule stays quiet (over tests/conftest.py's BASE, a PyTorch job)."""

from __future__ import annotations

TF = {"framework": "tensorflow", "framework_version": "2.19.0"}
TWO_C5 = {"instance_type": "ml.c5.2xlarge", "instance_count": 2}
P4D = {"instance_type": "ml.p4d.24xlarge", "instance_count": 2}
MWMS = {"strategy": "multi_worker_mirrored"}
SMDDP = {"strategy": "smddp"}

TF_CASES = {
    "tensorflow_tpu_strategy": (
        {**TF, "hyperparameters": {"tf_distribute": "tpu"}},
        "SageMaker has no TPU instances",
        {**TF, "hyperparameters": {"tf_distribute": "mirrored"}},
    ),
    "tensorflow_one_host_strategy": (
        {
            **TF,
            "hyperparameters": {"tf_distribute": "central_storage"},
            "distribution": MWMS,
            "compute": TWO_C5,
        },
        "trains on one host, not with strategy multi_worker_mirrored",
        {**TF, "hyperparameters": {"tf_distribute": "central_storage"}},
    ),
    "tensorflow_strategy": (
        {**TF, "distribution": {"strategy": "torchrun"}},
        "the TensorFlow container runs none, multi_worker_mirrored, parameter_server",
        {**TF, "distribution": {"strategy": "parameter_server"}, "compute": TWO_C5},
    ),
    "smp_v2_is_pytorch": (
        {**TF, "distribution": {"strategy": "smp"}, "compute": P4D},
        "SMP v2 is PyTorch's",
        {**TF, "distribution": {"strategy": "smp", "smp": {"version": 1}}, "compute": P4D},
    ),
    "multi_worker_mirrored_version": (
        {**TF, "framework_version": "2.8", "distribution": MWMS, "compute": TWO_C5},
        "needs TensorFlow 2.9 or later",
        {**TF, "framework_version": "2.9", "distribution": MWMS, "compute": TWO_C5},
    ),
    "tensorflow_smddp_versions": (
        {**TF, "framework_version": "2.12.0", "distribution": SMDDP, "compute": P4D},
        "supports TensorFlow 2.3, 2.3.1",
        {**TF, "framework_version": "2.11.0", "distribution": SMDDP, "compute": P4D},
    ),
    "parameter_server_one_host": (
        {**TF, "distribution": {"strategy": "parameter_server"}},
        "starts no parameter server",
        {**TF, "distribution": {"strategy": "parameter_server"}, "compute": TWO_C5},
    ),
    "horovod_needs_mpi": (
        {**TF, "hyperparameters": {"horovod": True}},
        "only with distribution.strategy: mpi",
        {**TF, "hyperparameters": {"horovod": True}, "distribution": {"strategy": "mpi"}},
    ),
    "tensorflow_script_mode": (
        {**TF, "framework_version": "1.10"},
        "legacy (framework) mode",
        {**TF, "framework_version": "1.11"},
    ),
    "model_dir_for_tensorflow": ({"model_dir": False}, "applies to framework tensorflow", TF),
}

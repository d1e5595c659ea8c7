"""Every CreateTrainingJob field, and what sets it: a launch-config key, or nothing, with the
reason the SageMaker SDK v2 estimator cannot set it. tests/config/test_request_fields.py walks
botocore's input shape against this table, so a new API field fails a test instead of being
silently unreachable. Keys are "Member" (top level) or "Structure.Member"."""

from __future__ import annotations

# Request field -> the launch-config key(s) that set it.
SET_BY: dict[str, str] = {
    "TrainingJobName": "name, job_name",
    "HyperParameters": "hyperparameters (+ entry_point, distribution: the SDK's keys)",
    "AlgorithmSpecification": (
        "framework, framework_version, image_uri, input_mode, metrics, metrics_time_series"
    ),
    "RoleArn": "role",
    "InputDataConfig": "inputs",
    "OutputDataConfig": "output_path",
    "ResourceConfig": "compute",
    "VpcConfig": "network.subnets, network.security_group_ids",
    "StoppingCondition": (
        "compute.max_run, compute.spot.max_wait, compute.max_wait, compute.max_pending"
    ),
    "Tags": "tags",
    "EnableNetworkIsolation": "network.isolation",
    "EnableInterContainerTrafficEncryption": "network.encrypt_inter_container_traffic",
    "EnableManagedSpotTraining": "compute.spot",
    "CheckpointConfig": "checkpoint",
    "DebugHookConfig": "debugger",
    "DebugRuleConfigurations": "debugger.rules",
    "TensorBoardOutputConfig": "tensorboard",
    "ExperimentConfig": "experiment",
    "ProfilerConfig": "profiler",
    "ProfilerRuleConfigurations": "profiler.rules",
    "Environment": "environment",
    "RetryStrategy": "compute.retries",
    "RemoteDebugConfig": "remote_debug",
    "InfraCheckConfig": "infra_check",
    "SessionChainingConfig": "session_tag_chaining",
    "ResourceConfig.InstanceType": "compute.instance_type",
    "ResourceConfig.InstanceCount": "compute.instance_count",
    "ResourceConfig.VolumeSizeInGB": "compute.volume_size_gb",
    "ResourceConfig.VolumeKmsKeyId": "kms.volume_key_id",
    "ResourceConfig.KeepAlivePeriodInSeconds": "compute.keep_alive",
    "ResourceConfig.InstanceGroups": "compute.groups",
    "ResourceConfig.TrainingPlanArn": "compute.training_plan",
    "ResourceConfig.InstancePreferences": "compute.instance_preferences (laid over the SDK's "
    "request: plan/service_fields.py)",
    "ResourceConfig.InstancePlacementConfig": "compute.placement",
    "CheckpointConfig.S3Uri": "checkpoint.s3_uri",
    "CheckpointConfig.LocalPath": "checkpoint.local_path",
    "OutputDataConfig.KmsKeyId": "kms.output_key_id",
    "OutputDataConfig.S3OutputPath": "output_path",
    "OutputDataConfig.CompressionType": "output_compression",
    "Channel.ChannelName": "inputs.<name>",
    "Channel.DataSource": "inputs.<name>.uri, inputs.<name>.file_system",
    "Channel.ContentType": "inputs.<name>.content_type",
    "Channel.CompressionType": "inputs.<name>.compression",
    "Channel.RecordWrapperType": "inputs.<name>.record_wrapping",
    "Channel.InputMode": "inputs.<name>.input_mode",
    "Channel.ShuffleConfig": "inputs.<name>.shuffle_seed",
}

# Request field -> why no launch-config key sets it: the SDK v2 estimator cannot.
NOT_SETTABLE: dict[str, str] = {
    "ServerlessJobConfig": "no EstimatorBase argument builds it (SDK v2 2.257); serverless "
    "training is the SDK v3 ModelTrainer's",
    "MlflowConfig": "no EstimatorBase argument builds it; the SDK v2 estimator writes no MLflow "
    "settings into the request",
    "ModelPackageConfig": "no EstimatorBase argument builds it (model registration from a "
    "training job is not in the SDK v2 estimator)",
    "ResourceConfig.SelectedInstanceType": "set by the service (flexible instance selection), "
    "never by the SDK v2 estimator",
    "ResourceConfig.SelectedInstanceCount": "set by the service (flexible instance selection), "
    "never by the SDK v2 estimator",
}

# Structures whose members the table lists member by member.
WALKED = ("ResourceConfig", "CheckpointConfig", "OutputDataConfig", "Channel")

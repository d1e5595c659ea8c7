"""sagelaunch: one YAML launch config → a validated, planned, submitted and followed SageMaker job."""

__version__ = "0.1.0"

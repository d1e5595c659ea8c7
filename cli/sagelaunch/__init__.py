"""sagelaunch: one YAML launch config → a validated, planned, submitted, followed SageMaker job."""

__version__ = "0.1.0"

"""`sagelaunch export`: a plan rendered as a plain SageMaker SDK script (v2 estimator, v3
ModelTrainer), so a team can leave sagelaunch or move to SDK v3 with the same job."""

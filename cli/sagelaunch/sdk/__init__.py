"""The SageMaker SDK adaptor: the only package that imports `sagemaker`.

One place maps a launch config to an SDK v2 estimator and captures the exact CreateTrainingJob
request the SDK would send, offline. `plan` shows that request; `submit` sends the same one.
"""

"""Launch configs: the model, the located loader and the compatibility rules.

Never imports sagemaker, boto3, torch or xgboost: this is the `validate` fast path.
"""

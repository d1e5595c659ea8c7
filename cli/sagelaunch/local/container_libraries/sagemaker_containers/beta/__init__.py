"""`sagemaker_containers.beta`: only what training scripts import at module level."""

"""`sagelaunch local`: the SageMaker training container emulated on this machine, without Docker.

One folder per emulated host, shaped like the container's /opt/ml (tree), the SM_* environment
the SageMaker training toolkit would compute for it (environment), input channels copied or
sharded into it (channels), the container's launcher per strategy (launchers), processes run and
stopped together (supervisor), and the model packed like SageMaker's artifact (artifacts).

Never imports sagemaker: the caller passes in the planned CreateTrainingJob request.
"""

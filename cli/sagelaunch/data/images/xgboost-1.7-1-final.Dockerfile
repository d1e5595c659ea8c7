# Of aws/sagemaker-xgboost-container docker/1.7-1/final/Dockerfile.cpu at its commit f7a93a21e50e: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/sagemaker-xgboost-container
# path: docker/1.7-1/final/Dockerfile.cpu
# commit: f7a93a21e50e44b4077f0889a7f676cad8c226f3
# sha256: 18a73c1c1bce0016228293395b7e911c178cd35a38c4f5be43898917de52097d
# source: https://github.com/aws/sagemaker-xgboost-container/blob/f7a93a21e50e44b4077f0889a7f676cad8c226f3/docker/1.7-1/final/Dockerfile.cpu

ARG SAGEMAKER_XGBOOST_VERSION=1.7-1
ARG PYTHON_VERSION=3.9
FROM xgboost-container-base:${SAGEMAKER_XGBOOST_VERSION}-cpu-py3
ARG SAGEMAKER_XGBOOST_VERSION
COPY requirements.txt /requirements.txt
RUN python3 -m pip install -r /requirements.txt && rm /requirements.txt
RUN python3 -m pip install git+https://github.com/awslabs/sagemaker-debugger.git@1.0.29
RUN rm -rf /miniconda3/lib/python${PYTHON_VERSION}/site-packages/numpy-1.21.2.dist-info && \
    python3 -m pip install --no-cache /sagemaker_xgboost_container-1.0-py2.py3-none-any.whl && \
    python3 -m pip uninstall -y typing && \
    rm /sagemaker_xgboost_container-1.0-py2.py3-none-any.whl
ENV PYTHONPATH=$PYTHONPATH:/miniconda3/lib/python${PYTHON_VERSION}/site-packages/xgboost/dmlc-core/tracker
ENV XGBOOST_MMS_CONFIG=/home/model-server/config.properties
ENV SM_INPUT /opt/ml/input
ENV SM_INPUT_TRAINING_CONFIG_FILE $SM_INPUT/config/hyperparameters.json
ENV SM_INPUT_DATA_CONFIG_FILE $SM_INPUT/config/inputdataconfig.json
ENV SM_CHECKPOINT_CONFIG_FILE $SM_INPUT/config/checkpointconfig.json
ENV NCCL_SOCKET_IFNAME eth 
ENV SM_MODEL_DIR /opt/ml/model
ENV SAGEMAKER_TRAINING_MODULE sagemaker_xgboost_container.training:main
ENV SAGEMAKER_SERVING_MODULE sagemaker_xgboost_container.serving:main
ENV TEMP=/home/model-server/tmp

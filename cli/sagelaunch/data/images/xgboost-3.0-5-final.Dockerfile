# Of aws/sagemaker-xgboost-container docker/3.0-5/final/Dockerfile.cpu at its commit cb8df91cd44c: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/sagemaker-xgboost-container
# path: docker/3.0-5/final/Dockerfile.cpu
# commit: cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# sha256: 35e55657e9cc09076f68b2c67d4fba4c567f52172b4f1cf1dacfb6f957031e17
# source: https://github.com/aws/sagemaker-xgboost-container/blob/cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae/docker/3.0-5/final/Dockerfile.cpu

ARG SAGEMAKER_XGBOOST_VERSION=3.0-5
FROM xgboost-container-base:${SAGEMAKER_XGBOOST_VERSION}-cpu-py3
ARG SAGEMAKER_XGBOOST_VERSION=3.0-5
ARG PYTHON_VERSION=3.10
RUN python3 -m pip install git+https://github.com/awslabs/sagemaker-debugger.git@v1.0.32
COPY requirements.txt /requirements.txt
RUN python3 -m pip install -r /requirements.txt && rm /requirements.txt
RUN python3 -m pip install --no-cache-dir "protobuf>=3.20.0,<=3.20.3" "fonttools>=4.60.2"
RUN rm -rf /miniconda3/lib/python${PYTHON_VERSION}/site-packages/numpy-1.21.2.dist-info && \
    python3 -m pip install --force-reinstall PyYAML==6.0.1 && \
    python3 -m pip install --no-cache --no-deps /sagemaker_xgboost_container-1.0-py2.py3-none-any.whl && \
    python3 -m pip uninstall -y typing && \
    rm /sagemaker_xgboost_container-1.0-py2.py3-none-any.whl && \
    ln -sf /miniconda3/bin/pip3 /usr/local/bin/pip3
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

# Of aws/deep-learning-containers tensorflow/training/docker/2.14/py3/Dockerfile.cpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: tensorflow/training/docker/2.14/py3/Dockerfile.cpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: baa220d2266af18003c9f850881b0f3737d4cfc478851f3e594d7be13461998f
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/tensorflow/training/docker/2.14/py3/Dockerfile.cpu

FROM ubuntu:20.04 AS base_image
ENV DEBIAN_FRONTEND=noninteractive \
    LD_LIBRARY_PATH="${LD_LIBRARY_PATH}:/usr/local/lib"
FROM base_image AS common
ENV TF_VERSION=2.14
ENV DEBIAN_FRONTEND noninteractive
ENV DEBCONF_NONINTERACTIVE_SEEN true
ENV KMP_AFFINITY=granularity=fine,compact,1,0
ENV KMP_BLOCKTIME=1
ENV KMP_SETTINGS=0
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PYTHONIOENCODING=UTF-8
ENV LANG=C.UTF-8
ENV LC_ALL=C.UTF-8
ARG PYTHON=python3.10
ARG PYTHON_VERSION=3.10.13
ARG PIP=pip3
ARG OMPI_VERSION=4.1.6
ENV PYTHON=${PYTHON}
ENV PYTHON_VERSION=${PYTHON_VERSION}
ENV PIP=${PIP}
ENV LD_LIBRARY_PATH=/usr/local/openmpi/lib:$LD_LIBRARY_PATH
ENV PATH /usr/local/openmpi/bin/:$PATH
RUN ${PIP} --no-cache-dir install --upgrade \
    pip \
    setuptools
RUN ${PIP} install --no-cache-dir -U \
    pybind11 \
    cmake \
    scipy \
    Pillow \
    python-dateutil \
    requests \
    "awscli<2" \
    urllib3 \
    mpi4py \
    # Let's install TensorFlow separately in the end to avoid
    # the library version to be overwritten
 && ${PIP} install --no-cache-dir -U \
    h5py \
    absl-py \
    opencv-python \
    werkzeug \
    psutil \
    "protobuf<4"
FROM common AS ec2
ARG TF_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/tensorflow/r2.14_aws/cpu/2024-01-23-01-25/tensorflow_cpu-2.14.1-cp310-cp310-linux_x86_64.whl
RUN ${PIP} install --no-cache-dir -U \
    ${TF_URL} \
    "tensorflow-io>=0.33.0,<0.34.0" \
    tensorflow-datasets
FROM common AS sagemaker
ARG TF_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/tensorflow/r2.14_aws/cpu/2024-01-23-01-25/tensorflow_cpu-2.14.1-cp310-cp310-linux_x86_64.whl
ENV SAGEMAKER_TRAINING_MODULE sagemaker_tensorflow_container.training:main
RUN pip install wheel \
 && pip install "cython<3" "pyyaml<6" --no-build-isolation
RUN ${PIP} install --no-cache-dir -U \
    tf-models-official==2.14.2 \
    tensorflow-text==2.14.0 \
 && ${PIP} uninstall -y tensorflow tensorflow-gpu \
 && ${PIP} install --no-cache-dir -U \
    ${TF_URL} \
    "tensorflow-io>=0.33.0,<0.34.0" \
    tensorflow-datasets
RUN $PYTHON -m pip install --no-cache-dir -U \
    numba \
    bokeh \
    imageio \
    opencv-python \
    plotly \
    seaborn \
    shap
RUN $PYTHON -m pip install --no-cache-dir -U \
    "sagemaker<3" \
    sagemaker-experiments==0.* \
    sagemaker-tensorflow-training \
    sagemaker-training \
    sagemaker-tensorflow==2.14.* \
    "sagemaker-studio-analytics-extension<1" \
    "sparkmagic<1" \
    "sagemaker-studio-sparkmagic-lib<1" \
    smclarify
ARG SAGEMAKER_TENSORFLOW_TAG=v1.20.0
RUN git clone -b tf-2 https://github.com/aws/sagemaker-tensorflow-extensions.git \
    && cd sagemaker-tensorflow-extensions \
    && git checkout tags/$SAGEMAKER_TENSORFLOW_TAG -b $SAGEMAKER_TENSORFLOW_TAG \
    && $PYTHON -m pip install . \
    && cd .. && rm -rf sagemaker-tensorflow-extensions

# Of aws/deep-learning-containers tensorflow/training/docker/2.19/py3/Dockerfile.cpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: tensorflow/training/docker/2.19/py3/Dockerfile.cpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 5ecaa69b58cc8d8e8bf9fefb2079ebe575087365ec0bdffe2f6d32739a4faa3e
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/tensorflow/training/docker/2.19/py3/Dockerfile.cpu

ARG TF_URL=https://storage.googleapis.com/tensorflow/versions/2.19.0/tensorflow_cpu-2.19.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
FROM ubuntu:22.04 AS base_image
ENV DEBIAN_FRONTEND=noninteractive \
    LD_LIBRARY_PATH="${LD_LIBRARY_PATH}:/usr/local/lib"
FROM base_image AS common
ARG TF_VERSION=2.19
ARG PYTHON=python3.12
ARG PYTHON_VERSION=3.12.11
ARG PIP=pip3
ARG OMPI_VERSION=4.1.8
ENV TF_VERSION=${TF_VERSION}
ENV PYTHON=${PYTHON}
ENV PYTHON_VERSION=${PYTHON_VERSION}
ENV PIP=${PIP}
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
ENV LD_LIBRARY_PATH=/usr/local/openmpi/lib:$LD_LIBRARY_PATH
ENV PATH /usr/local/openmpi/bin/:$PATH
RUN ${PIP} --no-cache-dir install --upgrade \
    pip \
    setuptools
ENV PATH="/root/.local/bin:${PATH}"
RUN uv pip install --system --no-cache-dir \
    pybind11 \
    cmake \
    scipy \
    Pillow \
    python-dateutil \
    requests \
    "awscli<2" \
    urllib3 \
    mpi4py \
    h5py \
    absl-py \
    opencv-python \
    werkzeug \
    psutil \
    protobuf
FROM common AS ec2
ARG TF_URL
RUN uv pip install --system --no-cache-dir \
    ${TF_URL} \
    "tensorflow-io==0.37.*" \
    tensorflow-datasets
FROM common AS sagemaker
ARG TF_URL
ENV SAGEMAKER_TRAINING_MODULE sagemaker_tensorflow_container.training:main
RUN uv pip install --system --no-cache-dir \
    wheel \
    "cython<3" \
    "pyyaml<6" \
    --no-build-isolation
RUN uv pip install --system --no-cache-dir \
    "tf-models-official==${TF_VERSION}.1" \
    "tensorflow-text==${TF_VERSION}.0" \
 && ${PIP} uninstall -y tensorflow tensorflow-gpu \
 && uv pip install --system --no-cache-dir \
    ${TF_URL} \
    "tensorflow-io==0.37.*" \
    tensorflow-datasets \
 && rm -rf /root/.cache/uv /root/.cargo/registry
RUN uv pip install --system --no-cache-dir \
    numba \
    bokeh \
    imageio \
    "opencv-python==4.12.0.88" \
    plotly \
    seaborn \
    "shap<0.50" \
 && rm -rf /root/.cache/uv
RUN uv pip install --system --no-cache-dir \
    "sagemaker>=2.256.0,<3" \
    sagemaker-experiments==0.1.45 \
    sagemaker-tensorflow-training \
    sagemaker-training \
    y-py \
    sagemaker-studio-analytics-extension \
    sparkmagic==0.22.0 \
    sagemaker-studio-sparkmagic-lib \
    smclarify \
 && rm -rf /root/.cache/uv

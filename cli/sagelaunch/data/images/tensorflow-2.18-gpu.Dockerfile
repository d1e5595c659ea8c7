# Of aws/deep-learning-containers tensorflow/training/docker/2.18/py3/cu125/Dockerfile.gpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: tensorflow/training/docker/2.18/py3/cu125/Dockerfile.gpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 344db837bb434e277b32a0200e9a7f3fda0cbf4bc669b6c2d88924d4af86fdea
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/tensorflow/training/docker/2.18/py3/cu125/Dockerfile.gpu

ARG TF_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/tensorflow/r2.18_aws/gpu/2025-01-09-09-51/tensorflow_gpu-2.18.0-cp310-cp310-linux_x86_64.whl
FROM nvidia/cuda:12.5.1-base-ubuntu22.04 AS base_image
ENV DEBIAN_FRONTEND=noninteractive \
    LD_LIBRARY_PATH="${LD_LIBRARY_PATH}:/usr/local/lib"
FROM base_image AS common
ENV TF_VERSION=2.18
ENV DEBIAN_FRONTEND noninteractive
ENV DEBCONF_NONINTERACTIVE_SEEN true
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PYTHONIOENCODING=UTF-8
ENV LANG=C.UTF-8
ENV LC_ALL=C.UTF-8
ENV KMP_AFFINITY=granularity=fine,compact,1,0
ENV KMP_BLOCKTIME=1
ENV KMP_SETTINGS=0
ENV RDMAV_FORK_SAFE=1
ARG PYTHON=python3.10
ARG PIP=pip3
ARG PYTHON_VERSION=3.10.14
ARG OPEN_MPI_PATH=/opt/amazon/openmpi
ARG EFA_PATH=/opt/amazon/efa
ARG EFA_VERSION=1.37.0
ARG OMPI_VERSION=4.1.7
ARG BRANCH_OFI=1.13.2-aws
ARG CUDA=12.5
ARG CUDA_DASH=12-5
ARG CUDNN=9.3.0.75
ARG NCCL_VERSION=2.23.4-1+cuda12.5
ENV PYTHON=${PYTHON}
ENV PYTHON_VERSION=${PYTHON_VERSION}
ENV PIP=${PIP}
ENV LD_LIBRARY_PATH=$OPEN_MPI_PATH/lib/:$EFA_PATH/lib/:$LD_LIBRARY_PATH
ENV LD_LIBRARY_PATH=/usr/local/lib:$LD_LIBRARY_PATH
ENV PATH=$OPEN_MPI_PATH/bin/:$PATH
ENV PATH=$OPEN_MPI_PATH/nvidia/bin:$PATH
RUN ${PIP} --no-cache-dir install --upgrade \
   pip \
   setuptools \
   wheel
RUN ${PIP} install --no-cache-dir -U \
   pybind11 \
   cmake \
   scipy \
   Pillow \
   python-dateutil \
   requests \
   "awscli<2" \
   mpi4py \
   h5py \
   absl-py \
   werkzeug \
   urllib3
ENV TF_AUTOTUNE_THRESHOLD=2
FROM common AS ec2
ARG TF_URL
RUN ${PIP} install --no-cache-dir -U \
   ${TF_URL} \
   "tensorflow-io==0.37.*" \
   "tensorflow-datasets==4.9.7" \
   opencv-python
FROM common AS sagemaker
ARG SMP_URL=https://smppy.s3.amazonaws.com/tensorflow/cu118/smprof-0.3.332-cp310-cp310-linux_x86_64.whl
RUN apt-get update  \
 && apt-get install -y libunwind-dev  \
 && rm -rf /var/lib/apt/lists/* \
 && apt-get clean \
 && ${PYTHON} -m pip install --no-cache-dir ${SMP_URL}
ARG TF_URL
ENV SAGEMAKER_TRAINING_MODULE sagemaker_tensorflow_container.training:main
RUN pip install wheel \
 && pip install "cython<3" "pyyaml<6" --no-build-isolation
RUN ${PIP} install --no-cache-dir -U \
    tf-models-official==2.18.0 \
    tensorflow-text==2.18.1 \
 && ${PIP} uninstall -y tensorflow tensorflow-gpu \
 && ${PIP} install --no-cache-dir -U \
    ${TF_URL} \
    "tensorflow-io==0.37.*" \
    "tensorflow-datasets==4.9.7"
RUN $PYTHON -m pip install --no-cache-dir -U \
    numba==0.61.0 \
    bokeh \
    imageio \
    opencv-python \
    plotly \
    seaborn \
    shap \
    "numpy<2"
RUN $PYTHON -m pip install --no-cache-dir -U \
    "sagemaker<3"
RUN $PYTHON -m pip install --no-cache-dir -U \
    sagemaker-experiments==0.1.45
RUN $PYTHON -m pip install --no-cache-dir -U \
    sagemaker-training==4.8.4
    RUN $PYTHON -m pip install --no-cache-dir -U \
    sagemaker-tensorflow-training==20.4.1
RUN $PYTHON -m pip install --no-cache-dir -U \
    sagemaker-studio-analytics-extension==0.1.4
RUN $PYTHON -m pip install --no-cache-dir -U \
    sagemaker-studio-sparkmagic-lib==0.2.0
RUN $PYTHON -m pip install --no-cache-dir -U \
    sparkmagic==0.21.0 \
    smclarify
ENV TF_AUTOTUNE_THRESHOLD=2

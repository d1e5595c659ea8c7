# Of aws/deep-learning-containers pytorch/training/docker/2.3/py3/Dockerfile.cpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: pytorch/training/docker/2.3/py3/Dockerfile.cpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: f6b06e323c10b1c97df31aa0faa8f38c361adc70fa15794f0ef9536022938b3e
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/pytorch/training/docker/2.3/py3/Dockerfile.cpu

ARG PYTHON=python3
ARG PYTHON_VERSION=3.11.9
ARG PYTHON_SHORT_VERSION=3.11
ARG MINIFORGE3_VERSION=23.11.0-0
ARG PYTORCH_VERSION=2.3.0
ARG CONDA_CHANNEL=https://aws-ml-conda.s3.us-west-2.amazonaws.com
FROM ubuntu:20.04 AS base_image
ENV DEBIAN_FRONTEND=noninteractive \
    LD_LIBRARY_PATH="/usr/local/lib"
FROM base_image AS common
ARG PYTHON
ARG PYTHON_VERSION
ARG OPEN_MPI_VERSION=4.1.5
ARG MINIFORGE3_VERSION
ARG CONDA_CHANNEL
ARG DEBIAN_FRONTEND=noninteractive
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PYTHONIOENCODING=UTF-8
ENV LANG=C.UTF-8
ENV LC_ALL=C.UTF-8
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
ENV LD_LIBRARY_PATH="/opt/conda/lib:${LD_LIBRARY_PATH}"
ENV PATH="/opt/conda/bin:${PATH}"
ENV DGLBACKEND=pytorch
ENV DLC_CONTAINER_TYPE=training
ENV REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
RUN pip install --no-cache-dir --upgrade pip --no-cache-dir --trusted-host pypi.org --trusted-host files.pythonhosted.org \
 && ln -s /opt/conda/bin/pip /usr/local/bin/pip3
RUN /opt/conda/bin/mamba install -y -c conda-forge \
    python=$PYTHON_VERSION \
    cython \
    cryptography \
    pyopenssl \
    pybind11 \
    cmake \
    curl \
    libcurl \
    mkl \
    mkl-include \
    parso \
    typing \
    charset-normalizer \
    packaging \
    awscli \
    boto3 \
    pyyaml \
    scipy \
    click \
    psutil \
    ipython \
    ipykernel \
    pillow \
    h5py \
    mpi4py \
    fsspec \
    "urllib3<2" \
    "idna>=3.7" \
    "tqdm>=4.66.3" \
    "requests>=2.32.0" \
 && /opt/conda/bin/mamba clean -afy \
 && rm -rf /etc/apt/sources.list.d/*
RUN pip install --no-cache-dir opencv-python
ENV PATH="/home/.openmpi/bin:${PATH}"
ENV LD_LIBRARY_PATH="/home/.openmpi/lib/:${LD_LIBRARY_PATH}"
FROM common AS ec2
ARG PYTHON
ARG PYTHON_SHORT_VERSION
ARG PYTORCH_VERSION
ARG CONDA_CHANNEL
RUN /opt/conda/bin/mamba install -y python=${PYTHON_SHORT_VERSION} pytorch=${PYTORCH_VERSION} \
    torchvision torchaudio torchtext cpuonly \
    --override-channels \
    -c ${CONDA_CHANNEL} \
    -c conda-forge \
 && /opt/conda/bin/mamba clean -afy
RUN /opt/conda/bin/mamba install -y -c conda-forge -c fastai \
    accelerate \
    fastai \
    # fastai conda strictly depends on dataclasses
 && pip uninstall -y dataclasses \
 && /opt/conda/bin/mamba clean -afy
FROM common AS sagemaker
ARG PYTHON
ARG PYTHON_SHORT_VERSION
ARG PYTORCH_VERSION
ARG CONDA_CHANNEL
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
RUN /opt/conda/bin/mamba install -y python=${PYTHON_SHORT_VERSION} pytorch=${PYTORCH_VERSION} \
    torchvision torchaudio torchtext cpuonly \
    --override-channels \
    -c ${CONDA_CHANNEL} \
    -c conda-forge \
 && /opt/conda/bin/mamba clean -afy
RUN /opt/conda/bin/mamba install -y -c conda-forge -c fastai \
    accelerate \
    fastai \
    # fastai conda strictly depends on dataclasses
 && pip uninstall -y dataclasses \
 && /opt/conda/bin/mamba clean -afy
RUN pip install --no-cache-dir -U \
    smclarify \
    "sagemaker>=2,<3" \
    "sagemaker-experiments<1" \
    sagemaker-pytorch-training \
    sagemaker-training
RUN /opt/conda/bin/mamba install -y -c conda-forge \
    bokeh \
    imageio \
    numba \
    pandas \
    plotly \
    scikit-learn \
    seaborn \
    shap \
    # pin cloudpickle for sagemaker==2.220.0
    "cloudpickle==2.2.1" \
 && /opt/conda/bin/mamba clean -afy

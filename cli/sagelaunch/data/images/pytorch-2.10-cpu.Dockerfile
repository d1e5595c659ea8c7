# Of aws/deep-learning-containers pytorch/training/docker/2.10/py3/Dockerfile.cpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: pytorch/training/docker/2.10/py3/Dockerfile.cpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 5c037d398c7af5e45544356fef10655e5c9a6111212b59a606fe14cf54e2c403
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/pytorch/training/docker/2.10/py3/Dockerfile.cpu

ARG PYTHON=python3
ARG PYTHON_VERSION=3.13.11
ARG PYTHON_SHORT_VERSION=3.13
ARG PYTORCH_VERSION=2.10.0
ARG OPEN_MPI_VERSION=4.1.7
ARG TORCHTNT_VERSION=0.2.4
ARG TORCHDATA_VERSION=0.11.0
ARG TORCHAUDIO_VERSION=2.10.0
ARG TORCHVISION_VERSION=0.25.0
FROM ubuntu:22.04 AS base_image
ENV DEBIAN_FRONTEND=noninteractive
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
FROM base_image AS common
ARG PYTHON
ARG PYTHON_VERSION
ARG PYTHON_SHORT_VERSION
ARG PYTORCH_VERSION
ARG TORCHTNT_VERSION
ARG TORCHDATA_VERSION
ARG TORCHAUDIO_VERSION
ARG TORCHVISION_VERSION
ARG OPEN_MPI_VERSION
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
ENV LD_LIBRARY_PATH="/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH}"
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PYTHONIOENCODING=UTF-8
ENV LANG=C.UTF-8
ENV LC_ALL=C.UTF-8
ENV DLC_CONTAINER_TYPE=training
ENV PATH="/home/.openmpi/bin:${PATH}"
ENV LD_LIBRARY_PATH="/home/.openmpi/lib:${LD_LIBRARY_PATH}"
ENV PATH="/usr/local/bin:${PATH}"
RUN python -m pip install --upgrade pip --trusted-host pypi.org --trusted-host files.pythonhosted.org
RUN pip install --no-cache-dir \
    cython \
    cryptography \
    pyOpenSSL \
    pybind11 \
    mkl \
    mkl-include \
    parso \
    typing \
    charset-normalizer \
    packaging \
    boto3 \
    PyYAML \
    numpy \
    scipy \
    click \
    psutil \
    ipython \
    ipykernel \
    pillow \
    h5py \
    fsspec \
    "idna>=3.7" \
    "tqdm>=4.66.3" \
    "requests>=2.32.0" \
    "setuptools>=80.10.1" \
    "urllib3>=2.5.0" \
    "awscli" \
    opencv-python==4.11.0.86 \
    mpi4py \
    jinja2>=3.1.6 \
    tornado>=6.5.1 \
    "filelock>=3.20.1" \
    pytz \
    tzdata \
    "nest-asyncio==1.6.0"
RUN pip install --no-cache-dir -U torch==${PYTORCH_VERSION} \
    torchvision==${TORCHVISION_VERSION} \
    torchaudio==${TORCHAUDIO_VERSION} \
    --index-url https://download.pytorch.org/whl/cpu \
    && pip install --no-cache-dir -U torchtnt==${TORCHTNT_VERSION} \
    torchdata==${TORCHDATA_VERSION} \
    s3torchconnector \
    fastai \
    # pin fastcore<2: fastcore 2.0 removed L.starmap, which pinned fastai's optimizer.py still calls
    "fastcore<2" \
    accelerate \
    # pin numpy requirement for fastai dependency
    # requires explicit declaration of spacy, thinc, blis
    spacy==3.8.14 \
    thinc==8.3.13 \
    blis \
    # typer-slim: weasel 1.0.0 dropped it but spacy still needs it
    "typer-slim>=0.24.0" \
    numpy \
 && pip uninstall -y dataclasses
FROM common AS ec2
ARG PYTHON
FROM common AS sagemaker
ARG PYTHON
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
RUN pip install --no-cache-dir -U \
    smclarify \
    "sagemaker>=3.0.0" \
    sagemaker-pytorch-training \
    sagemaker-training
RUN pip install --no-cache-dir -U \
    bokeh \
    imageio \
    numba \
    pandas \
    plotly \
    scikit-learn \
    seaborn \
    shap \
    cloudpickle \
    "s3fs>=2026.2.0" \
    "cachetools>=7.0.5" \
    "greenlet>=3.4.0" \
    "starlette>=1.0.0"
RUN pip install --no-cache-dir -U \
    "boto3>=1.43.34" \
    "botocore>=1.43.34" \
    "awscli>=1.45.34" \
    "s3transfer>=0.19.0"

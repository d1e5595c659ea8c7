# Of aws/deep-learning-containers pytorch/training/docker/2.6/py3/Dockerfile.cpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: pytorch/training/docker/2.6/py3/Dockerfile.cpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 896d6e3d09904e939abdd3489afc7d2570a59c8d5e1dbb4711db2f3ffd4701ff
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/pytorch/training/docker/2.6/py3/Dockerfile.cpu

ARG PYTHON=python3
ARG PYTHON_VERSION=3.12.8
ARG PYTHON_SHORT_VERSION=3.12
ARG PYTORCH_VERSION=2.6.0
ARG OPEN_MPI_VERSION=4.1.7
ARG TORCH_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cpu/torch-2.6.0%2Bcpu-cp312-cp312-linux_x86_64.whl
ARG TORCHVISION_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cpu/torchvision-0.21.0%2Bcpu-cp312-cp312-linux_x86_64.whl
ARG TORCHAUDIO_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cpu/torchaudio-2.6.0%2Bcpu-cp312-cp312-linux_x86_64.whl
ARG TORCHTEXT_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cpu/torchtext-0.18.0%2Bcpu-cp312-cp312-linux_x86_64.whl
ARG TORCHDATA_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cpu/torchdata-0.10.1%2Bcpu-py3-none-any.whl
FROM ubuntu:22.04 AS base_image
ENV DEBIAN_FRONTEND=noninteractive
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
FROM base_image AS common
ARG PYTHON
ARG PYTHON_VERSION
ARG PYTHON_SHORT_VERSION
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
    "setuptools>=75.0.0" \
    "urllib3>=2.5.0" \
    "awscli<2" \
    opencv-python==4.11.0.86 \
    mpi4py
ENV CACHE_BUST_SETUPTOOLS_FIX=20260128
FROM common AS ec2
ARG PYTHON
ARG TORCH_URL
ARG TORCHVISION_URL
ARG TORCHAUDIO_URL
ARG TORCHTEXT_URL
ARG TORCHDATA_URL
RUN pip install --no-cache-dir -U \
    ${TORCH_URL} \
    ${TORCHVISION_URL} \
    ${TORCHAUDIO_URL} \
    ${TORCHTEXT_URL} \
    ${TORCHDATA_URL} \
    torchtnt \
    s3torchconnector \
    # https://github.com/fastai/fastai/issues/4068 Fastai doesn't support PyTorch 2.6 yet
    # it will install an very old version 2.1.10
    # if try to install lastest 2.7.18 requires PyTorch <2.6
    # fastai \
    accelerate \
    # pin numpy requirement for fastai dependency
    # requires explicit declaration of spacy, thic, blis
    spacy \
    #thinc 8.3.6 is not compatible with numpy 1.26.4 (sagemaker doesn't support latest numpy)
    thinc==8.3.4 \
    blis \
    numpy \
    # Explicitly install spacy dependencies to prevent regression
    langcodes \
    language-data \
    marisa-trie \
    typer \
    sniffio \
    # Explicitly install time zone packages to prevent regression
    pytz \
    tzdata \
 && pip uninstall -y dataclasses
RUN pip install --no-cache-dir -U "protobuf==6.33.4"
FROM common AS sagemaker
ARG PYTHON
ARG TORCH_URL
ARG TORCHVISION_URL
ARG TORCHAUDIO_URL
ARG TORCHTEXT_URL
ARG TORCHDATA_URL
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
RUN pip install --no-cache-dir -U \
    ${TORCH_URL} \
    ${TORCHVISION_URL} \
    ${TORCHAUDIO_URL} \
    ${TORCHTEXT_URL} \
    ${TORCHDATA_URL} \
    torchtnt \
    s3torchconnector \
    # https://github.com/fastai/fastai/issues/4068 Fastai doesn't support PyTorch 2.6 yet
    # it will install an very old version 2.1.10
    # if try to install lastest 2.7.18 requires PyTorch <2.6
    # fastai \
    accelerate \
    # pin numpy requirement for fastai dependency
    # requires explicit declaration of spacy, thic, blis
    spacy \
    #thinc 8.3.6 is not compatible with numpy 1.26.4 (sagemaker doesn't support latest numpy)
    thinc==8.3.4 \
    blis \
    numpy \
    # Explicitly install spacy dependencies to prevent regression
    langcodes \
    language-data \
    marisa-trie \
    typer \
    sniffio \
    # Explicitly install time zone packages to prevent regression
    pytz \
    tzdata \
 && pip uninstall -y dataclasses
RUN pip install --no-cache-dir -U "protobuf==6.33.4"
RUN pip install --no-cache-dir -U \
    smclarify \
    "sagemaker>=2,<3" \
    "sagemaker-experiments<1" \
    sagemaker-pytorch-training \
    # sagemaker-training is upgraded to 5.0.0 by autopatch
    "sagemaker-training>=5.0.0"
RUN pip install --no-cache-dir -U \
    bokeh \
    imageio \
    numba \
    pandas \
    plotly \
    scikit-learn \
    seaborn \
    shap \
    # pinned for sagemaker==2.233.0
    cloudpickle 

# Of aws/deep-learning-containers pytorch/training/docker/2.10/py3/cu130/Dockerfile.gpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: pytorch/training/docker/2.10/py3/cu130/Dockerfile.gpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 1b90e4d4505bfa7c516ab8602ba7ad209f1762ac0313e2cb2d481181c0ea5dfc
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/pytorch/training/docker/2.10/py3/cu130/Dockerfile.gpu

ARG PYTHON=python3
ARG PYTHON_VERSION=3.13.11
ARG PYTHON_SHORT_VERSION=3.13
ARG PYTORCH_VERSION=2.10.0
ARG TORCHTNT_VERSION=0.2.4
ARG TORCHAUDIO_VERSION=2.10.0
ARG TORCHVISION_VERSION=0.25.0
ARG TORCHDATA_VERSION=0.11.0
ARG GDRCOPY_VERSION=2.5.1
ARG TE_VERSION=2.11
ARG FLASH_ATTN_VERSION=2.8.3
FROM public.ecr.aws/deep-learning-containers/base:13.0.2-gpu-py313-cu130-ubuntu22.04-ec2 AS common
ARG PYTHON
ARG PYTORCH_VERSION
ARG TORCHDATA_VERSION
ARG TORCHAUDIO_VERSION
ARG TORCHVISION_VERSION
ARG TORCHTNT_VERSION
ARG TE_VERSION
ARG FLASH_ATTN_VERSION
ARG GDRCOPY_VERSION
ENV CUDA_HOME="/usr/local/cuda"
ENV PATH="${CUDA_HOME}/bin:${PATH}"
ENV EFA_PATH="/opt/amazon/efa"
ENV OPEN_MPI_PATH="/opt/amazon/openmpi"
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PYTHONIOENCODING=UTF-8
ENV LANG=C.UTF-8
ENV LC_ALL=C.UTF-8
ENV TORCH_NVCC_FLAGS="-Xfatbin -compress-all"
ENV DLC_CONTAINER_TYPE=training
ENV PATH="${OPEN_MPI_PATH}/bin:${EFA_PATH}/bin:${PATH}"
ENV LD_LIBRARY_PATH="/usr/local/lib:/opt/amazon/ofi-nccl/lib:/opt/amazon/openmpi/lib:/opt/amazon/efa/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH}"
ENV PATH="/usr/local/bin:${PATH}"
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
    ninja \
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
    --index-url https://download.pytorch.org/whl/cu130 \
    && pip install --no-cache-dir -U torchtnt==${TORCHTNT_VERSION} \
    torchdata==${TORCHDATA_VERSION} \
    triton \
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
ENV NVTE_FRAMEWORK=pytorch
RUN MAX_JOBS=4 pip install --no-cache-dir flash-attn==${FLASH_ATTN_VERSION} --no-build-isolation
RUN pip install --no-cache-dir nvidia-mathdx
RUN pip install --no-cache-dir git+https://github.com/NVIDIA/TransformerEngine.git@release_v${TE_VERSION} --no-build-isolation
FROM common AS ec2
ARG PYTHON
ENV DEBIAN_FRONTEND=noninteractive
FROM common AS sagemaker
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
ARG PYTHON
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
    shap \
    scikit-learn \
    seaborn \
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
ENV DEBIAN_FRONTEND=noninteractive

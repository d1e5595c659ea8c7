# Of aws/deep-learning-containers pytorch/training/docker/2.7/py3/cu128/Dockerfile.gpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: pytorch/training/docker/2.7/py3/cu128/Dockerfile.gpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 40208b933a8ed98b2da5fae98349c44bea4fa70f6c1049906db3aca5e4a58db8
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/pytorch/training/docker/2.7/py3/cu128/Dockerfile.gpu

ARG PYTHON=python3
ARG PYTHON_VERSION=3.12.10
ARG PYTORCH_VERSION=2.7.1
ARG TORCHTNT_VERSION=0.2.4
ARG TORCHAUDIO_VERSION=2.7.1
ARG TORCHVISION_VERSION=0.22.1
ARG TORCHDATA_VERSION=0.11.0
ARG GDRCOPY_VERSION=2.5
ARG TE_VERSION=2.3
ARG FLASH_ATTN_VERSION=2.7.4.post1
FROM public.ecr.aws/deep-learning-containers/base:12.8.0-gpu-py312-ubuntu22.04-ec2 as common
ARG PYTORCH_VERSION
ARG TORCHDATA_VERSION
ARG TORCHAUDIO_VERSION
ARG TORCHVISION_VERSION
ARG TORCHTNT_VERSION
ARG PYTHON
ARG GDRCOPY_VERSION
ARG TE_VERSION
ARG FLASH_ATTN_VERSION
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
ENV DEBIAN_FRONTEND=noninteractive
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
ENV LD_LIBRARY_PATH="/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH}"
RUN pip install --no-cache-dir \
    numpy \
    "setuptools>=75.0.0"  \
    ninja \
    cython \
    pybind11 \
    mkl \
    mkl-include
RUN pip install --no-cache-dir -U torch==${PYTORCH_VERSION} \
    torchvision==${TORCHVISION_VERSION} \
    torchaudio==${TORCHAUDIO_VERSION} \
    --index-url https://download.pytorch.org/whl/cu128 \
    && pip install --no-cache-dir -U torchtnt==${TORCHTNT_VERSION} \
    torchdata==${TORCHDATA_VERSION} \
    triton
ENV NVTE_FRAMEWORK=pytorch
RUN MAX_JOBS=18 pip install --no-cache-dir flash-attn==${FLASH_ATTN_VERSION} --no-build-isolation
RUN pip install --no-cache-dir git+https://github.com/NVIDIA/TransformerEngine.git@release_v${TE_VERSION} --no-build-isolation
RUN pip install --no-cache-dir \
    cryptography \
    pyOpenSSL \
    parso \
    typing \
    charset-normalizer \
    packaging \
    "boto3>=1.40.14" \
    PyYAML \
    scipy \
    click \
    psutil \
    ipython \
    ipykernel \
    "pillow>=12.2.0" \
    h5py \
    "fsspec>=2025.7.0" \
    "markupsafe>=3.0.2" \
    mpi4py \
    s3torchconnector \
    accelerate \
    "idna>=3.7" \
    "tqdm>=4.66.3" \
    "requests>=2.32.0" \
    "urllib3>=2.5.0" \
    "pyasn1>=0.6.2" \
    "wheel>=0.46.2" \
    pytz \
    tzdata \
    "awscli>=1.42.14,<2" \
    # opencv-python 4.12.0.88 reuqires numpy<2.3.0, which is not compatible with previous prod image(2.3.1)
    "opencv-python==4.11.0.86" \
    "tornado>=6.5.1" \
    "fastai==2.8.2" \
    # pin numpy requirement for fastai dependency
    # requires explicit declaration of spacy, thic, blis, typer, langcodes, language_data
    spacy \
    #thinc 8.3.6 is not compatible with numpy 1.26.4 (sagemaker doesn't support latest numpy)
    "thinc==8.3.4" \
    blis \
    typer \
    langcodes \
    language_data \
    "jinja2>=3.1.6"\
    "typing-extensions>=4.14.1" \
    "filelock>=3.20.1" \
 && pip uninstall -y dataclasses
FROM common AS ec2
ARG PYTHON
ARG PYTHON_VERSION
FROM common AS sagemaker
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
ARG PYTHON
ARG PYTHON_VERSION
RUN pip install --no-cache-dir -U \
    # address package regression caused by smclarify depedency s3fs"
    awscli \
    boto3 \
    smclarify \
    "sagemaker>=2.9.0,<3" \
    "sagemaker-experiments<1" \
    sagemaker-pytorch-training \
    sagemaker-training \
    sniffio
RUN pip install --no-cache-dir -U \
    bokeh \
    imageio \
    numba \
    pandas \
    plotly \
    shap \
    scikit-learn \
    seaborn \
    # pinned for sagemaker==2.233.0
    cloudpickle

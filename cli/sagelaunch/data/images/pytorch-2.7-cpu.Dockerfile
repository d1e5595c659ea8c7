# Of aws/deep-learning-containers pytorch/training/docker/2.7/py3/Dockerfile.cpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: pytorch/training/docker/2.7/py3/Dockerfile.cpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 5eff2a24930f4f1d849d88e3cf258946a75c43cf52af7a31383383c7c1cf1e05
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/pytorch/training/docker/2.7/py3/Dockerfile.cpu

ARG PYTHON=python3
ARG PYTHON_VERSION=3.12.10
ARG PYTHON_SHORT_VERSION=3.12
ARG PYTORCH_VERSION=2.7.1
ARG OPEN_MPI_VERSION=4.1.7
ARG TORCHTNT_VERSION=0.2.4
ARG TORCHDATA_VERSION=0.11.0
ARG TORCHAUDIO_VERSION=2.7.1
ARG TORCHVISION_VERSION=0.22.1
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
    "pillow>=12.2.0" \
    h5py \
    fsspec \
    "idna>=3.7" \
    "tqdm>=4.66.3" \
    "requests>=2.32.0" \
    "setuptools>=75.0.0" \
    "urllib3>=2.5.0" \
    "pyasn1>=0.6.2" \
    "wheel>=0.46.2" \
    pytz \
    tzdata \
    "awscli<2" \
    "opencv-python==4.11.0.86" \
    mpi4py \
    jinja2>=3.1.6 \
    tornado>=6.5.1 \
    "filelock>=3.20.1"
FROM common AS ec2
ARG PYTHON
ARG PYTHON_SHORT_VERSION
ARG PYTORCH_VERSION
ARG TORCHTNT_VERSION
ARG TORCHDATA_VERSION
ARG TORCHAUDIO_VERSION
ARG TORCHVISION_VERSION
RUN pip install --no-cache-dir -U torch==${PYTORCH_VERSION} \
    torchvision==${TORCHVISION_VERSION} \
    torchaudio==${TORCHAUDIO_VERSION} \
    --index-url https://download.pytorch.org/whl/cpu \
    && pip install --no-cache-dir -U torchtnt==${TORCHTNT_VERSION} \
    torchdata==${TORCHDATA_VERSION} \
    s3torchconnector \
    fastai==2.8.2 \
    accelerate \
    # pin numpy requirement for fastai dependency
    # requires explicit declaration of spacy, thic, blis, typer, langcodes, language_data
    spacy \
    #thinc 8.3.6 is not compatible with numpy 1.26.4 (sagemaker doesn't support latest numpy)
    thinc==8.3.4  \
    blis \
    typer \
    langcodes \
    language_data \
    numpy \
 && pip uninstall -y dataclasses
FROM common AS sagemaker
ARG PYTHON
ARG PYTHON_SHORT_VERSION
ARG PYTORCH_VERSION
ARG TORCHTNT_VERSION
ARG TORCHDATA_VERSION
ARG TORCHAUDIO_VERSION
ARG TORCHVISION_VERSION
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
RUN pip install --no-cache-dir -U torch==${PYTORCH_VERSION} \
    torchvision==${TORCHVISION_VERSION} \
    torchaudio==${TORCHAUDIO_VERSION} \
    --index-url https://download.pytorch.org/whl/cpu \
    && pip install --no-cache-dir -U torchtnt==${TORCHTNT_VERSION} \
    torchdata==${TORCHDATA_VERSION} \
    s3torchconnector \
    fastai==2.8.2 \
    accelerate \
    # pin numpy requirement for fastai dependency
    # requires explicit declaration of spacy, thic, blis, typer, langcodes, language_data
    spacy \
    thinc==8.3.4  \
    blis \
    numpy \
    typer \
    langcodes \
    language_data \
 && pip uninstall -y dataclasses
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
    scikit-learn \
    seaborn \
    shap \
    # pinned for sagemaker==2.233.0
    cloudpickle

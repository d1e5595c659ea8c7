# Of aws/deep-learning-containers pytorch/training/docker/2.4/py3/Dockerfile.cpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: pytorch/training/docker/2.4/py3/Dockerfile.cpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 6dbbcf2f44907bab95266cc502afc75b8f191b4e92e0913c9b47a4859418f5e8
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/pytorch/training/docker/2.4/py3/Dockerfile.cpu

ARG PYTHON=python3
ARG PYTHON_VERSION=3.11.9
ARG PYTHON_SHORT_VERSION=3.11
ARG PYTORCH_VERSION=2.4.0
ARG MINIFORGE3_VERSION=24.7.1-2
ARG OPEN_MPI_VERSION=4.1.5
ARG TORCH_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.4.0/x86/cpu/torch-2.4.0%2Bcpu-cp311-cp311-linux_x86_64.whl
ARG TORCHVISION_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.4.0/x86/cpu/torchvision-0.19.0%2Bcpu-cp311-cp311-linux_x86_64.whl
ARG TORCHAUDIO_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.4.0/x86/cpu/torchaudio-2.4.0%2Bcpu-cp311-cp311-linux_x86_64.whl
ARG TORCHTEXT_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.4.0/x86/cpu/torchtext-0.18.0%2Bcpu-cp311-cp311-linux_x86_64.whl
FROM ubuntu:22.04 AS base_image
ENV DEBIAN_FRONTEND=noninteractive
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
FROM base_image AS common
ARG PYTHON
ARG PYTHON_VERSION
ARG MINIFORGE3_VERSION
ARG OPEN_MPI_VERSION
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
ENV LD_LIBRARY_PATH="/opt/conda/lib:${LD_LIBRARY_PATH}"
ENV LD_LIBRARY_PATH="/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH}"
ENV PATH="/opt/conda/bin:${PATH}"
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PYTHONIOENCODING=UTF-8
ENV LANG=C.UTF-8
ENV LC_ALL=C.UTF-8
ENV DLC_CONTAINER_TYPE=training
ENV PATH="/home/.openmpi/bin:${PATH}"
ENV LD_LIBRARY_PATH="/home/.openmpi/lib:${LD_LIBRARY_PATH}"
ENV REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
RUN pip install --no-cache-dir --upgrade pip --trusted-host pypi.org --trusted-host files.pythonhosted.org \
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
    boto3 \
    pyyaml \
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
    "requests>=2.32.4" \
    "setuptools>=78.1.1" \
    "urllib3==2.5.0" \
    "awscli<2" \
    "pip>=25.0" \
 && /opt/conda/bin/mamba clean -afy \
 && rm -rf /etc/apt/sources.list.d/*
RUN pip install --no-cache-dir \
    # pin numpy version
    "numpy<2" \
    opencv-python \
    mpi4py
FROM common AS ec2
ARG PYTHON
ARG TORCH_URL
ARG TORCHVISION_URL
ARG TORCHAUDIO_URL
ARG TORCHTEXT_URL
RUN pip install --no-cache-dir -U \
    ${TORCH_URL} \
    ${TORCHVISION_URL} \
    ${TORCHAUDIO_URL} \
    ${TORCHTEXT_URL} \
    torchtnt \
    "s3torchconnector==1.2.6" \
    "fastai==2.7.18" \
    "accelerate==1.0.1" \
    # pin numpy requirement for fastai dependency
    # requires explicit declaration of spacy, thic, blis
    spacy \
    thinc \
    blis \
    "numpy<2" \
 && pip uninstall -y dataclasses
FROM common AS sagemaker
ARG PYTHON
ARG TORCH_URL
ARG TORCHVISION_URL
ARG TORCHAUDIO_URL
ARG TORCHTEXT_URL
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
RUN pip install --no-cache-dir -U \
    ${TORCH_URL} \
    ${TORCHVISION_URL} \
    ${TORCHAUDIO_URL} \
    ${TORCHTEXT_URL} \
    torchtnt \
    s3torchconnector \
    fastai \
    accelerate \
 && pip uninstall -y dataclasses
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
    # pinned for sagemaker==2.235.1
    "cloudpickle==2.2.1" \
 && /opt/conda/bin/mamba clean -afy
RUN pip install --no-cache-dir -U \
    # pin numpy requirement for sagemaker dependency
    # requires explicit declaration of spacy, thic, blis
    # pip install due to pip check conflict with conda package
    spacy \
    thinc \
    blis \
    "numpy<2"

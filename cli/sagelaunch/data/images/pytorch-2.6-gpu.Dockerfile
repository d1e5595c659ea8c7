# Of aws/deep-learning-containers pytorch/training/docker/2.6/py3/cu126/Dockerfile.gpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: pytorch/training/docker/2.6/py3/cu126/Dockerfile.gpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 8211d1fa2a0867bf556cc317da2134a025a8394886e9ef4682c9abb51da285d1
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/pytorch/training/docker/2.6/py3/cu126/Dockerfile.gpu

ARG PYTHON=python3
ARG PYTHON_VERSION=3.12.8
ARG PYTHON_SHORT_VERSION=3.12
ARG PYTORCH_VERSION=2.6.0
ARG CUDA_VERSION=12.6.3
ARG CUDNN_VERSION=9.7.0.66
ARG NCCL_VERSION=2.23.4
ARG EFA_VERSION=1.38.0
ARG GDRCOPY_VERSION=2.5
ARG TE_VERSION=2.0
ARG FLASH_ATTN_VERSION=2.7.3
ARG TORCH_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_x86_64.whl
ARG TORCHVISION_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cu126/torchvision-0.21.0%2Bcu126-cp312-cp312-linux_x86_64.whl
ARG TORCHAUDIO_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cu126/torchaudio-2.6.0%2Bcu126-cp312-cp312-linux_x86_64.whl
ARG TORCHTEXT_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cu126/torchtext-0.18.0%2Bcu126-cp312-cp312-linux_x86_64.whl
ARG TORCHDATA_URL=https://framework-binaries.s3.us-west-2.amazonaws.com/pytorch/v2.6.0/x86/cu126/torchdata-0.10.1%2Bcu126-py3-none-any.whl
FROM nvidia/cuda:12.6.3-base-ubuntu22.04 AS base_image
ENV DEBIAN_FRONTEND=noninteractive
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
FROM base_image AS common
ARG PYTHON
ARG PYTHON_VERSION
ARG PYTHON_SHORT_VERSION
ARG CUDA_VERSION
ARG CUDNN_VERSION
ARG NCCL_VERSION
ARG EFA_VERSION
ENV CUDA_HOME="/usr/local/cuda"
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
ENV LD_LIBRARY_PATH="/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH}"
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
ENV LD_LIBRARY_PATH="${OPEN_MPI_PATH}/lib:${EFA_PATH}/lib:${LD_LIBRARY_PATH}"
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
    ninja \
    opencv-python==4.11.0.86 \
    mpi4py
ENV CACHE_BUST_SETUPTOOLS_FIX=20260128
FROM common AS ec2
ARG PYTHON
ARG NCCL_VERSION
ARG GDRCOPY_VERSION
ARG TE_VERSION
ARG FLASH_ATTN_VERSION
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
    triton==3.2.0 \
    s3torchconnector \
    # fastai hasn't released a version compatible with torch 2.6.0
    # https://github.com/fastai/fastai/issues/4068
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
 && pip uninstall dataclasses
RUN pip install --no-cache-dir -U "protobuf==6.33.4"
ENV NVTE_FRAMEWORK=pytorch
RUN MAX_JOBS=4 pip install --no-cache-dir flash-attn==${FLASH_ATTN_VERSION} --no-build-isolation
RUN pip install --no-cache-dir git+https://github.com/NVIDIA/TransformerEngine.git@release_v${TE_VERSION} --no-build-isolation
FROM common AS sagemaker
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
ARG PYTHON
ARG NCCL_VERSION
ARG GDRCOPY_VERSION
ARG TE_VERSION
ARG FLASH_ATTN_VERSION
ARG TORCH_URL
ARG TORCHVISION_URL
ARG TORCHAUDIO_URL
ARG TORCHTEXT_URL
ARG TORCHDATA_URL
ARG SMP_URL=https://smppy.s3.amazonaws.com/pytorch/cu126/smprof-0.3.341-cp312-cp312-linux_x86_64.whl
RUN pip install --no-cache-dir -U ${SMP_URL}
RUN pip install --no-cache-dir -U \
    ${TORCH_URL} \
    ${TORCHVISION_URL} \
    ${TORCHAUDIO_URL} \
    ${TORCHTEXT_URL} \
    ${TORCHDATA_URL} \
    torchtnt \
    triton==3.2.0 \
    s3torchconnector \
    # fastai hasn't released a version compatible with torch 2.6.0
    # https://github.com/fastai/fastai/issues/4068
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
ENV NVTE_FRAMEWORK=pytorch
RUN MAX_JOBS=4 pip install --no-cache-dir flash-attn==${FLASH_ATTN_VERSION} --no-build-isolation
RUN pip install --no-cache-dir git+https://github.com/NVIDIA/TransformerEngine.git@release_v${TE_VERSION} --no-build-isolation
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
    shap \
    scikit-learn \
    seaborn \
    cloudpickle 

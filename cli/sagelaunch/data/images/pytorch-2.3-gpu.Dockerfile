# Of aws/deep-learning-containers pytorch/training/docker/2.3/py3/cu121/Dockerfile.gpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: pytorch/training/docker/2.3/py3/cu121/Dockerfile.gpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: 19ffb7ae662fbe01b747bf86d2bd58b782af034ec505f75dbc3006edd0626e17
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/pytorch/training/docker/2.3/py3/cu121/Dockerfile.gpu

ARG PYTHON=python3
ARG PYTHON_VERSION=3.11.9
ARG PYTHON_SHORT_VERSION=3.11
ARG MINIFORGE3_VERSION=23.11.0-0
ARG PYTORCH_VERSION=2.3.0
ARG CONDA_CHANNEL=https://aws-ml-conda.s3.us-west-2.amazonaws.com
FROM nvidia/cuda:12.1.0-base-ubuntu20.04 AS base_image
ENV DEBIAN_FRONTEND=noninteractive \
    LD_LIBRARY_PATH="${LD_LIBRARY_PATH}:/usr/local/lib"
FROM base_image AS common
ARG PYTHON
ARG PYTHON_VERSION
ARG PYTHON_SHORT_VERSION
ARG MINIFORGE3_VERSION
ARG CONDA_CHANNEL
ARG EFA_PATH=/opt/amazon/efa
ARG DEBIAN_FRONTEND=noninteractive
ENV CUDA_HOME=/opt/conda
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV LD_LIBRARY_PATH="/usr/local/lib:${LD_LIBRARY_PATH}"
ENV LD_LIBRARY_PATH="/opt/conda/lib:${LD_LIBRARY_PATH}"
ENV PYTHONIOENCODING=UTF-8
ENV LANG=C.UTF-8
ENV LC_ALL=C.UTF-8
ENV PATH="/opt/conda/bin:${PATH}"
ENV TORCH_CUDA_ARCH_LIST="5.2;7.0+PTX;7.5;8.0;8.6;9.0"
ENV TORCH_NVCC_FLAGS="-Xfatbin -compress-all"
ENV CUDNN_VERSION=8.9.2.26
ENV NCCL_VERSION=2.21.5
ENV EFA_VERSION=1.32.0
ENV GDRCOPY_VERSION=2.4.1
ENV CMAKE_PREFIX_PATH="$(dirname $(which conda))/../"
ENV OPEN_MPI_PATH=/opt/amazon/openmpi
ENV DGLBACKEND=pytorch
ENV MANUAL_BUILD=0
ENV DLC_CONTAINER_TYPE=training
ENV REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
RUN pip install --upgrade pip --no-cache-dir --trusted-host pypi.org --trusted-host files.pythonhosted.org \
 && ln -s /opt/conda/bin/pip /usr/local/bin/pip3
RUN /opt/conda/bin/mamba install -y -c conda-forge \
    python=$PYTHON_VERSION \
    cython \
    cryptography \
    pyopenssl \
    libgcc \
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
    "idna>=3.7"\
    "tqdm>=4.66.3" \
    "requests>=2.32.0" \
 && /opt/conda/bin/mamba clean -afy \
 && rm -rf /etc/apt/sources.list.d/*
RUN pip install --no-cache-dir opencv-python
ENV PATH="${OPEN_MPI_PATH}/bin:${EFA_PATH}/bin:${PATH}"
ENV LD_LIBRARY_PATH=${OPEN_MPI_PATH}/lib/:${EFA_PATH}/lib/:${LD_LIBRARY_PATH}
FROM common AS ec2
ARG PYTHON
ARG PYTHON_SHORT_VERSION
ARG PYTORCH_VERSION
ARG CONDA_CHANNEL
ARG CUDA_HOME
ARG TORCH_CUDA_ARCH_LIST
ARG NCCL_VERSION
ARG GDRCOPY_VERSION
RUN /opt/conda/bin/mamba install -y python=${PYTHON_SHORT_VERSION} pytorch=${PYTORCH_VERSION} \
    pytorch-cuda=12.1 cuda-nvcc=12.1.* torchvision torchaudio torchtext aws-ofi-nccl \
    --override-channels \
    -c ${CONDA_CHANNEL} \
    -c nvidia \
    -c conda-forge \
 && /opt/conda/bin/mamba clean -afy
RUN /opt/conda/bin/mamba install -y python=${PYTHON_SHORT_VERSION} pytorch=${PYTORCH_VERSION} \
    cuda-libraries-dev=12.1 cuda-libraries-static=12.1 cuda-compiler=12.1 \
    --override-channels \
    -c ${CONDA_CHANNEL} \
    -c nvidia \
    -c conda-forge \
 && /opt/conda/bin/mamba clean -afy
RUN /opt/conda/bin/mamba install -y -c conda-forge -c fastai \
    accelerate \
    fastai \
    # fastai conda strictly depends on dataclasses
 && pip uninstall -y dataclasses \
 && pip install --no-cache-dir torchtnt \
 && /opt/conda/bin/mamba clean -afy
RUN pip install --no-cache-dir packaging \
 && git clone https://github.com/NVIDIA/apex \
 && cd apex \
 && git checkout 23.08 -b apex \
 && pip install -v --disable-pip-version-check --no-cache-dir --no-build-isolation --config-settings "--build-option=--cpp_ext" --config-settings "--build-option=--cuda_ext" ./ \
 && cd .. \
 && rm -rf apex
ENV NVTE_FRAMEWORK=pytorch
RUN MAX_JOBS=4 pip install --no-cache-dir flash-attn==2.0.4 --no-build-isolation
RUN pip install --no-cache-dir git+https://github.com/NVIDIA/TransformerEngine.git@release_v0.12
FROM common AS sagemaker
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
ARG PYTHON
ARG PYTHON_SHORT_VERSION
ARG PYTORCH_VERSION
ARG CONDA_CHANNEL
ARG CUDA_HOME
ARG TORCH_CUDA_ARCH_LIST
ARG NCCL_VERSION
ARG GDRCOPY_VERSION
ARG SMP_URL=https://smppy.s3.amazonaws.com/pytorch/cu121/smprof-0.3.339-cp311-cp311-linux_x86_64.whl
ARG SMD_DATA_PARALLEL_URL=https://smdataparallel.s3.amazonaws.com/binary/pytorch/2.3.0/cu121/2024-05-23/smdistributed_dataparallel-2.3.0-cp311-cp311-linux_x86_64.whl
RUN pip install --no-cache-dir -U ${SMP_URL}
RUN SMDATAPARALLEL_PT=1 pip install --no-cache-dir ${SMD_DATA_PARALLEL_URL}
RUN /opt/conda/bin/mamba install -y python=${PYTHON_SHORT_VERSION} pytorch=${PYTORCH_VERSION} \
    pytorch-cuda=12.1 cuda-nvcc=12.1.* torchvision torchaudio torchtext aws-ofi-nccl \
    --override-channels \
    -c ${CONDA_CHANNEL} \
    -c nvidia \
    -c conda-forge \
 && /opt/conda/bin/mamba clean -afy
RUN /opt/conda/bin/mamba install -y python=${PYTHON_SHORT_VERSION} pytorch=${PYTORCH_VERSION} \
    cuda-libraries-dev=12.1 cuda-libraries-static=12.1 cuda-compiler=12.1 \
    --override-channels \
    -c ${CONDA_CHANNEL} \
    -c nvidia \
    -c conda-forge \
 && /opt/conda/bin/mamba clean -afy
RUN /opt/conda/bin/mamba install -y -c conda-forge -c fastai \
    accelerate \
    fastai \
    # fastai conda strictly depends on dataclasses
 && pip uninstall -y dataclasses \
 && pip install --no-cache-dir torchtnt \
 && /opt/conda/bin/mamba clean -afy
RUN pip install --no-cache-dir packaging \
 && git clone https://github.com/NVIDIA/apex \
 && cd apex \
 && git checkout 23.08 -b apex \
 && pip install -v --disable-pip-version-check --no-cache-dir --no-build-isolation --config-settings "--build-option=--cpp_ext" --config-settings "--build-option=--cuda_ext" ./ \
 && cd .. \
 && rm -rf apex
ENV NVTE_FRAMEWORK=pytorch
RUN MAX_JOBS=4 pip install --no-cache-dir flash-attn==2.0.4 --no-build-isolation
RUN pip install --no-cache-dir git+https://github.com/NVIDIA/TransformerEngine.git@release_v0.12
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
    shap \
    scikit-learn \
    seaborn \
    # pin cloudpickle for sagemaker==2.220.0
    "cloudpickle==2.2.1" \
 && /opt/conda/bin/mamba clean -afy
ENV LD_LIBRARY_PATH="/opt/conda/lib/python${PYTHON_SHORT_VERSION}/site-packages/smdistributed/dataparallel/lib:$LD_LIBRARY_PATH"

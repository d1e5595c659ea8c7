# Of aws/sagemaker-xgboost-container docker/3.0-5/base/Dockerfile.cpu at its commit cb8df91cd44c: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/sagemaker-xgboost-container
# path: docker/3.0-5/base/Dockerfile.cpu
# commit: cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# sha256: 5f7d726227108139333e1cd05a7badd828c191cf4d611959d3bca0546145c3eb
# source: https://github.com/aws/sagemaker-xgboost-container/blob/cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae/docker/3.0-5/base/Dockerfile.cpu

ARG UBUNTU_VERSION=20.04
ARG CUDA_VERSION=12.6.3
ARG IMAGE_DIGEST=c2d95c9c6ff77da41cf0f2f9e8c5088f5b4db20c16a7566b808762f05b9032ef
FROM ubuntu:${UBUNTU_VERSION} as sqlite-builder
FROM nvidia/cuda:${CUDA_VERSION}-base-ubuntu${UBUNTU_VERSION}
ARG MINIFORGE_VERSION=25.9.1-0
ARG CONDA_CHECKSUM=07f64c1d908ae036e9f6a81f97704899311c0ae677d83980d664b9781d4cc5fc
ARG PYTHON_VERSION=3.10
ARG PYARROW_VERSION=22.0.0
ARG MLIO_VERSION=0.9.0
ARG XGBOOST_VERSION=3.0.5
ENV DEBIAN_FRONTEND=noninteractive
ENV LANG=C.UTF-8
ENV LC_ALL=C.UTF-8
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PYTHONIOENCODING='utf-8'
RUN apt-key del 7fa2af80 && \
        apt-get update && apt-get install -y --no-install-recommends wget && \
        wget https://developer.download.nvidia.com/compute/cuda/repos/ubuntu1804/x86_64/cuda-keyring_1.0-1_all.deb && \
        dpkg -i cuda-keyring_1.0-1_all.deb && \
        apt-get update && \
    apt-get -y upgrade && \
    apt-get -y install --no-install-recommends \
        build-essential \
        curl \
        git \
        jq \
        libatlas-base-dev \
        expat \
        nginx \
        openjdk-8-jdk-headless \
        unzip \
        wget \
        apparmor \
        linux-libc-dev \
        libxml2 \
        libgstreamer1.0-0 \
        linux-libc-dev \
        libglib2.0-0 \
        && \
    # MLIO build dependencies
    # Official Ubuntu APT repositories do not contain an up-to-date version of CMake required to build MLIO.
    # Kitware contains the latest version of CMake.
    wget http://es.archive.ubuntu.com/ubuntu/pool/main/libf/libffi/libffi7_3.3-4_amd64.deb && \
    dpkg -i libffi7_3.3-4_amd64.deb && \
    apt-get -y install --no-install-recommends \
        apt-transport-https \
        ca-certificates \
        gnupg \
        software-properties-common \
        && \
    wget -O - https://apt.kitware.com/keys/kitware-archive-latest.asc 2>/dev/null | \
        gpg --dearmor - | \
        tee /usr/share/keyrings/kitware-archive-keyring.gpg >/dev/null && \
    echo 'deb [signed-by=/usr/share/keyrings/kitware-archive-keyring.gpg] https://apt.kitware.com/ubuntu/ bionic main' | tee /etc/apt/sources.list.d/kitware.list >/dev/null && \
    apt-get update && \
    rm /usr/share/keyrings/kitware-archive-keyring.gpg && \
    apt-get install -y --no-install-recommends \
        autoconf \
        automake \
        build-essential \
        cmake \
        cmake-data \
        doxygen \
        kitware-archive-keyring \
        libcurl4-openssl-dev \
        libssl-dev \
        libtool \
        ninja-build \
        python3-dev \
        python3-distutils \
        python3-pip \
        zlib1g-dev \
        libxml2 \
        zstd \
        libsqlite3-0 \
        && \
    # system pip, highest version is 25.0.1
    python3 -m pip install --upgrade "pip<=25.2" && \
    python3 -m pip install --upgrade certifi && \
    apt-get clean && \
    # Node.js setup
    mkdir -p /etc/apt/keyrings && \
    curl -fsSL https://deb.nodesource.com/gpgkey/nodesource-repo.gpg.key | \
        gpg --dearmor -o /etc/apt/keyrings/nodesource.gpg && \
    echo "deb [signed-by=/etc/apt/keyrings/nodesource.gpg] https://deb.nodesource.com/node_20.x nodistro main" | \
        tee /etc/apt/sources.list.d/nodesource.list && \
    apt-get update && \
    apt-get install -y nodejs && \
    npm install -g npm@latest && \
    rm -rf /var/lib/apt/lists/*
ENV PATH=/miniconda3/bin:${PATH}
RUN conda config --system --set auto_update_conda false && \
    conda install -y --solver=libmamba \
        python=${PYTHON_VERSION} \
        requests=2.32.3 \
        openssl=3.6.1 \
        pyarrow=${PYARROW_VERSION} && \
    conda clean -afy
RUN git clone -b v1.65.4 https://github.com/grpc/grpc.git && \
    LIBGRPC_DIR=$(find /miniconda3/pkgs -name "libgrpc-*" -type d | head -n 1) && \
    mkdir -p ${LIBGRPC_DIR}/info/test/examples && \
    cp -r grpc/examples/* ${LIBGRPC_DIR}/info/test/examples/ && \
    cd ${LIBGRPC_DIR}/info/test/examples/node && \
    npm cache clean --force && \
    npm install minimist@latest protobufjs@latest && \
    apt-get purge -y nodejs npm && \
    apt-get autoremove -y && \
    rm -rf /etc/apt/sources.list.d/nodesource.list \
        /etc/apt/keyrings/nodesource.gpg \
        /etc/apt/sources.list.d/kitware.list && \
    apt-get clean && \
    rm -rf /var/lib/apt/lists/* && \
    # Continue with the rest of the build process
    cd /tmp && \
    git clone --branch v${MLIO_VERSION} https://github.com/awslabs/ml-io.git mlio && \
    cd mlio && \
    sed -i 's/find_package(Arrow 14.0.1 REQUIRED/find_package(Arrow 22.0.0 REQUIRED/g' CMakeLists.txt && \
    sed -i 's/pyarrow==14.0.1/pyarrow==22.0.0/g' src/mlio-py/setup.py && \
    build-tools/build-dependency build/third-party all && \
    mkdir -p build/release && \
    cd build/release && \
    cmake -GNinja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$(pwd)/../third-party" ../.. && \
    cmake --build . && \
    cmake --build . --target install && \
    cmake -DMLIO_INCLUDE_PYTHON_EXTENSION=ON -DPYTHON_EXECUTABLE="/miniconda3/bin/python3" \
        -DMLIO_INCLUDE_ARROW_INTEGRATION=ON ../.. && \
    cmake --build . --target mlio-py && \
    cmake --build . --target mlio-arrow && \
    cd ../../src/mlio-py && \
    python3 setup.py bdist_wheel && \
    python3 -m pip install typing && \
    # pip will attempt to install setuptools from PyPi from pip>=25.3
    python3 -m pip install --upgrade pip==25.2 && \
    python3 -m pip install dist/*.whl && \
    cp -r /tmp/mlio/build/third-party/lib/libtbb* /usr/local/lib/ && \
    ldconfig && \
    rm -rf /tmp/mlio
COPY --from=sqlite-builder /usr/local/bin/sqlite3 /usr/local/bin/sqlite3
COPY --from=sqlite-builder /usr/local/lib/libsqlite3.* /usr/local/lib/
COPY --from=sqlite-builder /usr/local/include/sqlite3*.h /usr/local/include/
ENV PATH="/usr/local/bin:${PATH}"
RUN python3 -m pip install --no-cache -I xgboost==${XGBOOST_VERSION} numpy==2.1.0 pyarrow==22.0.0 pandas==2.2.3
ENV LD_LIBRARY_PATH=/miniconda3/lib/python3.10/site-packages/nvidia/nccl/lib:$LD_LIBRARY_PATH

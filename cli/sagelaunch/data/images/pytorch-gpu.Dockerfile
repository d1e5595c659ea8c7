# Of aws/deep-learning-containers docker/pytorch/Dockerfile.cuda at its commit e0ecedea6a1c: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: docker/pytorch/Dockerfile.cuda
# commit: e0ecedea6a1c56d6b5914f9cfb2fec5c548e67e0
# sha256: 1e4325d7723e4bc4dd0b7366256d9c373ec14fbb1d1ea8ccaf1882b138491309
# source: https://github.com/aws/deep-learning-containers/blob/e0ecedea6a1c56d6b5914f9cfb2fec5c548e67e0/docker/pytorch/Dockerfile.cuda

ARG DLC_MAJOR_VERSION=1
ARG DLC_MINOR_VERSION=0
ARG CUDA_VERSION=13.0.2
ARG PYTHON_VERSION=3.12
ARG TORCH_VERSION=2.12.1
ARG TRANSFORMER_ENGINE_VERSION=2.13.0
ARG FLASH_ATTN_VERSION=2.8.3
ARG GDRCOPY_VERSION=2.4.4
ARG EFA_VERSION=1.47.0
ARG MAX_JOBS=8
FROM nvidia/cuda:${CUDA_VERSION}-devel-amzn2023 AS builder-base
ARG FRAMEWORK_SHORT_VERSION=2.12
ARG PYTHON_VERSION
COPY --from=ghcr.io/astral-sh/uv:latest /uv /usr/local/bin/uv
ENV UV_PROJECT_ENVIRONMENT="/opt/venv"
ENV PATH="/opt/venv/bin:${PATH}"
COPY docker/pytorch/${FRAMEWORK_SHORT_VERSION}/cuda/pyproject.toml docker/pytorch/${FRAMEWORK_SHORT_VERSION}/cuda/uv.lock /tmp/build/
RUN --mount=type=cache,target=/root/.cache/uv uv sync --frozen --no-dev --no-install-project
ARG TRANSFORMER_ENGINE_VERSION
RUN CUDNN_HOME=$(python -c "import nvidia.cudnn; print(nvidia.cudnn.__path__[0])") && \
  NCCL_HOME=$(python -c "import nvidia.nccl; print(nvidia.nccl.__path__[0])") && \
  cp ${CUDNN_HOME}/include/*.h /usr/local/cuda/include/ && \
  cp -a ${NCCL_HOME}/include/. /usr/local/cuda/include/ && \
  cp ${CUDNN_HOME}/lib/libcudnn*.so* /usr/local/cuda/lib64/ && \
  ldconfig && \
  export CUDNN_HOME CUDNN_PATH="$CUDNN_HOME" && \
  mkdir -p /tmp/built_wheels && \
  TE_WHL=$(find /tmp/wheels -name "transformer_engine_torch*.whl" 2>/dev/null | head -1) && \
  if [ -n "${TE_WHL}" ]; then \
    echo "Installing cached TE torch wheel: ${TE_WHL}" && \
    pip install "${TE_WHL}" && \
    pip install --no-build-isolation "transformer-engine[pytorch]==${TRANSFORMER_ENGINE_VERSION}"; \
  else \
    echo "No cached TE torch wheel — building from source" && \
    pip install --no-build-isolation "transformer-engine[pytorch]==${TRANSFORMER_ENGINE_VERSION}" && \
    cp /root/.cache/pip/wheels/*/transformer_engine_torch*.whl /tmp/built_wheels/ 2>/dev/null || true; \
  fi
FROM builder-base AS builder-flash-attn
ARG FRAMEWORK_SHORT_VERSION=2.12
ARG FLASH_ATTN_VERSION
ARG MAX_JOBS
COPY docker/pytorch/${FRAMEWORK_SHORT_VERSION}/cuda/pyproject.toml docker/pytorch/${FRAMEWORK_SHORT_VERSION}/wheel[s]/ /tmp/wheels/
RUN --mount=type=cache,target=/root/.cache/uv \
  mkdir -p /tmp/built_wheels && \
  WHL=$(find /tmp/wheels -name "flash*attn*.whl" 2>/dev/null | head -1) && \
  if [ -n "${WHL}" ]; then \
    echo "Installing cached flash-attn wheel: ${WHL}" && \
    uv pip install "${WHL}"; \
  else \
    echo "No cached wheel — building flash-attn from source" && \
    MAX_JOBS=${MAX_JOBS} pip wheel --no-deps --no-build-isolation \
      --wheel-dir /tmp/built_wheels flash-attn==${FLASH_ATTN_VERSION} && \
    uv pip install /tmp/built_wheels/flash_attn*.whl; \
  fi
FROM nvidia/cuda:${CUDA_VERSION}-devel-amzn2023 AS builder-gdrcopy
ARG GDRCOPY_VERSION
FROM nvidia/cuda:${CUDA_VERSION}-runtime-amzn2023 AS builder-oss
ARG PYTHON_VERSION
ARG CUDA_VERSION
COPY --from=builder-base /opt/venv /opt/venv
COPY --from=builder-flash-attn /opt/venv/lib /opt/venv/lib
FROM nvidia/cuda:${CUDA_VERSION}-runtime-amzn2023 AS runtime-base
ARG CUDA_VERSION
ARG PYTHON_VERSION
ARG TORCH_VERSION
ARG DLC_MAJOR_VERSION
ARG DLC_MINOR_VERSION
ARG EFA_VERSION
ENV PYTHONDONTWRITEBYTECODE=1 \
  PYTHONUNBUFFERED=1 \
  PYTHONIOENCODING=UTF-8 \
  LANG=C.UTF-8 \
  LC_ALL=C.UTF-8 \
  DLC_CONTAINER_TYPE=training \
  CUDA_HOME=/usr/local/cuda
COPY --from=builder-base /opt/venv /opt/venv
COPY --from=builder-flash-attn /opt/venv/lib /opt/venv/lib
COPY --from=builder-gdrcopy /usr/local/lib/libgdrapi.so* /usr/local/lib/
FROM runtime-base AS runtime
ARG TORCH_VERSION
ARG FRAMEWORK="pytorch"
ARG CONTAINER_TYPE="training"
COPY --from=builder-oss /root/THIRD_PARTY_SOURCE_CODE_URLS /root/THIRD_PARTY_SOURCE_CODE_URLS
COPY --from=builder-oss /root/PYTHON_PACKAGES_LICENSES /root/PYTHON_PACKAGES_LICENSES
COPY --from=builder-oss /root/LINUX_PACKAGES_LICENSES /root/LINUX_PACKAGES_LICENSES
COPY --from=builder-oss /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES
COPY --from=builder-oss /usr/local/bin/testOSSCompliance /usr/local/bin/testOSSCompliance
ENV PATH="/opt/venv/bin:/opt/amazon/openmpi/bin:/opt/amazon/efa/bin:/usr/local/cuda/bin:${PATH}" \
  LD_LIBRARY_PATH="/opt/venv/lib/python3.12/site-packages/nvidia/cudnn/lib:/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib:/opt/amazon/ofi-nccl/lib64:/opt/amazon/openmpi/lib:/opt/amazon/openmpi/lib64:/opt/amazon/efa/lib:/opt/amazon/efa/lib64:/usr/local/cuda/lib64:/usr/local/lib:${LD_LIBRARY_PATH}"
FROM runtime-base AS sagemaker
ARG FRAMEWORK_SHORT_VERSION=2.12
ARG TORCH_VERSION
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
COPY --from=ghcr.io/astral-sh/uv:latest /uv /usr/local/bin/uv
ENV UV_PROJECT_ENVIRONMENT="/opt/venv"
COPY docker/pytorch/${FRAMEWORK_SHORT_VERSION}/cuda/pyproject.toml docker/pytorch/${FRAMEWORK_SHORT_VERSION}/cuda/uv.lock /tmp/build/
RUN --mount=type=cache,target=/root/.cache/uv cd /tmp/build && uv sync --frozen --no-dev --extra sagemaker --no-install-project --inexact \
  && rm -rf /tmp/build /tmp/uv-*
ARG FRAMEWORK="pytorch"
ARG CONTAINER_TYPE="training"
COPY --from=builder-oss /root/THIRD_PARTY_SOURCE_CODE_URLS /root/THIRD_PARTY_SOURCE_CODE_URLS
COPY --from=builder-oss /root/PYTHON_PACKAGES_LICENSES /root/PYTHON_PACKAGES_LICENSES
COPY --from=builder-oss /root/LINUX_PACKAGES_LICENSES /root/LINUX_PACKAGES_LICENSES
COPY --from=builder-oss /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES
COPY --from=builder-oss /usr/local/bin/testOSSCompliance /usr/local/bin/testOSSCompliance
ENV PATH="/opt/venv/bin:/opt/amazon/openmpi/bin:/opt/amazon/efa/bin:/usr/local/cuda/bin:${PATH}" \
  LD_LIBRARY_PATH="/opt/venv/lib/python3.12/site-packages/nvidia/cudnn/lib:/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib:/opt/amazon/ofi-nccl/lib64:/opt/amazon/openmpi/lib:/opt/amazon/openmpi/lib64:/opt/amazon/efa/lib:/opt/amazon/efa/lib64:/usr/local/cuda/lib64:/usr/local/lib:${LD_LIBRARY_PATH}"
FROM scratch AS wheel-export
COPY --from=builder-flash-attn /tmp/built_wheels/ /wheels/
COPY --from=builder-base /tmp/built_wheels/ /wheels/

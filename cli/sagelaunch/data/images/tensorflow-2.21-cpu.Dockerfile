# Of aws/deep-learning-containers docker/tensorflow/2.21/Dockerfile.cpu at its commit e0ecedea6a1c: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: docker/tensorflow/2.21/Dockerfile.cpu
# commit: e0ecedea6a1c56d6b5914f9cfb2fec5c548e67e0
# sha256: b46baab2ca243c0b3060e8455197cf7cd014ef242d0afecb83e48ff0874c42ec
# source: https://github.com/aws/deep-learning-containers/blob/e0ecedea6a1c56d6b5914f9cfb2fec5c548e67e0/docker/tensorflow/2.21/Dockerfile.cpu

ARG DLC_MAJOR_VERSION=1
ARG PYTHON_VERSION=3.12
ARG TF_VERSION=2.21.0
ARG OPEN_MPI_VERSION=4.1.8
FROM amazonlinux:2023 AS builder-base
ARG PYTHON_VERSION
COPY --from=ghcr.io/astral-sh/uv:latest /uv /usr/local/bin/uv
ENV UV_PROJECT_ENVIRONMENT="/opt/venv"
ENV PATH="/opt/venv/bin:${PATH}"
COPY docker/tensorflow/2.21/cpu/pyproject.toml docker/tensorflow/2.21/cpu/uv.lock /tmp/build/
RUN --mount=type=cache,target=/root/.cache/uv uv sync --frozen --no-dev --no-install-project --inexact
FROM amazonlinux:2023 AS builder-oss
ARG PYTHON_VERSION
COPY --from=builder-base /opt/venv /opt/venv
FROM amazonlinux:2023 AS runtime-base
ARG PYTHON_VERSION
ARG TF_VERSION
ARG OPEN_MPI_VERSION
ARG DLC_MAJOR_VERSION
ENV OPEN_MPI_PATH=/opt/amazon/openmpi \
  PYTHONDONTWRITEBYTECODE=1 \
  PYTHONUNBUFFERED=1 \
  PYTHONIOENCODING=UTF-8 \
  LANG=C.UTF-8 \
  LC_ALL=C.UTF-8 \
  KMP_AFFINITY="granularity=fine,compact,1,0" \
  KMP_BLOCKTIME=1 \
  KMP_SETTINGS=0 \
  TF_AUTOTUNE_THRESHOLD=2 \
  DLC_CONTAINER_TYPE=training
COPY --from=builder-base /opt/venv /opt/venv
ENV PATH="/opt/venv/bin:${OPEN_MPI_PATH}/bin:${PATH}"
ENV LD_LIBRARY_PATH="/opt/amazon/openmpi/lib:/usr/local/lib:${LD_LIBRARY_PATH}"
FROM runtime-base AS sagemaker
ARG TF_VERSION
ARG PYTHON_VERSION
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_tensorflow_container.training:main
COPY --from=ghcr.io/astral-sh/uv:latest /uv /usr/local/bin/uv
ENV UV_PROJECT_ENVIRONMENT="/opt/venv"
COPY docker/tensorflow/2.21/cpu/pyproject.toml docker/tensorflow/2.21/cpu/uv.lock /tmp/build/
RUN --mount=type=cache,target=/root/.cache/uv cd /tmp/build && uv sync --frozen --no-dev --extra sagemaker --no-install-project --inexact \
  && rm -rf /tmp/build /tmp/uv-*
ARG FRAMEWORK="tensorflow"
ARG CONTAINER_TYPE="training"
COPY --from=builder-oss /root/THIRD_PARTY_SOURCE_CODE_URLS /root/THIRD_PARTY_SOURCE_CODE_URLS
COPY --from=builder-oss /root/PYTHON_PACKAGES_LICENSES /root/PYTHON_PACKAGES_LICENSES
COPY --from=builder-oss /root/LINUX_PACKAGES_LICENSES /root/LINUX_PACKAGES_LICENSES
COPY --from=builder-oss /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES
COPY --from=builder-oss /usr/local/bin/testOSSCompliance /usr/local/bin/testOSSCompliance

# Of aws/deep-learning-containers docker/pytorch/Dockerfile.cpu at its commit e0ecedea6a1c: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: docker/pytorch/Dockerfile.cpu
# commit: e0ecedea6a1c56d6b5914f9cfb2fec5c548e67e0
# sha256: 99e5df463695fb53a9f79ca9a0deaf41c81951586cfe87a37d7e14744e810529
# source: https://github.com/aws/deep-learning-containers/blob/e0ecedea6a1c56d6b5914f9cfb2fec5c548e67e0/docker/pytorch/Dockerfile.cpu

ARG DLC_MAJOR_VERSION=1
ARG DLC_MINOR_VERSION=0
ARG PYTHON_VERSION=3.12
ARG TORCH_VERSION=2.12.1
ARG OPEN_MPI_VERSION=4.1.7
FROM amazonlinux:2023 AS builder-base
ARG FRAMEWORK_SHORT_VERSION=2.12
ARG PYTHON_VERSION
COPY --from=ghcr.io/astral-sh/uv:latest /uv /usr/local/bin/uv
ENV UV_PROJECT_ENVIRONMENT="/opt/venv"
ENV PATH="/opt/venv/bin:${PATH}"
COPY docker/pytorch/${FRAMEWORK_SHORT_VERSION}/cpu/pyproject.toml docker/pytorch/${FRAMEWORK_SHORT_VERSION}/cpu/uv.lock /tmp/build/
RUN --mount=type=cache,target=/root/.cache/uv uv sync --frozen --no-dev --no-install-project
FROM amazonlinux:2023 AS builder-oss
ARG PYTHON_VERSION
COPY --from=builder-base /opt/venv /opt/venv
FROM amazonlinux:2023 AS runtime-base
ARG PYTHON_VERSION
ARG TORCH_VERSION
ARG DLC_MAJOR_VERSION
ARG DLC_MINOR_VERSION
ARG OPEN_MPI_VERSION
ENV PYTHONDONTWRITEBYTECODE=1 \
  PYTHONUNBUFFERED=1 \
  PYTHONIOENCODING=UTF-8 \
  LANG=C.UTF-8 \
  LC_ALL=C.UTF-8 \
  DLC_CONTAINER_TYPE=training
COPY --from=builder-base /opt/venv /opt/venv
FROM runtime-base AS runtime
ARG TORCH_VERSION
ARG FRAMEWORK="pytorch"
ARG CONTAINER_TYPE="training"
COPY --from=builder-oss /root/THIRD_PARTY_SOURCE_CODE_URLS /root/THIRD_PARTY_SOURCE_CODE_URLS
COPY --from=builder-oss /root/PYTHON_PACKAGES_LICENSES /root/PYTHON_PACKAGES_LICENSES
COPY --from=builder-oss /root/LINUX_PACKAGES_LICENSES /root/LINUX_PACKAGES_LICENSES
COPY --from=builder-oss /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES
COPY --from=builder-oss /usr/local/bin/testOSSCompliance /usr/local/bin/testOSSCompliance
ENV PATH="/opt/venv/bin:/opt/amazon/openmpi/bin:${PATH}" \
  LD_LIBRARY_PATH="/opt/amazon/openmpi/lib:/usr/local/lib:${LD_LIBRARY_PATH}"
FROM runtime-base AS sagemaker
ARG FRAMEWORK_SHORT_VERSION=2.12
ARG TORCH_VERSION
ENV SAGEMAKER_TRAINING_MODULE=sagemaker_pytorch_container.training:main
COPY --from=ghcr.io/astral-sh/uv:latest /uv /usr/local/bin/uv
ENV UV_PROJECT_ENVIRONMENT="/opt/venv"
COPY docker/pytorch/${FRAMEWORK_SHORT_VERSION}/cpu/pyproject.toml docker/pytorch/${FRAMEWORK_SHORT_VERSION}/cpu/uv.lock /tmp/build/
RUN --mount=type=cache,target=/root/.cache/uv cd /tmp/build && uv sync --frozen --no-dev --extra sagemaker --no-install-project --inexact \
  && rm -rf /tmp/build /tmp/uv-*
ARG FRAMEWORK="pytorch"
ARG CONTAINER_TYPE="training"
COPY --from=builder-oss /root/THIRD_PARTY_SOURCE_CODE_URLS /root/THIRD_PARTY_SOURCE_CODE_URLS
COPY --from=builder-oss /root/PYTHON_PACKAGES_LICENSES /root/PYTHON_PACKAGES_LICENSES
COPY --from=builder-oss /root/LINUX_PACKAGES_LICENSES /root/LINUX_PACKAGES_LICENSES
COPY --from=builder-oss /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES /root/BUILD_FROM_SOURCE_PACKAGES_LICENCES
COPY --from=builder-oss /usr/local/bin/testOSSCompliance /usr/local/bin/testOSSCompliance
ENV PATH="/opt/venv/bin:/opt/amazon/openmpi/bin:${PATH}" \
  LD_LIBRARY_PATH="/opt/amazon/openmpi/lib:/usr/local/lib:${LD_LIBRARY_PATH}"

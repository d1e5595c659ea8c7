# Of aws/deep-learning-containers huggingface/pytorch/training/docker/2.7/py3/cu128/Dockerfile.gpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: huggingface/pytorch/training/docker/2.7/py3/cu128/Dockerfile.gpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: bacca995d209eee779add1bbd382eedfb074802ed216d34547f0696f68cfcaaf
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/huggingface/pytorch/training/docker/2.7/py3/cu128/Dockerfile.gpu

FROM 763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:2.7.1-gpu-py312-cu128-ubuntu22.04-sagemaker
ARG TRANSFORMERS_VERSION=4.55.0
ARG DATASETS_VERSION=4.0.0
ARG HUGGINGFACE_HUB_VERSION=0.34.0
ARG DIFFUSERS_VERSION=0.34.0
ARG EVALUATE_VERSION=0.4.3
ARG ACCELERATE_VERSION=1.4.0
ARG TRL_VERSION=0.21.0
ARG PEFT_VERSION=0.17.0
ARG FLASH_ATTN_VERSION=2.8.2
ARG NINJA_VERSION=1.11.1.4
ARG KERNELS_VERSION=0.9.0
ARG PYTHON=python3
RUN pip install --upgrade pip \
 && pip uninstall -y transformer-engine flash-attn pyarrow cryptography \
 && pip install --no-cache-dir -U pyarrow cryptography pyopenssl Pillow \
 && pip --no-cache-dir install --upgrade wheel setuptools \
 && pip install --no-cache-dir -U "werkzeug==3.0.6"
RUN pip install --no-cache-dir --no-build-isolation kenlm
RUN pip install --no-cache-dir \
    huggingface_hub[hf_transfer]==${HUGGINGFACE_HUB_VERSION} \
    transformers[sklearn,sentencepiece,audio,vision,pipelines]==${TRANSFORMERS_VERSION} \
    datasets==${DATASETS_VERSION} \
    diffusers==${DIFFUSERS_VERSION} \
    Jinja2 \
    tensorboard \
    bitsandbytes \
    kernels==${KERNELS_VERSION} \
    evaluate==${EVALUATE_VERSION} \
    accelerate==${ACCELERATE_VERSION} \
    ninja==${NINJA_VERSION} \
    trl==${TRL_VERSION} \
    peft==${PEFT_VERSION} \
    flash-attn==${FLASH_ATTN_VERSION}
RUN pip install --no-cache-dir dill==0.3.8 multiprocess==0.70.16 \
 && pip install --no-cache-dir pathos==0.3.3 --no-deps \
 && PATHOS_META=$(find /usr/local/lib -type f -path "*pathos-0.3.3.dist-info/METADATA") \
 && sed -i 's/dill.*/dill/' $PATHOS_META \
 && sed -i 's/multiprocess.*/multiprocess/' $PATHOS_META
ENV HF_HUB_ENABLE_HF_TRANSFER="1"
ENV HF_HUB_USER_AGENT_ORIGIN="aws:sagemaker:gpu-cuda:training"

# Of aws/deep-learning-containers huggingface/pytorch/training/docker/2.8/py3/cu129/Dockerfile.gpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: huggingface/pytorch/training/docker/2.8/py3/cu129/Dockerfile.gpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: a5ec48cf7bf2ebe71382070796a39b93efcb38dec59c57eee46b58db54186c09
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/huggingface/pytorch/training/docker/2.8/py3/cu129/Dockerfile.gpu

FROM 763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:2.8.0-gpu-py312-cu129-ubuntu22.04-sagemaker
ARG TRANSFORMERS_VERSION=4.56.2
ARG DATASETS_VERSION=4.1.0
ARG HUGGINGFACE_HUB_VERSION=0.35.3
ARG DIFFUSERS_VERSION=0.35.1
ARG EVALUATE_VERSION=0.4.3
ARG ACCELERATE_VERSION=1.10.1
ARG TRL_VERSION=0.23.0
ARG PEFT_VERSION=0.17.1
ARG FLASH_ATTN_VERSION=2.8.3
ARG NINJA_VERSION=1.13.0
ARG KERNELS_VERSION=0.9.0
ARG PYTHON=python3
RUN pip install --no-cache-dir --no-build-isolation kenlm
RUN pip install --no-cache-dir \
    huggingface_hub[hf_transfer,hf_xet]==${HUGGINGFACE_HUB_VERSION} \
    transformers[torch,sentencepiece,tokenizers,torch-speech,vision,integrations,timm,torch-vision,video,codecarbon,accelerate,mistral-common,chat-template,hub-kernels,sklearn,speech,audio,tiktoken,hf_xet,sagemaker]==${TRANSFORMERS_VERSION} \
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
RUN pip install --upgrade pip \
 && pip uninstall -y sigopt || true \
 && pip uninstall -y ray pyctcdecode \
 && pip install --no-cache-dir -U \
    pyarrow \
    cryptography \
    pyopenssl \
    Pillow \
    wheel \
    setuptools \
    "s3fs==2025.9.0" \
    "werkzeug>=3.1.4" \
    "filelock>=3.20.1" \
    "numpy<2" \
    "shap<0.50.0" \
    "urllib3>=2.5.0"
ENV HF_HUB_ENABLE_HF_TRANSFER="1"
ENV HF_HUB_USER_AGENT_ORIGIN="aws:sagemaker:gpu-cuda:training"

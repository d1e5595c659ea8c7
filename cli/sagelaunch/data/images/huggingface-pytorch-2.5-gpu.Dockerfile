# Of aws/deep-learning-containers huggingface/pytorch/training/docker/2.5/py3/cu124/Dockerfile.gpu at its commit f06ada0e08ec: Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, and COPY of a requirements file or from another stage, each verbatim and whole.
# Written by `python -m sagelaunch.local.image_software`; do not edit (--check compares).
# repo: aws/deep-learning-containers
# path: huggingface/pytorch/training/docker/2.5/py3/cu124/Dockerfile.gpu
# commit: f06ada0e08ec0be1627f201691856eb8c28abd17
# sha256: d8171a53e06d85be6cc8874ce1ecf28e9d3fa0bed050fe218d9bae7b0287086a
# source: https://github.com/aws/deep-learning-containers/blob/f06ada0e08ec0be1627f201691856eb8c28abd17/huggingface/pytorch/training/docker/2.5/py3/cu124/Dockerfile.gpu

FROM 763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-sagemaker
ARG TRANSFORMERS_VERSION=4.49.0
ARG DATASETS_VERSION=3.3.2
ARG HUGGINGFACE_HUB_VERSION=0.29.1
ARG DIFFUSERS_VERSION=0.32.2
ARG EVALUATE_VERSION=0.4.3
ARG ACCELERATE_VERSION=1.4.0
ARG TRL_VERSION=0.15.2
ARG PEFT_VERSION=0.14.0
ARG FLASH_ATTN_VERSION=2.7.3
ARG NINJA_VERSION=1.11.1.3
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
    evaluate==${EVALUATE_VERSION} \
    accelerate==${ACCELERATE_VERSION} \
    ninja==${NINJA_VERSION} \
    trl==${TRL_VERSION} \
    peft==${PEFT_VERSION} \
    flash-attn==${FLASH_ATTN_VERSION}
RUN pip install --no-cache-dir dill==0.3.8 multiprocess==0.70.16 \
 && pip install --no-cache-dir pathos==0.3.3 --no-deps \
 && PATHOS_META=$(find /opt/conda/lib -type f -path "*pathos-0.3.3.dist-info/METADATA") \
 && sed -i 's/dill.*/dill/' $PATHOS_META \
 && sed -i 's/multiprocess.*/multiprocess/' $PATHOS_META
ENV HF_HUB_ENABLE_HF_TRANSFER="1"

"""Small synthetic channel data for the third-party scripts (no downloads).

Each case's channels are folders shaped as the script's own repository feeds it: MNIST as the
idx/gzip files or .npy arrays the script reads, abalone as LIBSVM shards. The launch configs
beside the scripts read them from ``.sagelaunch/third-party-data/`` (``make``-style demo data):

    .venv/bin/python -m tests.local.third_party.data          # writes every case's channels
    .venv/bin/sagelaunch local tests/local/third_party/amazon-sagemaker-examples/mnist_pytorch.yaml
"""

from __future__ import annotations

import gzip
import os
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tests.conftest import REPO

DEFAULT_ROOT = REPO / ".sagelaunch" / "third-party-data"


def _images(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, size=count, dtype=np.uint8)
    images = rng.integers(0, 256, size=(count, 28, 28), dtype=np.uint8)
    return images, labels


def _idx_gz(path: Path, array: np.ndarray) -> None:
    """MNIST's idx format, gzipped: a magic number (3 dims for images, 1 for labels), the sizes
    big-endian, then the bytes (what the scripts skip: 16 bytes of header for images, 8 for
    labels)."""
    header = struct.pack(">HBB", 0, 0x08, array.ndim)
    header += b"".join(struct.pack(">I", size) for size in array.shape)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(header + array.astype(np.uint8).tobytes(), mtime=0))


def mnist_idx(root: Path) -> dict[str, Path]:
    """amazon-sagemaker-examples' MNIST channel: the four idx .gz files, one folder that the
    notebook passes as both ``training`` and ``testing``."""
    folder = root / "mnist-idx"
    for prefix, count, seed in (("train", 256, 1), ("t10k", 64, 2)):
        images, labels = _images(count, seed)
        _idx_gz(folder / f"{prefix}-images-idx3-ubyte.gz", images)
        _idx_gz(folder / f"{prefix}-labels-idx1-ubyte.gz", labels)
    return {"training": folder, "testing": folder}


def mnist_npy(root: Path) -> dict[str, Path]:
    """sagemaker-tensorflow-training-toolkit's test/resources/mnist/data: train/ and test/ .npy."""
    folder = root / "mnist-npy"
    for split, count, seed in (("train", 128, 3), ("test", 32, 4)):
        images, labels = _images(count, seed)
        (folder / split).mkdir(parents=True, exist_ok=True)
        np.save(folder / split / f"x_{split}.npy", images.astype(np.float32) / 255.0)
        np.save(folder / split / f"y_{split}.npy", labels.astype(np.int64))
    return {"training": folder}


def _libsvm(path: Path, rows: int, seed: int) -> None:
    """Abalone-like LIBSVM rows: rings (label) then 8 features, as the container's test data."""
    rng = np.random.default_rng(seed)
    features = rng.uniform(0.0, 1.0, size=(rows, 8))
    rings = np.round(3 + 15 * features[:, 1] + rng.normal(0, 1, size=rows)).clip(1, 29)
    lines = [
        f"{int(label)} " + " ".join(f"{j + 1}:{value:.4f}" for j, value in enumerate(row))
        for label, row in zip(rings, features, strict=True)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def abalone(root: Path) -> dict[str, Path]:
    """sagemaker-xgboost-container's test/resources/abalone/data: train (2 shards), validation."""
    folder = root / "abalone"
    _libsvm(folder / "train" / "abalone.libsvm.train.0", 200, 5)
    _libsvm(folder / "train" / "abalone.libsvm.train.1", 200, 6)
    _libsvm(folder / "validation" / "abalone.libsvm.validation.0", 80, 7)
    return {"train": folder / "train", "validation": folder / "validation"}


def abalone_train(root: Path) -> dict[str, Path]:
    """sagemaker-python-sdk's tests/data/xgboost_abalone/abalone: the one channel ``train``."""
    return {"train": abalone(root)["train"]}


def unread_channel(root: Path) -> dict[str, Path]:
    """The PyTorch toolkit's local test passes its MNIST folder as ``training`` only because
    fit() is given a channel; the script never reads it."""
    folder = root / "unread"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fake_input.txt").write_text("the script does not read its channel\n")
    return {"training": folder}


def mnist_flat(root: Path) -> dict[str, Path]:
    """sagemaker-python-sdk's tests/data/tensorflow_mnist/data: flat 784-pixel rows in
    train_data.npy / eval_data.npy, their labels in train_labels.npy / eval_labels.npy."""
    folder = root / "mnist-flat"
    folder.mkdir(parents=True, exist_ok=True)
    for split, count, seed in (("train", 128, 8), ("eval", 32, 9)):
        images, labels = _images(count, seed)
        np.save(folder / f"{split}_data.npy", images.reshape(count, 784).astype(np.float32))
        np.save(folder / f"{split}_labels.npy", labels.astype(np.int64))
    return {"training": folder}


def mnist_torchvision(root: Path) -> dict[str, Path]:
    """The layout torchvision's ``datasets.MNIST(root, download=False)`` reads: the four idx
    files, uncompressed, under ``MNIST/raw/`` (what the PyTorch MNIST notebooks upload)."""
    folder = root / "mnist-torchvision"
    raw = folder / "MNIST" / "raw"
    for prefix, count, seed in (("train", 128, 10), ("t10k", 32, 11)):
        images, labels = _images(count, seed)
        for kind, array in (("images-idx3", images), ("labels-idx1", labels)):
            gz = raw / f"{prefix}-{kind}-ubyte.gz"
            _idx_gz(gz, array)
            gz.with_suffix("").write_bytes(gzip.decompress(gz.read_bytes()))
            gz.unlink()
    return {"training": folder}


def mnist_npz(root: Path) -> dict[str, Path]:
    """amazon-sagemaker-examples' Horovod TensorFlow notebook: train/train.npz and
    test/test.npz, each with ``data`` and ``labels``, as two channels."""
    folder = root / "mnist-npz"
    for split, count, seed in (("train", 128, 12), ("test", 32, 13)):
        images, labels = _images(count, seed)
        (folder / split).mkdir(parents=True, exist_ok=True)
        np.savez(folder / split / f"{split}.npz", data=images, labels=labels)
    return {"train": folder / "train", "test": folder / "test"}


def no_channels(root: Path) -> dict[str, Path]:
    return {}


# A Hugging Face notebook's channels are what its datasets and transformers write: built by them,
# at the pins the job's image (the stored 4.49 one) loads them with, installed into a scratch
# folder from uv's cache (UV_OFFLINE set: nothing asked of an index; `make test` fills it).
HF_BUILD = """\
import random, sys
from pathlib import Path
from datasets import Dataset
from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

root = Path(sys.argv[1])
words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
words += "good bad movie great awful fine plot acting the a was is".split()
(root / "model").mkdir(parents=True, exist_ok=True)
(root / "model" / "vocab.txt").write_text("\\n".join(words) + "\\n")
tokenizer = BertTokenizerFast(str(root / "model" / "vocab.txt"))
tokenizer.save_pretrained(root / "model")
config = BertConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=2,
                    num_attention_heads=2, intermediate_size=64, max_position_embeddings=32)
BertForSequenceClassification(config).save_pretrained(root / "model")
rng = random.Random(0)
for split, count in (("train", 64), ("test", 32)):
    texts = [" ".join(rng.choice(words[5:]) for _ in range(6)) for _ in range(count)]
    encoded = tokenizer(texts, padding="max_length", max_length=16, truncation=True)
    labels = [int("good" in text or "great" in text) for text in texts]
    Dataset.from_dict({**encoded, "labels": labels}).save_to_disk(str(root / split))
"""


def hf_sequence_classification(root: Path) -> dict[str, Path]:
    """IMDb-shaped train/test save_to_disk folders of token ids and labels, and a tiny BERT
    (with its tokenizer) for `model_name`, as the notebook's preprocessing and the Hub give."""
    folder = root / "hf-imdb"
    channels = {name: folder / name for name in ("train", "test", "model")}
    if all(path.is_dir() for path in channels.values()):
        return channels
    from sagelaunch.local import container_packages, image_software, software

    tools, imports = root / "hf-tools", root / "hf-imports"
    imports.mkdir(parents=True, exist_ok=True)
    (imports / "build.py").write_text("import datasets\nimport transformers\n")
    pins = container_packages.missing_pins(
        image_software.choose("huggingface", "4.49", "ml.p3.2xlarge"), imports
    )
    excludes = root / "hf-excludes.txt"
    excludes.parent.mkdir(parents=True, exist_ok=True)
    excludes.write_text("\n".join(software._already_installed([])) + "\n")
    command = [*software.uv_command(), "pip", "install", "-q", "--python", sys.executable]
    command += ["--target", str(tools), "--excludes", str(excludes), *pins]
    subprocess.run(command, check=True)
    # USE_TF=0: transformers would import this venv's TensorFlow too (seconds), which it needs not
    env = {**os.environ, "PYTHONPATH": str(tools), "USE_TF": "0"}
    subprocess.run([sys.executable, "-c", HF_BUILD, str(folder)], check=True, env=env)
    return channels


# Case name (the config's stem) -> its channels.
CHANNELS: dict[str, Callable[[Path], dict[str, Path]]] = {
    "distributed_operations": unread_channel,
    "openmpi": no_channels,
    "abalone_distributed": abalone,
    "abalone_distributed_2hosts": abalone,
    "mnist": mnist_npy,
    "tuning_model_dir": no_channels,
    "params_script": no_channels,
    "params_script_sh": no_channels,
    "mnist_pytorch": mnist_idx,
    "mnist_tensorflow": mnist_idx,
    # issue 62 item 6
    "multi_worker_mnist": mnist_npy,
    "multi_worker_mnist_mwms": mnist_npy,
    "tensorflow_mnist_ps": mnist_flat,
    "hvd_basic": no_channels,
    "xgboost_abalone_dist": abalone,
    "mnist_hvd": mnist_npz,
    "pytorch_horovod_mnist": mnist_torchvision,
    "mpi_demo": no_channels,
    "smdataparallel_mnist": no_channels,
    "model_trainer_basic": no_channels,
    "tensorflow2_mnist": mnist_idx,
    "heterogeneous_clusters": no_channels,
    "hpo_pytorch_mnist": mnist_torchvision,
    "xgboost_abalone_isolated": abalone_train,
    "getting_started_pytorch": hf_sequence_classification,
}


def write_all(root: Path = DEFAULT_ROOT) -> None:
    for make in {id(f): f for f in CHANNELS.values()}.values():
        make(root)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_ROOT
    write_all(target)
    print(f"wrote the third-party scripts' channels under {target}")

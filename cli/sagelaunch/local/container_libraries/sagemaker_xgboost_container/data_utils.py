"""`get_dmatrix` and `get_content_type` as the XGBoost container's data_utils behaves in File
input mode: a channel folder (files up to three folders deep, names starting with '.' or '_'
skipped) or one file, in CSV (label first, the delimiter sniffed from the first line, instance
weights second with csv_weights=1), LIBSVM or Parquet (label first). Pipe mode and
recordio-protobuf are refused with the reason: sagelaunch local feeds channels as files."""

from __future__ import annotations

import csv
import os
import tempfile
import warnings

import xgboost as xgb

CSV, LIBSVM, PARQUET, RECORDIO_PROTOBUF = "csv", "libsvm", "parquet", "recordio-protobuf"
MAX_FOLDER_DEPTH = 3
_CONTENT_TYPES = {
    "csv": CSV,
    "text/csv": CSV,
    "libsvm": LIBSVM,
    "text/libsvm": LIBSVM,
    "text/x-libsvm": LIBSVM,
    "parquet": PARQUET,
    "application/x-parquet": PARQUET,
    "recordio-protobuf": RECORDIO_PROTOBUF,
    "application/x-recordio-protobuf": RECORDIO_PROTOBUF,
}
NOT_EMULATED = "sagelaunch local's stand-in for sagemaker_xgboost_container does not read {}"


def get_content_type(content_type: str | None) -> str:
    """'text/csv; label_size=1' -> 'csv'; None -> 'libsvm' (the algorithm's default)."""
    if content_type is None:
        return LIBSVM
    media, *parameters = [part.strip() for part in content_type.lower().split(";")]
    if media not in _CONTENT_TYPES:
        raise ValueError(
            f"{content_type} is not an accepted ContentType: {', '.join(_CONTENT_TYPES)}"
        )
    label_size = dict(p.split("=", 1) for p in parameters if "=" in p).get("label_size", "1")
    if _CONTENT_TYPES[media] == CSV and label_size != "1":
        raise ValueError(f"{content_type}: label_size must be 1 for XGBoost")
    return _CONTENT_TYPES[media]


def get_dmatrix(data_path, content_type, csv_weights=0, is_pipe=False):
    """The channel's data as one DMatrix (None when ``data_path`` does not exist)."""
    if is_pipe:
        raise NotImplementedError(NOT_EMULATED.format("Pipe input mode: use File mode locally"))
    kind = content_type.lower()
    if kind == RECORDIO_PROTOBUF:
        raise NotImplementedError(NOT_EMULATED.format("recordio-protobuf"))
    paths = data_path if isinstance(data_path, list) else [data_path]
    existing = [path for path in paths if os.path.exists(path)]
    if not existing:
        return None
    files = [file for path in existing for file in _data_files(path, 1)]
    dmatrix = _parquet(files) if kind == PARQUET else _text(files, kind, csv_weights)
    if dmatrix.get_label().size == 0:
        raise ValueError(
            f"Got input data without labels. Please check the input data set ({data_path})."
        )
    return dmatrix


def _data_files(path: str, depth: int) -> list[str]:
    if os.path.isfile(path):
        return [path]
    if depth > MAX_FOLDER_DEPTH:
        return []
    found = []
    for entry in sorted(os.scandir(path), key=lambda e: e.name):
        if entry.name.startswith((".", "_")):
            continue
        found += _data_files(entry.path, depth + 1) if entry.is_dir() else [entry.path]
    return found


def _text(files: list[str], kind: str, csv_weights: int) -> xgb.DMatrix:
    """XGBoost's own text reader over a folder of links to the files, as the container does.
    The DMatrix holds the data once built, so the folder goes at once: nothing is left behind
    (in /tmp when the run has no sandbox)."""
    if kind not in (CSV, LIBSVM):  # the container fails too: it takes get_content_type's answer
        raise ValueError(f"get_dmatrix reads {CSV}, {LIBSVM} or {PARQUET}, not {kind!r}")
    with tempfile.TemporaryDirectory(prefix="sagemaker_xgboost_input_data-") as folder:
        for number, file in enumerate(files):
            os.symlink(os.path.abspath(file), os.path.join(folder, f"{number:06d}"))
        if kind == LIBSVM:
            return _read_uri(f"{folder}?format=libsvm")
        with open(files[0], errors="ignore") as first:
            delimiter = csv.Sniffer().sniff(first.readline()).delimiter
        weights = "&weight_column=1" if csv_weights == 1 else ""
        return _read_uri(f"{folder}?format=csv&label_column=0&delimiter={delimiter}{weights}")


def _read_uri(uri: str) -> xgb.DMatrix:
    """XGBoost 3.1 and later warn that its text reader is deprecated; the containers' XGBoost
    (1.7, 3.0) reads text without a word, and the warning would be about this stand-in's way of
    reading, not about the user's script: it is left out."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "(?s).*Text file input has been deprecated", UserWarning)
        return xgb.DMatrix(uri)


def _parquet(files: list[str]) -> xgb.DMatrix:
    import numpy as np
    import pandas as pd

    data = np.vstack([pd.read_parquet(file).to_numpy() for file in files])
    return xgb.DMatrix(data[:, 1:], label=data[:, 0])

"""`get_dmatrix` and `get_content_type` as the XGBoost container's data_utils behaves in File
input mode: a channel folder (files up to three folders deep, names starting with '.' or '_'
skipped) or one file, in CSV (label first, the delimiter sniffed from the first line, instance
weights second with csv_weights=1), LIBSVM or Parquet (label first), and the per-format readers,
get_size and check_data_redundancy beneath it. Pipe mode and recordio-protobuf are refused with the
reason: sagelaunch local feeds channels as files; so is validate_data_file_path (the built-in
algorithm's check), when called."""

from __future__ import annotations

import csv
import logging
import os
import tempfile
import warnings

import xgboost as xgb

from sagemaker_xgboost_container import _not_emulated

BATCH_SIZE = 4000
CSV, LIBSVM, PARQUET, RECORDIO_PROTOBUF = "csv", "libsvm", "parquet", "recordio-protobuf"
MAX_FOLDER_DEPTH = 3
# The container's own lists and messages (sagemaker_containers' CSV is text/csv).
VALID_CONTENT_TYPES = [
    *(CSV, LIBSVM, PARQUET, RECORDIO_PROTOBUF, "text/csv", "text/libsvm", "text/x-libsvm"),
    *("application/x-parquet", "application/x-recordio-protobuf"),
]
VALID_PIPED_CONTENT_TYPES = [CSV, PARQUET, RECORDIO_PROTOBUF, "text/csv"]
VALID_PIPED_CONTENT_TYPES += ["application/x-parquet", "application/x-recordio-protobuf"]
INVALID_CONTENT_TYPE_ERROR = (
    "{invalid_content_type} is not an accepted ContentType: " + ", ".join(VALID_CONTENT_TYPES) + "."
)
INVALID_CONTENT_FORMAT_ERROR = (
    "First line '{line_snippet}...' of file '{file_name}' is not "
    "'{content_type}' format. Please ensure the file is in '{content_type}' format."
)
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


def get_csv_dmatrix(path, csv_weights, is_pipe=False):
    """CSV data (a file or a folder of files) as the container reads it in File mode."""
    _refuse_pipe(is_pipe)
    return _text(_data_files(path, 1), CSV, csv_weights)


def get_libsvm_dmatrix(files_path, is_pipe=False):
    """LIBSVM data (a file or a folder of files) as the container reads it."""
    _refuse_pipe(is_pipe)
    return _text(_data_files(files_path, 1), LIBSVM, 0)


def get_parquet_dmatrix(path, is_pipe=False):
    """Parquet data (a file or a folder of files), label first, as the container reads it."""
    _refuse_pipe(is_pipe)
    return _parquet(_data_files(path, 1))


def _refuse_pipe(is_pipe: bool) -> None:
    if is_pipe:
        raise NotImplementedError(NOT_EMULATED.format("Pipe input mode: use File mode locally"))


get_recordio_protobuf_dmatrix = _not_emulated.function(
    __name__, "get_recordio_protobuf_dmatrix", "recordio-protobuf input is not emulated"
)
validate_data_file_path = _not_emulated.function(
    __name__, "validate_data_file_path", "the built-in algorithm's input validation is not emulated"
)


def get_size(data_path, is_pipe=False):
    """The data's size in bytes (0 where it does not exist), as the container's get_size: the
    built-in algorithm and scripts use it to tell a host without data."""
    if is_pipe and os.path.exists(f"{data_path}_0"):
        return 1
    if not os.path.exists(data_path):
        logging.info(f"Path {data_path} does not exist!")
        return 0
    if os.path.isfile(data_path):
        return os.path.getsize(data_path)
    total = 0
    for root, _, files in os.walk(data_path):
        for name in files:
            if name.startswith("."):
                raise ValueError("Hidden file found in the data path! Remove that before training.")
            total += os.path.getsize(os.path.join(root, name))
    return total


def check_data_redundancy(train_path, validate_path):
    """Warn, as the container does, of files of the same name and size in both channels."""
    for path, channel in ((train_path, "training"), (validate_path, "validation")):
        if not os.path.exists(path):
            raise ValueError(f"{channel} data's path is not existed")
    for name in sorted(_file_names(train_path) & _file_names(validate_path)):
        train, validate = os.path.join(train_path, name), os.path.join(validate_path, name)
        if os.path.getsize(train) == os.path.getsize(validate):
            logging.warning(
                f"Suspected identical files found. ({train} and {validate}"
                f"with same size {os.path.getsize(validate)} bytes)."
                " Note: Duplicate data in the training set and validation set is usually"
                " not intentional and can impair the validity of the model evaluation by"
                " the validation score."
            )


def _file_names(folder: str) -> set[str]:
    return {f for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f))}

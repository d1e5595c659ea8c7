"""Training data for the XGBoost entry point: CSV, libsvm and parquet files from one channel.

SageMaker's conventions hold throughout: the label is the first column, CSV files have no header,
and the format comes from the channel's ContentType, else from each file. A bad file stops the job
with one line naming the file and line, because on a 50-file channel "could not convert string to
float" alone sends the user searching.

Standard library and numpy; scipy (a dependency of xgboost itself) for libsvm and pandas/pyarrow
for parquet are imported only when such a file turns up.
"""

from __future__ import annotations

import csv
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import smenv

CSV, LIBSVM, PARQUET = "csv", "libsvm", "parquet"

# ContentType values SageMaker users write for the XGBoost containers, and short forms.
_CONTENT_TYPES = {
    "text/csv": CSV,
    "csv": CSV,
    "text/libsvm": LIBSVM,
    "text/x-libsvm": LIBSVM,
    "application/x-libsvm": LIBSVM,
    "libsvm": LIBSVM,
    "application/x-parquet": PARQUET,
    "application/parquet": PARQUET,
    "parquet": PARQUET,
}
_EXTENSIONS = {".csv": CSV, ".libsvm": LIBSVM, ".svm": LIBSVM, ".parquet": PARQUET, ".pq": PARQUET}


@dataclass(frozen=True)
class Dataset:
    """One channel's rows on this host: dense features (csv, parquet) or CSR (libsvm)."""

    features: Any  # np.ndarray, or scipy.sparse.csr_matrix for libsvm
    labels: np.ndarray
    files: tuple[Path, ...]

    @property
    def sparse(self) -> bool:
        return not isinstance(self.features, np.ndarray)

    @property
    def num_features(self) -> int:
        return int(self.features.shape[1])

    def widened(self, num_features: int) -> Dataset:
        """The same rows with ``num_features`` columns: libsvm files only say which features
        they use, so shards and channels are widened to agree; dense files must already agree."""
        if num_features == self.num_features:
            return self
        if not self.sparse:
            raise smenv.UsageError(
                f"{self.files[0].parent}: rows have {self.num_features} features, "
                f"but other data has {num_features}"
            )
        features = self.features.copy()
        features.resize((features.shape[0], num_features))
        return Dataset(features, self.labels, self.files)


def format_for(content_type: str | None) -> str | None:
    """The data format a ContentType names (``text/csv; label_size=1`` → csv), None when unset."""
    if not content_type:
        return None
    key = content_type.split(";")[0].strip().lower()
    if key not in _CONTENT_TYPES:
        known = ", ".join(sorted(k for k in _CONTENT_TYPES if "/" in k))
        raise smenv.UsageError(f"unsupported content type {content_type!r} (use one of: {known})")
    return _CONTENT_TYPES[key]


def channel_files(root: Path) -> list[Path]:
    """Every data file under a channel, recursively and sorted; hidden files and folders
    (``.ipynb_checkpoints``, ``.DS_Store``) are not data."""
    if not root.is_dir():
        return []
    files = [path for path in root.rglob("*") if path.is_file()]
    visible = [
        p for p in files if not any(part.startswith(".") for part in p.relative_to(root).parts)
    ]
    return sorted(visible, key=lambda p: p.relative_to(root).as_posix())


def detect_format(path: Path) -> str:
    """A file's format from its extension, else from its first bytes (S3 shards such as
    ``part-00000`` often have no extension)."""
    by_extension = _EXTENSIONS.get(path.suffix.lower())
    if by_extension:
        return by_extension
    with path.open("rb") as handle:
        head = handle.read(4096)
    if head.startswith(b"PAR1"):
        return PARQUET
    first_line = head.split(b"\n", 1)[0]
    return LIBSVM if b":" in first_line else CSV


def read_channel(root: Path, content_type: str | None = None) -> Dataset | None:
    """All rows of a channel, or None when it holds no rows (a host that got no shard)."""
    fmt = format_for(content_type)
    parts = [read_file(path, fmt or detect_format(path)) for path in channel_files(root)]
    parts = [part for part in parts if part.labels.size]
    return _concatenate(parts) if parts else None


def read_file(path: Path, fmt: str) -> Dataset:
    """One file's rows in the given format (csv, libsvm or parquet)."""
    readers = {CSV: _read_csv, LIBSVM: _read_libsvm, PARQUET: _read_parquet}
    try:
        features, labels = readers[fmt](path)
    except UnicodeDecodeError:
        raise smenv.UsageError(f"{path}: not UTF-8 text; is the content type right?") from None
    return Dataset(features, labels, (path,))


def _concatenate(parts: list[Dataset]) -> Dataset:
    files = tuple(path for part in parts for path in part.files)
    labels = np.concatenate([part.labels for part in parts])
    kinds = {part.sparse for part in parts}
    if len(kinds) > 1:
        raise smenv.UsageError(
            f"{files[0].parent}: mixes libsvm with csv/parquet files; use one format per channel"
        )
    if kinds == {True}:
        import scipy.sparse

        width = max(part.num_features for part in parts)
        blocks = [part.widened(width).features for part in parts]
        return Dataset(scipy.sparse.vstack(blocks, format="csr"), labels, files)
    first = parts[0]
    for part in parts[1:]:
        if part.num_features != first.num_features:
            raise smenv.UsageError(
                f"{part.files[0]}: rows have {part.num_features} features, "
                f"but {first.files[0]} has {first.num_features}"
            )
    return Dataset(np.vstack([part.features for part in parts]), labels, files)


def _split_label(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.ascontiguousarray(table[:, 1:]), np.ascontiguousarray(table[:, 0])


def _read_csv(path: Path) -> tuple[np.ndarray, np.ndarray]:
    # numpy's C parser handles the common, clean file fast; anything it rejects (empty cells,
    # which mean "missing", or a real error to locate) goes through the line-by-line reader.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
            table = np.loadtxt(path, delimiter=",", dtype=np.float32, ndmin=2, comments=None)
    except ValueError:
        table = _parse_csv(path)
    if table.size == 0:
        return np.zeros((0, 0), np.float32), np.zeros(0, np.float32)
    if table.shape[1] < 2 or not np.isfinite(table[:, 0]).all():
        table = _parse_csv(path)  # to name the line with the missing or non-finite label
    return _split_label(table)


def _parse_csv(path: Path) -> np.ndarray:
    rows: list[list[float]] = []
    width = 0
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue  # blank line
            where = f"{path}:{reader.line_num}"
            width = width or len(cells)
            if len(cells) != width:
                raise smenv.UsageError(
                    f"{where}: {len(cells)} columns, but the first row has {width}"
                )
            rows.append([_csv_cell(cell, column, where) for column, cell in enumerate(cells)])
    if rows and width < 2:
        raise smenv.UsageError(f"{path}: one column only; expected the label, then features")
    return np.asarray(rows, dtype=np.float32).reshape(len(rows), width)


def _csv_cell(text: str, column: int, where: str) -> float:
    text = text.strip()
    if not text and column > 0:
        return math.nan  # an empty feature cell is a missing value, as pandas reads it
    try:
        value = float(text)
    except ValueError:
        hint = " (CSV files take no header row)" if where.endswith(":1") else ""
        raise smenv.UsageError(
            f"{where}: column {column + 1}: {text!r} is not a number{hint}"
        ) from None
    if column == 0 and not math.isfinite(value):
        raise smenv.UsageError(f"{where}: the label (first column) is {text!r}")
    return value


def _read_libsvm(path: Path) -> tuple[Any, np.ndarray]:
    import scipy.sparse

    labels: list[float] = []
    indices: list[int] = []
    values: list[float] = []
    indptr = [0]
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            tokens = line.split("#", 1)[0].split()
            if not tokens:
                continue
            where = f"{path}:{number}"
            labels.append(_libsvm_label(tokens[0], where))
            for token in tokens[1:]:
                index, value = _libsvm_entry(token, where)
                indices.append(index)
                values.append(value)
            indptr.append(len(indices))
    width = max(indices) + 1 if indices else 0
    features = scipy.sparse.csr_matrix(
        (np.asarray(values, np.float32), np.asarray(indices, np.int64), np.asarray(indptr)),
        shape=(len(labels), width),
    )
    return features, np.asarray(labels, dtype=np.float32)


def _libsvm_label(token: str, where: str) -> float:
    try:
        value = float(token)
    except ValueError:
        raise smenv.UsageError(f"{where}: label {token!r} is not a number") from None
    if not math.isfinite(value):
        raise smenv.UsageError(f"{where}: the label is {token!r}")
    return value


def _libsvm_entry(token: str, where: str) -> tuple[int, float]:
    index, sep, value = token.partition(":")
    try:
        if not sep or int(index) < 0:
            raise ValueError
        return int(index), float(value)
    except ValueError:
        raise smenv.UsageError(
            f"{where}: {token!r} is not an index:value pair (qid is not supported)"
        ) from None


def _read_parquet(path: Path) -> tuple[np.ndarray, np.ndarray]:
    try:
        import pandas as pd

        frame = pd.read_parquet(path)
    except ImportError as exc:
        raise smenv.UsageError(
            f"{path}: reading parquet needs pandas and pyarrow ({exc})"
        ) from None
    except Exception as exc:  # pyarrow raises many types for a broken file
        raise smenv.UsageError(f"{path}: not a readable parquet file ({exc})") from None
    if frame.empty:
        return np.zeros((0, 0), np.float32), np.zeros(0, np.float32)
    for column in frame.columns:
        if not (pd.api.types.is_numeric_dtype(frame[column]) or frame[column].dtype == bool):
            raise smenv.UsageError(
                f"{path}: column {column!r} is {frame[column].dtype}, not numeric"
            )
    missing_labels = np.flatnonzero(frame.iloc[:, 0].isna().to_numpy())
    if missing_labels.size:
        raise smenv.UsageError(f"{path}: row {missing_labels[0] + 1} has no label (first column)")
    if frame.shape[1] < 2:
        raise smenv.UsageError(f"{path}: one column only; expected the label, then features")
    return _split_label(frame.to_numpy(dtype=np.float32, na_value=np.nan))

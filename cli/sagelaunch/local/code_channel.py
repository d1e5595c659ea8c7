"""Network isolation's `code` channel, as the container gets it.

With ``enable_network_isolation`` in script mode the container cannot reach S3, so the SDK sends
the bundle as an input channel named ``code`` (sagemaker-python-sdk v2, ``estimator.py``:
``code_channel_name = "code"``, added by ``job.py`` ``_Job._load_config``) and points
``sagemaker_submit_directory`` at ``CONTAINER_CODE_CHANNEL_SOURCEDIR_PATH``,
``/opt/ml/input/data/code/sourcedir.tar.gz``. SageMaker downloads the channel's object (its key's
last part names the file), and the training toolkit (``files.download_and_extract``) unpacks that
local tarball into ``/opt/ml/code``; ``SM_MODULE_DIR`` is the hyperparameter's value
(``environment.py``: ``module_dir = sagemaker_submit_directory``).

Here each host's tree plays ``/opt/ml``, so the bundle is written into the tree's ``code`` channel
and a submit directory under ``/opt/ml`` names the same file in the tree, in hyperparameters.json
and so in what the toolkit computes from it.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
from pathlib import Path
from typing import Any

from sagelaunch import atomic
from sagelaunch import hyperparameters as codec
from sagelaunch.local.tree import HostTree

CHANNEL = "code"
CONTAINER_ROOT = "/opt/ml"
SUBMIT_DIRECTORY = "sagemaker_submit_directory"


def bundle_name(request: dict[str, Any]) -> str | None:
    """The file the `code` channel holds in the container, or None without network isolation."""
    if not request.get("EnableNetworkIsolation"):
        return None
    for channel in request.get("InputDataConfig", []):
        if channel["ChannelName"] == CHANNEL:
            uri = channel["DataSource"]["S3DataSource"]["S3Uri"]
            return posixpath.basename(uri.rstrip("/")) or None
    return None


def fill(host: HostTree, request: dict[str, Any], code: bytes | os.PathLike[str]) -> None:
    """The bundle in the host's `code` channel (when the job is isolated and the host gets it):
    bytes, or the bundle's file, copied (never read into memory)."""
    name = bundle_name(request)
    if name is None or not host.channel(CHANNEL).is_dir():
        return
    target = host.channel(CHANNEL) / name
    if isinstance(code, bytes):
        atomic.write_bytes(target, code)
        return
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{name}.", suffix=".tmp")
    os.close(handle)
    try:
        shutil.copyfile(os.fspath(code), temporary)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def on_host(hyperparameters: dict[str, str], host: HostTree) -> dict[str, str]:
    """The request's hyperparameters with a submit directory under /opt/ml in ``host``'s tree."""
    directory = codec.decode(hyperparameters.get(SUBMIT_DIRECTORY))
    if not isinstance(directory, str) or not _in_container_root(directory):
        return hyperparameters
    local = str(host.root) + directory[len(CONTAINER_ROOT) :]
    return {**hyperparameters, SUBMIT_DIRECTORY: codec.encode(local)}


def _in_container_root(path: str) -> bool:
    return path == CONTAINER_ROOT or path.startswith(CONTAINER_ROOT + "/")

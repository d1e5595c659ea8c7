"""What the code bundle holds: the entry point inside it, a folder that can be walked, links.

The SDK uploads source_dir and nothing else (fw_utils.tar_and_upload_dir), so an entry point
outside it is never in the container; it follows links wherever they point (tarfile.add with
dereference=True), which `validate` names, as `plan` does (bundle_walk.py).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from sagelaunch import bundle_walk, source_archive
from sagelaunch.checks.rules.registry import error, rule, warning
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.paths import shipped_source_dir, uploads_script_alone
from sagelaunch.errors import Problem


def _code_key(loaded: LoadedConfig) -> tuple[str, ...]:
    return ("source_dir",) if loaded.config.source_dir else ("entry_point",)


def walks_source_dir(loaded: LoadedConfig) -> bool:
    """Whether the bundle is a walk of source_dir (not the script alone, not a .tar.gz, not a
    built-in algorithm): what bundle.for_config does."""
    config = loaded.config
    if config.is_builtin_algorithm:
        return False
    if uploads_script_alone(loaded.path, config.source_dir, config.entry_point):
        return False
    return loaded.source_dir.is_dir() and not source_archive.is_archive(loaded.source_dir)


@rule
def entry_point_inside_source_dir(loaded: LoadedConfig) -> Iterator[Problem]:
    """An entry point given as an absolute path or one leaving source_dir (``../x.py``) is not
    in the bundle: the job cannot start it."""
    entry = loaded.config.entry_point
    if not entry:
        return
    normal = posixpath.normpath(entry.replace("\\", "/"))
    if posixpath.isabs(normal) or normal == ".." or normal.startswith("../"):
        where = loaded.source_dir
        yield error(
            loaded,
            ("entry_point",),
            f"{entry} is outside the code folder {where}, and only that folder is uploaded: "
            "give a path inside it (e.g. train.py), or point source_dir at the folder holding "
            "the script",
        )


@rule
def source_dir_is_a_project(loaded: LoadedConfig) -> Iterator[Problem]:
    """The whole disk or the home folder as source_dir would upload everything on it (keys,
    caches, other projects): refused."""
    if not walks_source_dir(loaded):
        return
    why = bundle_walk.too_wide(loaded.source_dir)
    if why:
        yield error(
            loaded,
            _code_key(loaded),
            f"source_dir {why}: everything in it would be uploaded; point source_dir at the "
            "folder holding your training code",
        )


@rule
def source_dir_links(loaded: LoadedConfig) -> Iterator[Problem]:
    """Links are followed as the SDK follows them: one whose target is outside source_dir
    uploads that target, named here (`--strict` refuses it); a loop is not followed."""
    if not walks_source_dir(loaded) or bundle_walk.too_wide(loaded.source_dir):
        return
    if loaded.source_dir == shipped_source_dir(loaded.config.framework).resolve():
        return
    found = bundle_walk.walk(loaded.source_dir, gitignore=loaded.config.respect_gitignore)
    for line in found.link_warnings():
        yield warning(loaded, _code_key(loaded), line)

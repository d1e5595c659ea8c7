"""Which files a command reads: config folders expanded, and the default code folder.

Kept apart from the loader (and so from pydantic), because a cached `validate` needs both
without loading anything.
"""

from __future__ import annotations

from pathlib import Path


def shipped_source_dir(framework: str) -> Path:
    """The folder of the entry points shipped with sagelaunch for ``framework`` (pytorch,
    tensorflow, xgboost): what a job of that framework uploads as its code, and nothing else."""
    from importlib import resources

    return Path(str(resources.files("sagelaunch.entrypoints"))) / framework


def default_source_dir(config_path: Path, framework: str) -> Path:
    """The nearest `entrypoints/` folder above the config (this repository's layout: its
    ``framework`` subfolder when it has one), else the entry points installed with sagelaunch,
    so `init` + `local` work outside a checkout too."""
    for folder in [config_path.resolve().parent, *config_path.resolve().parents]:
        if (folder / "entrypoints").is_dir():
            per_framework = folder / "entrypoints" / framework
            return per_framework if per_framework.is_dir() else folder / "entrypoints"
    return shipped_source_dir(framework)


def resolve_source_dir(config_path: Path, source_dir: str | None, framework: str) -> Path:
    """The code folder of a config: its ``source_dir`` (relative to the config file), else the
    default above."""
    if source_dir:
        return (config_path.parent / source_dir).resolve()
    return default_source_dir(config_path, framework)


def config_files(paths: list[Path]) -> list[Path]:
    """Expand folders to the *.yaml / *.yml files in them (sorted)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.suffix in {".yaml", ".yml"})
        else:
            files.append(path)
    return files

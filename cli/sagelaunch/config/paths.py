"""Which files a command reads: config folders expanded, and the code folder.

Kept apart from the loader (and so from pydantic), because a cached `validate` needs both
without loading anything.
"""

from __future__ import annotations

from pathlib import Path

# What a launch config file is called: every command that finds configs in a folder (validate,
# plan's hint, shell completion) reads them with this one list.
CONFIG_SUFFIXES = (".yaml", ".yml")


def shipped_source_dir(framework: str) -> Path:
    """The folder of the entry points shipped with sagelaunch for ``framework`` (pytorch,
    tensorflow, xgboost): what a job of that framework uploads as its code, and nothing else."""
    from importlib import resources

    return Path(str(resources.files("sagelaunch.entrypoints"))) / framework


def default_source_dir(config_path: Path, entry_point: str | None, framework: str) -> Path:
    """The code folder of a config without ``source_dir``: beside the config, as the SDK looks
    beside the script that builds the estimator; a shipped script's name that is not there
    (the templates' and examples' ``train_pytorch.py``) means the framework's shipped folder."""
    beside = config_path.resolve().parent
    if entry_point and not (beside / entry_point).is_file():
        shipped = shipped_source_dir(framework)
        if (shipped / entry_point).is_file():
            return shipped
    return beside


def uploads_script_alone(
    config_path: Path, source_dir: str | None, entry_point: str | None
) -> bool:
    """True when the job's code is its entry point alone, as the SDK uploads a script without
    ``source_dir``: the script sits beside the config (a shipped one brings its folder)."""
    if source_dir or not entry_point:
        return False
    return (config_path.resolve().parent / entry_point).is_file()


def resolve_source_dir(
    config_path: Path, source_dir: str | None, entry_point: str | None, framework: str
) -> Path:
    """The code folder of a config: its ``source_dir`` (relative to the config file), else the
    default above."""
    if source_dir:
        return (config_path.parent / source_dir).resolve()
    return default_source_dir(config_path, entry_point, framework)


def config_files(paths: list[Path]) -> list[Path]:
    """Expand folders to the *.yaml / *.yml files in them (sorted)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if is_config_name(p) and p.is_file())
        else:
            files.append(path)
    return files


def is_config_name(path: Path) -> bool:
    """True when ``path`` is named like a launch config (*.yaml or *.yml, any case)."""
    return path.suffix.lower() in CONFIG_SUFFIXES

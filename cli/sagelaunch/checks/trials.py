"""A sweep's trials: the config with each combination of swept values set, each trial checked by
the same loader and rules as any config before anything is sent.

A trial sets its values with the loader's `assign` (what `--set` uses), positioned at the sweep's
line for that value, so an error in a trial points at the value that caused it and names the
trial. One bad trial fails the whole sweep (exit 2): half a sweep is rarely what was meant.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sagelaunch.config.loader import (
    LoadedConfig,
    apply_overrides,
    assign,
    from_document,
    load_document,
)
from sagelaunch.config.sweep import Sweep, sweep_value_path
from sagelaunch.config.yamlsource import Document
from sagelaunch.errors import ConfigError, Problem, UsageError


@dataclass(frozen=True)
class Trial:
    """One combination: its number (1-based, in grid order) and the values it sets."""

    index: int
    parameters: dict[str, Any]
    loaded: LoadedConfig
    warnings: list[Problem]

    @property
    def label(self) -> str:
        return f"trial {self.index}"

    def parameters_text(self) -> str:
        return ", ".join(f"{key}={_text(value)}" for key, value in self.parameters.items())


@dataclass(frozen=True)
class SweepSpec:
    """The sweep as loaded: its block, the base config (with its warnings) and every trial."""

    base: LoadedConfig
    sweep: Sweep
    trials: list[Trial]


def build_trials(base: LoadedConfig, overrides: list[str] | None = None) -> list[Trial]:
    """Every trial of ``base``'s sweep, checked; ConfigError with every bad trial's problems.
    `validate` runs this too, so a sweep that would fail fails there first."""
    problems: list[Problem] = []
    trials = list(iter_trials(base, overrides, problems))
    if problems:
        raise ConfigError(problems)
    return trials


def iter_trials(
    base: LoadedConfig, overrides: list[str] | None, problems: list[Problem]
) -> Iterator[Trial]:
    """Each trial of ``base``'s sweep as it is built and checked, one at a time (a dry run shows
    the first before the last is built); a bad trial is left out and its problems are added to
    ``problems``."""
    sweep = base.config.sweep
    assert sweep is not None
    document = load_document(base.path, overrides)
    for index, picks in enumerate(combinations(sweep), start=1):
        try:
            yield _trial(base.path, document, sweep, index, picks)
        except ConfigError as exc:
            problems += exc.problems


def combinations(sweep: Sweep) -> Iterator[tuple[int, ...]]:
    """Each trial as the index of its value per parameter, lazily: the whole grid, or a seeded
    draw of ``samples`` distinct points from it (kept in grid order, so trial numbers read
    naturally). Never more than sweep.max_trials: the sweep's size is known before this runs."""
    if sweep.size > sweep.max_trials:  # the model refuses it; nothing gets past with more
        raise UsageError(sweep.over_ceiling())
    sizes = [len(values) for values in sweep.parameters.values()]
    if sweep.method == "grid":
        yield from itertools.product(*(range(n) for n in sizes))
        return
    # A draw from the grid's point numbers (a range: nothing built), decoded in grid order.
    picked = sorted(random.Random(sweep.seed).sample(range(sweep.grid_size), sweep.samples or 0))
    for point in picked:
        yield _grid_point(point, sizes)


def _grid_point(point: int, sizes: list[int]) -> tuple[int, ...]:
    """The ``point``-th combination of itertools.product over ranges of ``sizes``."""
    picks = []
    for size in reversed(sizes):  # the last parameter varies fastest
        point, pick = divmod(point, size)
        picks.append(pick)
    return tuple(reversed(picks))


def _trial(
    path: Path, document: Document, sweep: Sweep, index: int, picks: tuple[int, ...]
) -> Trial:
    doc = Document(copy.deepcopy(document.data), document.label, dict(document.positions))
    del doc.data["sweep"]  # a trial is a plain job
    parameters = {}
    for (key, values), pick in zip(sweep.parameters.items(), picks, strict=True):
        position = document.position(sweep_value_path(key, pick))
        assign(doc, tuple(key.split(".")), copy.deepcopy(values[pick]), position)
        parameters[key] = values[pick]
    label = f"trial {index} ({', '.join(f'{k}={_text(v)}' for k, v in parameters.items())})"
    try:
        loaded = from_document(path, doc)
    except ConfigError as exc:
        raise ConfigError([_in_trial(p, label) for p in exc.problems]) from None
    from sagelaunch.checks.rules import check

    found = check(loaded)
    errors = [_in_trial(p, label) for p in found if p.severity == "error"]
    if errors:
        raise ConfigError(errors)
    warnings = [p for p in found if p.severity != "error"]
    return Trial(index, parameters, loaded, warnings)


def with_overrides(trial: Trial, overrides: list[str]) -> LoadedConfig:
    """The trial's config with `--set` style ``overrides`` on top (a failover alternative)."""
    doc = trial.loaded.document
    doc = Document(copy.deepcopy(doc.data), doc.label, dict(doc.positions))
    apply_overrides(doc, overrides)
    return from_document(trial.loaded.path, doc)


def _in_trial(problem: Problem, label: str) -> Problem:
    return replace(problem, message=f"{label}: {problem.message}")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)

"""The entry points read their hyperparameters exactly as the SageMaker training toolkit hands
them over, checked against the toolkit itself (PyPI ``sagemaker-training``).

The toolkit decodes hyperparameters.json (JSON, else the text), puts them on the script's command
line with ``mapping.to_cmd_args`` (``str()`` of each value: ``None`` as an empty argument, a list
as its repr, a dict as ``k=v,k=v``) and exports them typed as ``SM_HPS`` and ``SM_HP_<NAME>``
(``mapping.to_env_vars``, as its ``Environment.to_env_vars`` does). Every shape goes through that
here; then every ``init`` template's and example config's planned hyperparameters (with what the
SDK injects, such as SMP's ``mp_parameters``) go through the matching entry point's parser, and
the SMP v2 example trains two steps without the SMP library.

(The toolkit's ``environment`` module is not imported: it sets SAGEMAKER_BASE_DIR in
``os.environ`` at import. Its hyperparameter decoding is sagelaunch's ``decode_hyperparameters``,
which tests/local checks against it.)
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sagemaker_training import mapping, params

from sagelaunch.checks.validation import load_valid
from sagelaunch.commands.init import templates
from sagelaunch.hyperparameters import decode_hyperparameters
from tests.conftest import ENTRYPOINTS, EXAMPLES
from tests.entrypoints.conftest import metrics_at
from tests.golden.regenerate import GOLDEN, golden_plan

FRAMEWORKS = ("pytorch", "tensorflow", "xgboost")

# One of every shape a YAML hyperparameter can take.
SHAPES: dict[str, Any] = {
    "smp": {"hybrid_shard_degree": 8, "sm_activation_offloading": False},
    "nested": {"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}},
    "tricky": {"a": "x,y", "b": "p=q", "c": [1, 2], "d": None, "e": "it's spaced", "f": ""},
    "names": ["auc", "logloss"],
    "pairs_of_ints": [[0, 1], [2, 3]],
    "yes": True,
    "no": False,
    "nothing": None,
    "text": "a b,c=d",
    "count": 3,
    "rate": 2.5e-4,
    "json_text": '{"k": 1}',
    "versionish": {"version": "1.0", "flag": "False"},  # strings the rendering makes look typed
}
# What a bare command line (no SM_HPS) cannot tell apart: None from "", JSON text from a dict,
# and strings that read as other types.
LOSSY = ("nothing", "json_text", "versionish")


def toolkit_view(user: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The command line and SM_HPS / SM_HP_* the toolkit gives a script for these
    (decoded, user) hyperparameters."""
    exported = {"hps": user, **{f"hp_{key}": value for key, value in user.items()}}
    return mapping.to_cmd_args(user), mapping.to_env_vars(exported)


def user_hyperparameters(request_hyperparameters: dict[str, str]) -> dict[str, Any]:
    """The script's hyperparameters from a CreateTrainingJob request's (JSON strings, as the
    service stores them): decoded as the toolkit reads them, its own keys split off its way."""
    split = mapping.split_by_criteria(
        decode_hyperparameters(request_hyperparameters),
        keys=params.SAGEMAKER_HYPERPARAMETERS,
        prefix=params.SAGEMAKER_PREFIX,
    )
    return dict(split.excluded)


@pytest.fixture
def modules(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The three entry points' option parsers, imported in this process (their shared modules
    are the same files, linked into each folder)."""
    for framework in FRAMEWORKS:
        monkeypatch.syspath_prepend(str(ENTRYPOINTS / framework))
    for key in ("SM_HPS", "TRAINING_JOB_NAME", "RANK"):
        monkeypatch.delenv(key, raising=False)
    import shared_hparams
    import smenv
    import tf_hparams
    import torch_config
    import torch_dist
    import torch_hparams
    import xgb_hyperparameters

    yield {
        "hp": shared_hparams,
        "smenv": smenv,
        "torch_hparams": torch_hparams,
        "torch_config": torch_config,
        "torch_dist": torch_dist,
        "tf_hparams": tf_hparams,
        "xgb": xgb_hyperparameters,
    }
    for name in ("tf_hparams", "xgb_hyperparameters"):
        sys.modules.pop(name, None)


def environment(modules: dict[str, Any], variables: dict[str, str]) -> Any:
    return modules["smenv"].current(variables)


# --- every shape -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", SHAPES)
def test_every_shape_comes_back_as_it_was_typed(modules, name):
    value = SHAPES[name]
    argv, exported = toolkit_view({name: value})
    assert argv[0] == f"--{name}"
    env = environment(modules, exported)
    assert modules["hp"].rendered(value) == argv[1]  # the entry points' view of the rendering
    assert modules["hp"].structured(name, argv[1], env) == value


@pytest.mark.parametrize("name", [name for name in SHAPES if name not in LOSSY])
def test_a_bare_command_line_decodes_the_rendering_alone(modules, name):
    """Without SM_HPS (a script started by hand), ``k=v,k=v``, reprs, True/False decode too."""
    [_, raw] = mapping.to_cmd_args({name: SHAPES[name]})
    assert modules["hp"].structured(name, raw, environment(modules, {})) == SHAPES[name]


def test_the_command_line_wins_when_it_is_not_the_rendering_of_sm_hps(modules):
    """A value passed by hand over the job's (e.g. a local override) is the one used."""
    _, exported = toolkit_view({"mp_parameters": {"hybrid_shard_degree": 8}})
    env = environment(modules, exported)
    given = modules["hp"].structured("mp_parameters", "hybrid_shard_degree=4", env)
    assert given == {"hybrid_shard_degree": 4}


def test_the_lossy_rendering_is_resolved_by_the_typed_value(modules):
    value = SHAPES["versionish"]
    [_, raw] = mapping.to_cmd_args({"x": value})
    hp = modules["hp"]
    assert hp.structured("x", raw, environment(modules, {})) == {"version": 1.0, "flag": False}
    assert hp.structured("x", raw, environment(modules, toolkit_view({"x": value})[1])) == value


# --- each entry point's parser -----------------------------------------------------------------

VOCABULARY = {"max_steps": 2, "epochs": 3, "batch_size": 4, "lr": 0.01, "seed": 7}


def test_pytorch_reads_dicts_booleans_nulls_and_the_shared_vocabulary(modules):
    user = {
        **VOCABULARY,
        "checkpoint_every": 5,
        "mp_parameters": SHAPES["smp"],
        "deepspeed_config": {"zero_optimization": {"stage": 2}, "gradient_clipping": 0.5},
        "activation_checkpointing": True,
        "zero1": False,
        "precision": None,  # YAML null: the default
        "channel": None,
        "optimizer_extra": {"betas": [0.9, 0.95]},  # not ours: ignored with a warning
    }
    argv, exported = toolkit_view(user)
    cfg = modules["torch_hparams"].parse_args(argv, environment(modules, exported))
    defaults = modules["torch_config"].TrainConfig()
    for key, value in user.items():
        if hasattr(cfg, key):
            assert getattr(cfg, key) == (getattr(defaults, key) if value is None else value), key
    assert cfg.zero1 is False and cfg.activation_checkpointing is True


def test_pytorch_reads_a_deepspeed_config_file_name_as_a_name(modules):
    argv, exported = toolkit_view({"deepspeed_config": "ds=zero3.json", "zero_stage": 3})
    cfg = modules["torch_hparams"].parse_args(argv, environment(modules, exported))
    assert cfg.deepspeed_config == "ds=zero3.json"


def test_tensorflow_reads_the_shared_vocabulary_and_ignores_foreign_shapes(modules, capsys):
    user = {
        **VOCABULARY,
        "checkpoint_every": 0,
        "hidden": 16,
        "model_dir": "s3://bucket/job/model",
        "tf_distribute": None,
        "optimizer": {"name": "adam", "beta_1": 0.9},
        "layers": [16, 8],
        "verbose": True,
    }
    argv, exported = toolkit_view(user)
    cfg = modules["tf_hparams"].parse_args(argv, environment(modules, exported))
    assert {key: getattr(cfg, key) for key in (*VOCABULARY, "hidden", "model_dir")} == {
        **VOCABULARY,
        "hidden": 16,
        "model_dir": "s3://bucket/job/model",
    }
    assert cfg.tf_distribute == "auto"
    warning = capsys.readouterr().err
    assert all(f"--{key}" in warning for key in ("optimizer", "layers", "verbose"))


def test_xgboost_params_arrive_as_xgboost_takes_them(modules):
    user = {
        "num_round": 2,
        "objective": "binary:logistic",
        "eval_metric": ["auc", "logloss"],  # rendered "['auc', 'logloss']"
        "monotone_constraints": [1, -1],  # XGBoost refuses "[1, -1]", takes (1, -1)
        "interaction_constraints": [[0, 1]],
        "validate_parameters": True,
        "early_stopping_rounds": None,
        "seed": None,
        "eta": 0.5,
    }
    argv, exported = toolkit_view(user)
    expected = [
        ("eta", 0.5),
        ("eval_metric", "auc"),
        ("eval_metric", "logloss"),
        ("interaction_constraints", "[[0, 1]]"),
        ("monotone_constraints", (1, -1)),
        ("objective", "binary:logistic"),
        ("validate_parameters", "true"),
    ]
    for variables in (exported, {}):  # typed from SM_HPS, and from the command line alone
        settings = modules["xgb"].parse_hyperparameters(argv, environment(modules, variables))
        assert (settings.num_round, settings.early_stopping_rounds) == (2, 0)
        assert settings.params == expected
    _boost_one_round(settings.params)


def _boost_one_round(booster_params: list[tuple[str, object]]) -> None:
    import numpy as np
    import xgboost as xgb

    features = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0]])
    data = xgb.DMatrix(features, label=np.array([0, 1, 0, 1]))
    booster = xgb.Booster([*booster_params, ("nthread", 1)], [data])
    booster.update(data, 0)
    assert "auc" in booster.eval(data) and "logloss" in booster.eval(data)


# --- every template and example config ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Job:
    """A config's script hyperparameters as SageMaker would give them, and its cloud topology."""

    framework: str
    user: dict[str, Any]
    local: dict[str, Any]  # local.hyperparameters, merged over `user` by `sagelaunch local`
    processes_per_host: int
    world_size: int


def example_jobs() -> dict[str, Path]:
    return {f"config:{path.stem}": path for path in sorted(EXAMPLES.glob("*.yaml"))}


def template_names() -> list[str]:
    return [f"template:{name}" for name in templates()]


def job_of(case: str, tmp_path: Path) -> Job:
    kind, name = case.split(":", 1)
    if kind == "template":  # written as `sagelaunch init NAME` writes it
        path = tmp_path / f"{name}.yaml"
        path.write_text(templates()[name], encoding="utf-8")
        plan = golden_plan(path)
    else:
        path = EXAMPLES / f"{name}.yaml"
        plan = json.loads((GOLDEN / f"{name}.json").read_text())  # = golden_plan: test_golden
    config = load_valid(path)[0].config
    topology = plan["topology"]
    return Job(
        framework=config.framework,
        user=user_hyperparameters(plan["request"].get("HyperParameters", {})),
        local=dict(config.local.hyperparameters),
        processes_per_host=topology["processes_per_host"],
        world_size=topology["world_size"],
    )


CASES = [*template_names(), *example_jobs()]


@pytest.mark.parametrize("case", CASES)
def test_every_config_starts_its_entry_point_with_the_toolkits_arguments(modules, case, tmp_path):
    """Each config's hyperparameters, as SageMaker runs it (checked up to the device mesh for its
    world size) and as `sagelaunch local` does (local.hyperparameters merged over them), are
    accepted, and every value the script reads equals the typed one."""
    job = job_of(case, tmp_path)
    for user, world in ((job.user, job.world_size), ({**job.user, **job.local}, None)):
        argv, exported = toolkit_view(user)
        parsed = _start(modules, job, argv, environment(modules, exported), world)
        read = {key: value for key, value in user.items() if key in parsed and value is not None}
        assert {key: parsed[key] for key in read} == read


def _start(
    modules: dict[str, Any], job: Job, argv: list[str], env: Any, world_size: int | None
) -> dict[str, Any]:
    """The entry point's own start, up to its first step: its options, and for PyTorch the SMP
    parameters and (given a world size) the device mesh. Returns what it read, by name."""
    if job.framework == "xgboost":
        settings = modules["xgb"].parse_hyperparameters(argv, env)
        return {"num_round": settings.num_round, **dict(settings.params)}
    if job.framework == "tensorflow":
        return dataclasses.asdict(modules["tf_hparams"].parse_args(argv, env))
    cfg = modules["torch_hparams"].parse_args(argv, env)
    mp = modules["torch_dist"].mp_parameters(env, cfg.mp_parameters)
    if world_size is not None:
        hybrid = int((mp or {}).get("hybrid_shard_degree") or job.processes_per_host)
        modules["torch_config"].resolve_layout(cfg, world_size, hybrid)
    return {**dataclasses.asdict(cfg), "mp_parameters": mp}


# --- one real start ---------------------------------------------------------------------------


def test_the_smp_v2_example_trains_without_the_smp_library(train_pytorch_main):
    """The SDK's mp_parameters arrive as ``k=v,k=v``; without torch.sagemaker the script says
    so in one warning and trains FSDP over gloo, with the typed parameters."""
    plan = json.loads((GOLDEN / "smp-v2-p4d.json").read_text())
    user = user_hyperparameters(plan["request"]["HyperParameters"])
    argv, exported = toolkit_view({**user, "max_steps": 2, "log_every": 1})
    assert "hybrid_shard_degree=8,sm_activation_offloading=False" in argv
    status, result, root = train_pytorch_main(*argv, **exported)
    assert status == 0, result.stderr
    [warning] = result.warnings()
    assert "SMP v2 (torch.sagemaker) requested but not installed here" in warning
    assert sorted(result.steps()) == [1, 2]
    metrics = metrics_at(root)
    assert (metrics["backend"], metrics["parallel"]) == ("gloo", "fsdp")
    assert metrics["hyperparameters"]["mp_parameters"] == user["mp_parameters"]

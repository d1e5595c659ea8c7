"""A strategy is one module: a toy one, registered here and nowhere else, with an SDK
distribution key SDK v2 has never heard of and a launcher `local` has never heard of, validates
(its own rule included), plans (its key's hyperparameters in the request), imports back from that
request, exports to SDK v2 (whose script sends the same request) and v3, shows in the schema and
the config reference, and runs locally under its own launcher, through the real commands, with no
edit anywhere else."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
import yaml
from pydantic import Field

from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig, registered
from sagelaunch.errors import Problem
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import (
    PYTHON,
    HostSlot,
    NoMpiSettings,
    NoSmp,
    Placement,
    Strategy,
    V3Call,
)
from sagelaunch.strict import Strict
from tests.conftest import REPO
from tests.export.test_export_v2 import run_exported

# The toy's SDK distribution key, newer than SDK v2 (which drops keys it does not know): the toy
# writes the hyperparameters the key stands for itself, as the SDK does for its own keys.
SDK_KEY = "toy"
ENABLED = "sagemaker_toy_enabled"
ROUNDS = "sagemaker_toy_rounds"


class ToyDistribution(NoMpiSettings, NoSmp, Strict):
    """The toy strategy's config keys."""

    strategy: Literal["toy"] = Field(description="toy: a test's strategy.")
    rounds: int = Field(3, ge=1, description="How many rounds the toy plays.")


def toy_on_two_hosts_at_most(loaded: LoadedConfig) -> Iterator[Problem]:
    """The toy's own rule."""
    config = loaded.config
    if isinstance(config.distribution, ToyDistribution) and config.compute.instance_count > 2:
        yield loaded.problem(("compute", "instance_count"), "toy runs on 2 hosts at most")


class ToyLauncher:
    """The toy's own launcher for `sagelaunch local`: python with UTF-8 mode on every host, and
    the host's place in the launch as variables (a launcher local has never heard of)."""

    name = "toy-launcher"

    def command(self, slot: HostSlot) -> list[str] | None:
        return [slot.python, "-X", "utf8", slot.entry_point, *slot.args]

    def environment(self, slot: HostSlot) -> dict[str, str]:
        return {"TOY_HOST_INDEX": str(slot.host_index), "TOY_HOSTS": str(slot.host_count)}


class ToyStrategy(Strategy):
    name = "toy"
    frameworks = frozenset({"pytorch"})
    priority = 1
    sdk_hyperparameters = frozenset({ENABLED, ROUNDS})

    @property
    def model(self) -> type[Strict]:
        return ToyDistribution

    def placement(self, config: LaunchConfig, accelerators_per_host: int) -> Placement:
        return Placement(PYTHON, 1)

    def sdk_distribution(self, config: LaunchConfig) -> dict[str, Any] | None:
        return {SDK_KEY: {"enabled": True, "rounds": config.distribution.rounds}}

    def own_hyperparameters(self, config: LaunchConfig) -> dict[str, Any]:
        return {ENABLED: True, ROUNDS: config.distribution.rounds}

    def local_launcher(self, planned: str) -> ToyLauncher:
        return ToyLauncher()

    def check_local(self, config: LaunchConfig) -> None:
        return None

    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        if hyperparameters.get(ENABLED) is not True:
            return None
        rounds = hyperparameters.get(ROUNDS, 3)
        return {"strategy": self.name, **({"rounds": rounds} if rounds != 3 else {})}

    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        return SDK_KEY in distribution

    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        return None  # one process per host; its hyperparameters carry the key

    def rules(self) -> tuple[Any, ...]:
        return (toy_on_two_hosts_at_most,)


SCRIPT = """\
import json, os, sys
print("toy ran with", sys.argv[1:])
with open(os.path.join(os.environ["SM_MODEL_DIR"], "toy.json"), "w") as f:
    launched = {k: os.environ.get(k) for k in ("TOY_HOST_INDEX", "TOY_HOSTS")}
    rounds = json.loads(os.environ["SM_FRAMEWORK_PARAMS"])["sagemaker_toy_rounds"]
    json.dump({"host": os.environ["SM_CURRENT_HOST"], "utf8": sys.flags.utf8_mode,
               "rounds": rounds, **launched}, f)
"""


@pytest.fixture
def toy():
    with registered(ToyStrategy()) as strategy:
        yield strategy


@pytest.fixture
def toy_config(tmp_path: Path) -> Path:
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "toy.py").write_text(SCRIPT)
    config = {
        "name": "toy-job",
        "framework": "pytorch",
        "entry_point": "toy.py",
        "source_dir": "code",
        "framework_version": "2.2.0",
        "role": "arn:aws:iam::111122223333:role/SageMakerRole",
        "region": "us-east-1",
        "output_path": "s3://bucket/output/",
        "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 2},
        "distribution": {"strategy": "toy", "rounds": 4},
        "hyperparameters": {"epochs": 1},
    }
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def test_unregistered_the_toy_is_an_unknown_strategy(cli, toy_config):
    result = cli("validate", toy_config)
    assert result.exit_code == 2 and "strategy must be one of" in result.output


def test_the_toy_validates_with_its_own_rule(cli, toy, toy_config):
    assert cli("validate", toy_config).exit_code == 0
    result = cli("validate", toy_config, "--set", "compute.instance_count=3")
    assert result.exit_code == 2 and "toy runs on 2 hosts at most" in result.output


def test_the_toy_plans_imports_back_and_exports(cli, toy, toy_config, tmp_path):
    saved = tmp_path / "plan.json"
    assert cli("plan", toy_config, "--out", saved, "--job-name", "j-1").exit_code == 0
    plan = json.loads(saved.read_text())
    sent = plan["request"]["HyperParameters"]
    assert (sent[ENABLED], sent[ROUNDS]) == ("true", "4")  # the new key, JSON as the SDK writes
    assert plan["estimator"]["kwargs"]["distribution"] == {SDK_KEY: {"enabled": True, "rounds": 4}}
    assert plan["topology"]["launcher"] == PYTHON and plan["topology"]["world_size"] == 2

    imported = tmp_path / "imported.yaml"
    result = cli("import", saved, "--out", imported, "--source-dir", tmp_path / "code")
    assert result.exit_code == 0, result.output
    back = yaml.safe_load(imported.read_text())
    assert back["distribution"] == {"strategy": "toy", "rounds": 4}
    assert back["hyperparameters"] == {"epochs": 1}  # its keys never become the user's
    replanned = json.loads(cli("plan", imported, "--job-name", "j-1", "-o", "json").stdout)
    assert replanned["request"] == plan["request"]

    script = tmp_path / "train_v2.py"
    assert cli("export", saved, "--sdk", "v2", "--out", script).exit_code == 0
    assert run_exported(script, "us-east-1") == plan["request"]  # SDK v2 itself, offline

    script = tmp_path / "train_v3.py"
    assert cli("export", toy_config, "--sdk", "v3", "--out", script).exit_code == 0
    text = script.read_text()
    compile(text, script.name, "exec")
    assert ROUNDS in text and "distributed=" not in text


def test_the_toy_is_in_the_schema_and_the_config_reference(cli, toy):
    schema = json.loads(cli("schema").stdout)
    assert "toy" in json.dumps(schema)
    sys.path.insert(0, str(REPO / "docs" / "_gen"))
    import config_reference

    (table,) = [t for t in config_reference.tables()[1:] if "strategy: toy" in t.heading]
    assert list(table.rows) == ["distribution.strategy", "distribution.rounds"]
    assert "toy: a test's strategy." in table.rows["distribution.strategy"]["description"]
    assert "How many rounds" in table.rows["distribution.rounds"]["description"]


def test_the_toy_runs_locally_under_its_own_launcher(cli, toy, toy_config, tmp_path):
    workdir = tmp_path / "run"
    result = cli("local", toy_config, "--workdir", workdir, "--keep")
    assert result.exit_code == 0, result.output
    assert "toy ran with" in result.output
    assert "(toy-launcher)" in result.output
    seen = [json.loads(p.read_text()) for p in sorted(workdir.glob("algo-*/model/toy.json"))]
    assert seen == [
        {
            "host": f"algo-{n + 1}",
            "utf8": 1,
            "rounds": 4,
            "TOY_HOST_INDEX": str(n),
            "TOY_HOSTS": "2",
        }
        for n in range(2)
    ]


def test_unregistering_restores_the_config_model():
    before = LaunchConfig.model_json_schema()
    with registered(ToyStrategy()):
        assert "toy" in json.dumps(LaunchConfig.model_json_schema())
    assert LaunchConfig.model_json_schema() == before and "toy" not in registry.names()


class DeepSpeedToy(ToyStrategy):
    """The toy, declaring that DeepSpeed finds its ranks under it."""

    runs_deepspeed = True


@pytest.mark.parametrize(("strategy", "valid"), [(ToyStrategy, False), (DeepSpeedToy, True)])
def test_the_rules_across_strategies_read_the_toys_declarations(cli, toy_config, strategy, valid):
    with registered(strategy()):
        result = cli("validate", toy_config, "--set", "hyperparameters.zero_stage=3")
    refused = "DeepSpeed (zero_stage) runs under a distributed launcher" in result.output
    assert (result.exit_code == 0) is valid and refused is not valid, result.output


class AccelerateToy(ToyStrategy):
    """The toy, asking `local` for a launcher it has never heard of."""

    def local_launcher(self, planned: str) -> str:
        return "accelerate"


def test_a_launcher_local_cannot_start_is_refused_not_replaced(cli, toy_config, tmp_path):
    with registered(AccelerateToy()):
        assert cli("validate", toy_config).exit_code == 0  # plans as before
        result = cli("local", toy_config, "--workdir", tmp_path / "run")
    assert result.exit_code == 2, result.output
    assert "launches with 'accelerate', which sagelaunch local cannot start" in result.output
    assert "torchrun" in result.output and "toy ran with" not in result.output
    assert not (tmp_path / "run").exists()  # refused before any run folder

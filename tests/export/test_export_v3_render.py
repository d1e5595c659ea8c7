"""`export --sdk v3` without the v3 SDK: every golden plan renders to valid Python or is refused
(exit 2) naming what ModelTrainer lacks. (`make test-sdk-v3` builds the requests with v3 itself.)"""

from __future__ import annotations

import json

import pytest

from sagelaunch.errors import UsageError
from sagelaunch.plan_model import Plan
from sagelaunch.services.exporting import script
from tests.conftest import ENTRYPOINTS, EXAMPLES
from tests.golden.regenerate import GOLDEN

REFUSED = {
    "smddp-p4d": "no SMDDP option",
    "tf-smddp-p4d": "no SMDDP option",
    "smp-v1-p4d": "no SMP v1",
    "tf-ps-local": "no TensorFlow parameter_server",
    "tf-mwms-local": "no TensorFlow multi_worker_mirrored_strategy",
    "tuning-pytorch-g5": "tuning: block would be lost",
    "hetero-c5-p4d": "does not write instance groups",
}


def golden(name: str) -> Plan:
    return Plan.model_validate(json.loads((GOLDEN / f"{name}.json").read_text()))


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.json")))
def test_v3_renders_or_names_what_it_lacks(name):
    if name in REFUSED:
        with pytest.raises(UsageError, match=REFUSED[name]):
            script(golden(name), "v3", source="x.yaml", name="x.py")
        return
    text = script(golden(name), "v3", source="x.yaml", name="x.py")
    compile(text, f"{name}.py", "exec")
    assert "ModelTrainer(" in text and "def main(" in text


def test_refusal_through_the_cli_exits_2(cli):
    result = cli("export", EXAMPLES / "smddp-p4d.yaml", "--sdk", "v3")
    assert result.exit_code == 2
    assert "SDK v3 has no SMDDP option" in result.output and "--sdk v2" in result.output


def test_smp_parameters_v3_does_not_take_are_named():
    plan = golden("smp-v2-p4d")
    kwargs = json.loads(json.dumps(plan.estimator.kwargs))
    kwargs["distribution"]["smdistributed"]["modelparallel"]["parameters"]["offload"] = True
    estimator = plan.estimator.model_copy(update={"kwargs": kwargs})
    with pytest.raises(UsageError, match="SMP takes no offload"):
        script(plan.model_copy(update={"estimator": estimator}), "v3", source="x", name="x.py")


def test_a_v3_config_exports_model_trainer_without_the_flag(cli, tmp_path):
    config = tmp_path / "v3.yaml"
    text = (EXAMPLES / "cpu-local.yaml").read_text() + "sdk: v3\n"
    config.write_text(
        text.replace(
            "name: gpt-cpu-local", f"name: gpt-cpu-local\nsource_dir: {ENTRYPOINTS / 'pytorch'}"
        )
    )
    assert "ModelTrainer(" in cli("export", config).output
    assert "ModelTrainer(" not in cli("export", config, "--sdk", "v2").output


def with_channel_mode(plan: Plan, name: str, mode: str) -> Plan:
    estimator = json.loads(json.dumps(plan.estimator.model_dump()))
    estimator["fit_inputs"][name]["kwargs"]["input_mode"] = mode
    return plan.model_copy(update={"estimator": type(plan.estimator).model_validate(estimator)})


def test_a_channel_input_mode_file_is_what_model_trainer_sends_for_a_uri():
    """ModelTrainer gives a channel passed as an S3 URI InputMode File itself: a config's explicit
    input_mode File exports; another mode, or File on a channel v3 describes as an S3DataSource
    (a sharded one, sent without InputMode), has no v3 spelling and is named."""
    plan = golden("xgboost-sharded")
    replicated = with_channel_mode(plan, "validation", "File")
    compile(script(replicated, "v3", source="x.yaml", name="x.py"), "x.py", "exec")
    with pytest.raises(UsageError, match=r"channel validation: .* \(FastFile\)"):
        script(with_channel_mode(plan, "validation", "FastFile"), "v3", source="x", name="x.py")
    with pytest.raises(UsageError, match=r"channel train: .* \(File\)"):
        script(with_channel_mode(plan, "train", "File"), "v3", source="x", name="x.py")

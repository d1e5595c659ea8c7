"""A `tuning:` plan as SDK v2 script text: `HyperparameterTuner` around the planned estimator.

Rendered from the plan's `tuning.tuner` (sdk/tuning.py's TunerSpec, as data), like the estimator.
"""

from __future__ import annotations

from typing import Any

from sagelaunch.plan_model import TuningPlan
from sagelaunch.translate.pysource import INDENT, call, literal

MAIN = '''

def main(session: sagemaker.Session | None = None, wait: bool = True):
    """Create the tuning job (and wait for it to end unless ``wait`` is False)."""
    session = session or sagemaker.Session(boto_session=boto3.Session(region_name=REGION))
    tuner = make_tuner(make_estimator(session))
    tuner.fit({fit_args}, job_name=TUNING_JOB_NAME, wait=wait)
    return tuner


if __name__ == "__main__":
    main()
'''


def imports(tuning: TuningPlan) -> list[str]:
    tuner = tuning.tuner
    parameters = sorted(
        {str(r["class"]).rsplit(".", 1)[-1] for r in tuner["hyperparameter_ranges"].values()}
    )
    names = ["HyperparameterTuner"]
    if "warm_start_config" in tuner:
        names += ["WarmStartConfig", "WarmStartTypes"]
    if "strategy_config" in tuner:
        names += ["HyperbandStrategyConfig", "StrategyConfig"]
    return [
        f"from sagemaker.parameter import {', '.join(parameters)}",
        f"from sagemaker.tuner import {', '.join(sorted(names))}",
    ]


def make_tuner(tuning: TuningPlan) -> list[str]:
    tuner = tuning.tuner
    ranges = [
        f"{INDENT * 2}{literal(name)}: "
        f"{call(str(r['class']).rsplit('.', 1)[-1], r['kwargs'], depth=2)},"
        for name, r in tuner["hyperparameter_ranges"].items()
    ]
    kwargs: dict[str, Any] = {"estimator": "estimator", "hyperparameter_ranges": "ranges"}
    kwargs.update(tuner["kwargs"])
    raw = {"estimator", "hyperparameter_ranges"}
    if "warm_start_config" in tuner:
        warm = tuner["warm_start_config"]
        kwargs["warm_start_config"] = (
            f"WarmStartConfig(warm_start_type=WarmStartTypes({literal(warm['warm_start_type'])}), "
            f"parents={{{', '.join(literal(p) for p in warm['parents'])}}})"
        )
        raw.add("warm_start_config")
    if "strategy_config" in tuner:
        hyperband = tuner["strategy_config"]["hyperband_strategy_config"]
        kwargs["strategy_config"] = (
            "StrategyConfig(hyperband_strategy_config="
            f"{call('HyperbandStrategyConfig', hyperband, depth=2)})"
        )
        raw.add("strategy_config")
    # What the tuner's estimator gets beyond the plan's: TensorFlow's model_dir as the SDK derives
    # it for the estimator's own job (tuner.fit() without a name), since fit() is given one here.
    settings = [
        line
        for key, value in (tuner.get("estimator_kwargs") or {}).items()
        for line in (
            f"{INDENT}# As the SDK derives it for the estimator's own job (the plan's job name).",
            f"{INDENT}estimator.{key} = {literal(value)}",
        )
    ]
    return [
        "\n\ndef make_tuner(estimator):",
        f'{INDENT}"""The tuner, with the keyword arguments `sagelaunch plan` showed."""',
        *settings,
        f"{INDENT}ranges = {{",
        *ranges,
        f"{INDENT}}}",
        f"{INDENT}return " + call("HyperparameterTuner", kwargs, depth=1, raw=frozenset(raw)),
    ]


def main(fit_args: str) -> str:
    return MAIN.format(fit_args=fit_args)

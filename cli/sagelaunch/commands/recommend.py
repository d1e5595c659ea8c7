"""`sagelaunch recommend --params 7B`: DDP, FSDP or model parallel, and how many instances.

Options and phases: the options checked, the workload built, the layouts ranked
(recommend.planner), then shown (recommend_view.py) and written (--emit-config,
--emit-deepspeed-config)."""

from __future__ import annotations

import shlex
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from sagelaunch.commands.recommend_view import render
from sagelaunch.errors import UsageError
from sagelaunch.output import OutputFormat, OutputOption, print_json, stderr

if TYPE_CHECKING:
    from sagelaunch.recommend.planner import Recommendation
    from sagelaunch.recommend.workload import Model
    from sagelaunch.recommend.workload import Optimizer as OptimizerChoice
    from sagelaunch.recommend.workload import Precision as PrecisionName


class Precision(str, Enum):
    bf16 = "bf16"
    fp32 = "fp32"
    fp8 = "fp8"


class Offload(str, Enum):
    none = "none"
    optimizer = "optimizer"
    all = "all"


class OptimizerName(str, Enum):
    adamw = "adamw"
    adam = "adam"
    sgd = "sgd"


class SelectivePolicy(str, Enum):
    activations = "activations"
    ops = "ops"


ParamsOption = Annotated[
    str | None,
    typer.Option("--params", help="Model size: 125M, 1.3B, 7B, 70B, 7e9, 7000000000."),
]
ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="A published shape: llama2-7b/13b/70b, llama3-8b/70b/405b, mistral-7b, gpt-neox-20b.",
    ),
]
ModelConfigOption = Annotated[
    Path | None,
    typer.Option("--model-config", help="A Hugging Face config.json to read the shape from."),
]
InstanceTypeOption = Annotated[str, typer.Option("--instance-type", help="Training instance type.")]
InstanceCountOption = Annotated[
    int | None,
    typer.Option(
        "--instance-count",
        min=1,
        max=256,
        help="Plan for this many instances (default: the fewest that fit).",
    ),
]
PrecisionOption = Annotated[
    Precision, typer.Option("--precision", help="bf16 mixed precision, fp32, or fp8.")
]
OptimizerOption = Annotated[
    OptimizerName, typer.Option("--optimizer", help="adamw/adam (2 states) or sgd (momentum).")
]
SeqLenOption = Annotated[int, typer.Option("--seq-len", min=1, help="Tokens per sample.")]
MicroBatchOption = Annotated[
    int, typer.Option("--micro-batch", min=1, help="Samples per device per micro-step.")
]
LayersOption = Annotated[
    int | None, typer.Option("--layers", min=1, help="Transformer blocks (default: estimated).")
]
HiddenOption = Annotated[
    int | None, typer.Option("--hidden", min=1, help="Hidden size (default: estimated).")
]
ActivationCheckpointingOption = Annotated[
    bool,
    typer.Option("--activation-checkpointing", help="Recompute activations in backward."),
]
ActivationOffloadOption = Annotated[
    bool,
    typer.Option(
        "--activation-offload",
        help="Keep saved activations in host memory (train_pytorch.py --activation_offload).",
    ),
]
EagerAttentionOption = Annotated[
    bool,
    typer.Option(
        "--eager-attention",
        help="Attention without SDPA/flash: every score stored, and timed through memory.",
    ),
]
SelectiveCheckpointingOption = Annotated[
    bool,
    typer.Option(
        "--selective-checkpointing",
        help="With --activation-checkpointing: recompute only part of each block "
        "(--selective-policy says which).",
    ),
]
SelectivePolicyOption = Annotated[
    SelectivePolicy,
    typer.Option(
        "--selective-policy",
        help="What --selective-checkpointing keeps: 'activations' every matmul's output "
        "(the activation functions recomputed); 'ops' torchtitan's per-op policy "
        "(selective_ac_option 'op': the attention's and every second matmul's outputs).",
    ),
]
GradAccumOption = Annotated[
    int,
    typer.Option(
        "--grad-accum",
        min=1,
        help="Micro-batches per optimizer step (a pipeline's micro-batches).",
    ),
]
GlobalBatchOption = Annotated[
    int | None,
    typer.Option(
        "--global-batch",
        min=1,
        help="Sequences per optimizer step over every data-parallel rank, the same for "
        "each layout: each accumulates its share (instead of --grad-accum).",
    ),
]
CompileOption = Annotated[
    bool,
    typer.Option("--compile", help="torch.compile: fused kernels, less memory traffic."),
]
ZeroStageOption = Annotated[
    int,
    typer.Option(
        "--zero-stage", min=0, max=3, help="Plan DeepSpeed ZeRO 1, 2 or 3 (0: the ladder)."
    ),
]
OffloadOption = Annotated[
    Offload, typer.Option("--offload", help="ZeRO: optimizer (2, 3) or all (3) on the CPU.")
]
EmitDeepspeedConfigOption = Annotated[
    Path | None,
    typer.Option("--emit-deepspeed-config", help="Write the ZeRO layout's DeepSpeed JSON."),
]
EmitConfigOption = Annotated[
    Path | None,
    typer.Option("--emit-config", help="Write a launch config that runs the recommendation."),
]
ForceOption = Annotated[bool, typer.Option("--force", help="Overwrite --emit-config's file.")]
PickOption = Annotated[
    int,
    typer.Option(
        "--pick",
        min=1,
        help="Take the Nth layout of the tables (1: the recommendation) as the plan: "
        "for the output and --emit-config.",
    ),
]


def recommend(
    ctx: typer.Context,
    params: ParamsOption = None,
    model: ModelOption = None,
    model_config: ModelConfigOption = None,
    instance_type: InstanceTypeOption = "ml.p4d.24xlarge",
    instance_count: InstanceCountOption = None,
    precision: PrecisionOption = Precision.bf16,
    optimizer: OptimizerOption = OptimizerName.adamw,
    seq_len: SeqLenOption = 2048,
    micro_batch: MicroBatchOption = 1,
    layers: LayersOption = None,
    hidden: HiddenOption = None,
    activation_checkpointing: ActivationCheckpointingOption = False,
    activation_offload: ActivationOffloadOption = False,
    eager_attention: EagerAttentionOption = False,
    selective_checkpointing: SelectiveCheckpointingOption = False,
    selective_policy: SelectivePolicyOption = SelectivePolicy.activations,
    grad_accum: GradAccumOption = 1,
    global_batch: GlobalBatchOption = None,
    compile_: CompileOption = False,
    zero_stage: ZeroStageOption = 0,
    offload: OffloadOption = Offload.none,
    output: OutputOption = OutputFormat.table,
    emit_deepspeed_config: EmitDeepspeedConfigOption = None,
    emit_config: EmitConfigOption = None,
    force: ForceOption = False,
    pick: PickOption = 1,
) -> None:
    """Pick DDP, FSDP, SMP v2 or Neuron torchrun and an instance count from a memory model."""
    from sagelaunch.recommend import layouts, planner
    from sagelaunch.recommend.workload import DEFAULT_VOCAB, Workload, estimate_shape, parse_params

    # 1. Every option checked before any figure is computed.
    _check_outputs(emit_config, emit_deepspeed_config, force)
    _check_checkpointing(activation_checkpointing, selective_checkpointing, selective_policy)
    _check_batch(global_batch, grad_accum)
    # 2. The workload: the model's shape, the batch, precision, memory savers, ZeRO.
    known = _model(params, model, model_config)
    count = known.params if known else parse_params(params or "")
    workload = Workload(
        params=count,
        shape=known.shape if known else estimate_shape(count, layers, hidden),
        vocab=known.vocab if known else DEFAULT_VOCAB,
        selective_checkpointing=selective_checkpointing,
        selective_policy=selective_policy.value,
        grad_accum=grad_accum,
        global_batch=global_batch,
        kernels="compiled" if compile_ else "eager",
        seq_len=seq_len,
        micro_batch=micro_batch,
        precision=cast("PrecisionName", precision.value),
        optimizer=cast("OptimizerChoice", optimizer.value),
        activation_checkpointing=activation_checkpointing,
        activation_offload=activation_offload,
        attention="unfused" if eager_attention else "flash",
        attention_dropout=bool(known and known.attention_dropout),
        zero_stage=_zero_stage(zero_stage, offload, emit_deepspeed_config),
        zero_offload=offload.value,
    )
    # 3. The layouts on the instance, ranked; the one to show (--pick).
    rec = planner.recommend(workload, layouts.device(instance_type), instance_count).pick(pick)
    # 4. Shown (recommend_view), then written where asked.
    if output is OutputFormat.json:
        print_json(rec.as_json())
    else:
        render(rec)
    if emit_config is not None:
        _write_config(emit_config, rec, _invocation(ctx))
    if emit_deepspeed_config is not None:
        _write_deepspeed_config(emit_deepspeed_config, rec, force)


def _check_outputs(
    emit_config: Path | None, emit_deepspeed_config: Path | None, force: bool
) -> None:
    """The files to write: file names (not folders), and an existing config only with --force."""
    from sagelaunch.cli_params import output_file

    output_file(emit_config, "--emit-config", "job.yaml")
    output_file(emit_deepspeed_config, "--emit-deepspeed-config", "ds_config.json")
    if emit_config is not None and emit_config.exists() and not force:
        raise UsageError(f"{emit_config} exists", hint="pass --force to overwrite it")


def _check_batch(global_batch: int | None, grad_accum: int) -> None:
    if global_batch is not None and grad_accum > 1:
        raise UsageError(
            "--global-batch and --grad-accum both set the micro-batches of a step",
            hint="give --global-batch (each layout accumulates its share) or --grad-accum",
        )


def _model(params: str | None, name: str | None, config: Path | None) -> Model | None:
    """The shape from --model or --model-config (exactly one of them or --params)."""
    import json

    from sagelaunch.recommend.workload import config_model, named_model

    given = [
        flag
        for flag, value in (("--params", params), ("--model", name), ("--model-config", config))
        if value
    ]
    if len(given) != 1:
        raise UsageError(
            "give one of --params, --model and --model-config"
            + (f" (got {' and '.join(given)})" if given else ""),
            hint="e.g. --params 7B, --model llama3-70b or --model-config config.json",
        )
    if name:
        return named_model(name)
    if config:
        try:
            data = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise UsageError(f"cannot read {config}: {err}") from err
        if not isinstance(data, dict):
            raise UsageError(f"{config} is not a JSON object")
        return config_model(data, config.name)
    return None


def _zero_stage(stage: int, offload: Offload, emit: Path | None) -> int:
    if offload is not Offload.none and not stage:
        raise UsageError("--offload is a ZeRO setting", hint="add --zero-stage 2 or 3")
    if offload is Offload.all and stage != 3:
        raise UsageError("--offload all needs --zero-stage 3 (ZeRO-3 partitions the weights)")
    if emit is not None and not stage:
        raise UsageError("--emit-deepspeed-config needs --zero-stage 1, 2 or 3")
    return stage


def _write_deepspeed_config(target: Path, rec: Recommendation, force: bool) -> None:
    import json

    from sagelaunch.recommend.planner import zero_json

    if target.exists() and not force:
        raise UsageError(f"{target} exists", hint="pass --force to overwrite it")
    config = zero_json(rec.workload, rec.chosen)["deepspeed_config"]
    target.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    stderr.print(
        f"wrote [bold]{target}[/bold] — pass it as the hyperparameter deepspeed_config "
        "(relative to source_dir)"
    )


def _write_config(target: Path, rec: Recommendation, command: str) -> None:
    from sagelaunch.recommend.emit import launch_config, not_in_job

    if not rec.chosen.fits:
        raise UsageError(
            f"not writing {target}: the recommended layout does not fit",
            hint="follow the reason above (more instances, --activation-checkpointing, ...)",
        )
    target.write_text(launch_config(rec, command), encoding="utf-8")
    for missing in not_in_job(rec.workload):
        stderr.print(f"warning: not in {target} (train_pytorch.py has no flag for it): {missing}")
    stderr.print(f"wrote [bold]{target}[/bold] — next: sagelaunch validate {target}")


def _check_checkpointing(activation: bool, selective: bool, policy: SelectivePolicy) -> None:
    """Each checkpointing option only refines the one before it: alone it would change nothing."""
    if policy != SelectivePolicy.activations and not selective:
        raise UsageError(
            "--selective-policy chooses what --selective-checkpointing keeps",
            hint="add --activation-checkpointing --selective-checkpointing",
        )
    if selective and not activation:
        raise UsageError(
            "--selective-checkpointing recomputes part of each checkpointed block",
            hint="add --activation-checkpointing",
        )


def _invocation(ctx: typer.Context) -> str:
    """The planning options as a command line, for the emitted config's header."""
    parts = ["sagelaunch", "recommend"]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        value = value.value if isinstance(value, Enum) else value
        default = param.default.value if isinstance(param.default, Enum) else param.default
        if param.name in _NOT_PLANNING or value is None or value is False or value == default:
            continue
        parts += [param.opts[0]] if value is True else [param.opts[0], str(value)]
    return shlex.join(parts)


_NOT_PLANNING = {"output", "emit_config", "emit_deepspeed_config", "force", "model_config"}

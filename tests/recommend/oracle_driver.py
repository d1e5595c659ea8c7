"""Measure one training step of the entry point's GPT under PyTorch's memory trackers, on fake
tensors: ``python oracle_driver.py CELL_JSON ...`` prints one JSON line of GB per category each
(or, for a cell naming `tflops` and `gbps`, RuntimeEstimator's roofline of the step).

Runs as its own process because it initialises a process group (the ``fake`` backend: rank 0 of
a mesh as large as the layout needs, collectives answered locally) and FakeTensorMode allocates
nothing, so a 70B model on 64 ranks costs only Python time. Tensors are faked on the CPU: the
mesh and the trackers need a device type that exists in this torch build, and the trackers count
bytes the same on any device (the CUDA allocator's 512-byte rounding aside).

A cell naming a real ``device`` ("cuda", or "cpu" to try the same code anywhere) is measured
on real tensors instead, on a one-rank process group of that device's backend (NCCL on CUDA):
the GPU check (tests/gpu) holds the model against the trackers on the device the job will use,
and its total against the CUDA allocator's own peak over a further, steady-state step.

Each layout is built with the entry point's own code (train_pytorch.model_config,
torch_parallel.build_mesh, apply_tensor_parallel, _fully_shard, torch_pipeline.split, loss_fn,
autocast), in parallelize()'s order. The wrapping runs outside FakeTensorMode because
DeviceMesh computes rank coordinates from real tensors; the parameters are fake already, so
nothing is allocated either way.
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.distributed._tools.fsdp2_mem_tracker import FSDPMemTracker
from torch.distributed._tools.mem_tracker import MemTracker
from torch.testing._internal.distributed.fake_pg import FakeStore

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.recommend.entrypoint_modules import load

models, parallel, pipeline, config, distctx, train, zero1 = load()

GB = 1e9
# tracker category names -> the memory model's categories
CATEGORIES = {
    "weights": ("Parameter", "Sharded Param", "Unsharded Param", "Buffer"),
    "gradients": ("Gradient", "Sharded Grad", "Unsharded Grad"),
    "optimizer": ("Optstate", "OptState"),
    "activations": ("Activation",),
}


def measure(cell: dict[str, Any]) -> dict[str, Any]:
    layout = config.Layout(**cell["layout"])
    device = cell.get("device")
    if device is None:
        dist.init_process_group("fake", rank=0, world_size=layout.world_size, store=FakeStore())
    else:  # real tensors on one rank: the layout's mesh must be of size 1
        backend = "nccl" if device == "cuda" else "gloo"
        dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1)
    try:
        return _measure(cell, layout, device)
    finally:
        dist.destroy_process_group()


def train_config(cell: dict[str, Any], layout: Any) -> Any:
    return config.TrainConfig(
        model="gpt",
        n_layer=cell["layers"],
        n_head=cell["heads"],
        n_embd=cell["hidden"],
        seq_len=cell["seq_len"],
        vocab_size=cell["vocab"],
        batch_size=cell["micro_batch"],
        parallel=cell["parallel"],
        precision=cell["precision"],
        activation_checkpointing=cell["checkpointing"],
        tensor_parallel_degree=layout.tp,
        pipeline_parallel_degree=layout.pp,
        zero1=bool(cell.get("zero1")),
        loss_parallel=bool(cell.get("loss_parallel")),
    )


def _measure(cell: dict[str, Any], layout: Any, device: str | None) -> dict[str, Any]:
    cfg = train_config(cell, layout)
    if device is None:
        ctx = distctx.DistContext(kind="gloo", backend="fake", world_size=layout.world_size)
        tensors: Any = FakeTensorMode(allow_non_fake_inputs=True)
    else:
        backend = dist.get_backend()
        ctx = distctx.DistContext(kind=backend, backend=backend, world_size=1)
        ctx.device = torch.device(device, 0) if device == "cuda" else torch.device(device)
        tensors = torch.device(ctx.device)  # build the model where it trains
    mesh = parallel.build_mesh(ctx, layout)
    _baseline(ctx.device)
    with tensors, _default_dtype(torch.bfloat16 if parallel.weights_in_bf16(cfg, layout) else None):
        torch.manual_seed(0)
        model = models.build_model(train.model_config(cfg))
    total_params = models.num_params(model)
    holder = _wrap(model, mesh, layout, cfg)
    with tensors:
        optimizer = _optimizer(holder, mesh, layout, cfg)
        tracker = _tracker(holder, optimizer, cfg.parallel)
        snapshots = _step(tracker, holder, optimizer, cfg, ctx, layout)
    moments, during = snapshots
    found = {cat: max(_sum(s, names) for s in during) for cat, names in CATEGORIES.items()}
    # the forward's end, or the peak in backward (where checkpointing recomputes a block)
    found["activations"] = max(_sum(m, CATEGORIES["activations"]) for m in (moments[0], moments[3]))
    found["optimizer"] = _sum(moments[2], CATEGORIES["optimizer"])  # after the step
    if layout.pp > 1 and cfg.parallel == "fsdp":
        # the gradients a pipelined FSDP stage accumulates unsharded until its reduce (FSDP2's
        # unsharded_accumulated_grad, in the reduce dtype): FSDPMemTracker files them under
        # Temp, the only thing temporary once backward has ended
        found["gradients"] = max(found["gradients"], _sum(moments[1], ("Temp",)))
    if isinstance(optimizer, zero1.ShardedAdamW):
        # the gradients live in the distributed optimizer's fp32 buffers (the tracker files them
        # as Temp); its fp32 master slices it files with AdamW's moments, as Optstate
        found["gradients"] = sum(b.numel() * b.element_size() for b in optimizer.grad_buffers)
    found["peak"] = _sum(moments[3], ("Total",))
    found["temp_at_peak"] = _sum(moments[3], ("Temp",))  # the loss's backward, when it peaks
    if cfg.loss_parallel:
        # loss_parallel's backward (DTensor op handlers) allocates its transient as Activation:
        # the step's activations are the forward's, the transient what the peak adds to them
        found["activations"] = _sum(moments[0], CATEGORIES["activations"])
        found["temp_at_peak"] += _sum(moments[3], CATEGORIES["activations"]) - found["activations"]
    if device is not None:
        found.update(_steady_peak(holder, optimizer, cfg, ctx, layout.pp))
    return {"params": total_params, "measured_gb": {k: v / GB for k, v in found.items()}}


def _steady_peak(model: Any, optimizer: Any, cfg: Any, ctx: Any, stages: int) -> dict[str, int]:
    """The CUDA caching allocator's peak over one more step, in steady state (the optimizer's
    state exists from the tracked step, gradients dropped as the entry point drops them): bytes
    allocated (torch.cuda.max_memory_allocated) and reserved, beyond what the process held
    before the model was built. Nothing on other devices."""
    if ctx.device.type != "cuda":
        return {}
    optimizer.zero_grad(set_to_none=True)
    torch.cuda.synchronize(ctx.device)
    torch.cuda.reset_peak_memory_stats(ctx.device)
    tokens = torch.randint(0, cfg.vocab_size, (cfg.batch_size * stages, cfg.seq_len))
    with parallel.autocast(ctx, cfg.precision):
        loss = _loss(model(tokens.to(ctx.device)), tokens.to(ctx.device), stages)
    loss.backward()
    optimizer.step()
    torch.cuda.synchronize(ctx.device)
    return {
        "allocator_peak": torch.cuda.max_memory_allocated(ctx.device) - _BASELINE["allocated"],
        "allocator_reserved": torch.cuda.max_memory_reserved(ctx.device) - _BASELINE["reserved"],
    }


_BASELINE = {"allocated": 0, "reserved": 0}


def _baseline(device: torch.device) -> None:
    """What the process holds before a cell's model exists (an earlier cell's leftovers freed)."""
    if device.type == "cuda":
        gc.collect()
        torch.cuda.empty_cache()
        _BASELINE.update(
            allocated=torch.cuda.memory_allocated(device),
            reserved=torch.cuda.memory_reserved(device),
        )


def _wrap(model: Any, mesh: Any, layout: Any, cfg: Any) -> Any:
    """parallelize()'s order: PP split (rank 0 holds the first stage), TP, then FSDP."""
    pipe = pipeline.split(model, cfg, 0) if cfg.pipelined else None
    holder = pipe.holder if pipe else model
    if layout.tp > 1:
        parallel.apply_tensor_parallel(holder, mesh["tp"], None, cfg.loss_parallel)
    if cfg.parallel == "fsdp":
        parallel._fully_shard(holder, None, parallel._dp_mesh(mesh, layout), cfg)
    return holder


@contextlib.contextmanager
def _default_dtype(dtype: torch.dtype | None) -> Iterator[None]:
    """Parameters built in `dtype`: parallelize() casts the model to bf16 under ZeRO-1 beside
    TP/PP, which a module of fake tensors cannot do in place (it swaps them)."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype or before)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def _optimizer(model: Any, mesh: Any, layout: Any, cfg: Any) -> Any:
    """make_optimizer()'s: ZeRO-1 beside TP/PP over the data-parallel group, else AdamW."""
    if parallel.shards_optimizer(cfg, layout):
        tp = mesh["tp"].get_group() if layout.tp > 1 else None
        pp = mesh["pp"].get_group() if layout.pp > 1 else None
        group = mesh["dp_replicate"].get_group()
        return zero1.ShardedAdamW(model.parameters(), group, tp, pp, lr=1e-4)
    return torch.optim.AdamW(model.parameters(), lr=1e-4)


def _tracker(model: Any, optimizer: Any, mode: str) -> MemTracker:
    if mode == "fsdp":
        return FSDPMemTracker(model, optimizer)
    tracker = MemTracker()
    tracker.track_external(model, optimizer)
    return tracker


def _compute(ctx: Any, cfg: Any, layout: Any) -> Any:
    """torch_step.compute()'s contexts: autocast unless the weights are bf16, and the loss on
    vocabulary shards under --loss_parallel (forward and backward)."""
    stack = contextlib.ExitStack()
    if not parallel.weights_in_bf16(cfg, layout):
        stack.enter_context(parallel.autocast(ctx, cfg.precision))
    if cfg.loss_parallel:
        from torch.distributed.tensor.parallel import loss_parallel

        stack.enter_context(loss_parallel())
    return stack


def _step(
    tracker: Any, model: Any, optimizer: Any, cfg: Any, ctx: Any, layout: Any
) -> tuple[list, list]:
    """One step: snapshots after forward, after backward, after the optimizer and at the peak;
    and those plus every module-level snapshot.

    A first pipeline stage under 1F1B runs `stages` micro-batches forward before the first
    backward comes back, so it holds that many micro-batches' activations of its blocks: one
    forward of `stages` micro-batches at once holds the same (the tracker allows one forward per
    module and step).
    """
    stages = layout.pp
    tokens = torch.randint(0, cfg.vocab_size, (cfg.batch_size * stages, cfg.seq_len))
    pipelined_fsdp = stages > 1 and cfg.parallel == "fsdp"
    with tracker, _compute(ctx, cfg, layout):
        loss = _loss(model(tokens), tokens, stages)
        after_forward = tracker.get_tracker_snapshot()
        if pipelined_fsdp:
            _pipeline_backward_no_sync(model)
        loss.backward()
        after_backward = tracker.get_tracker_snapshot()
        if pipelined_fsdp:
            _pipeline_reduce_grad(model)
        if isinstance(optimizer, zero1.ShardedAdamW):
            optimizer.reduce_gradients()
        optimizer.step()
        after_step = tracker.get_tracker_snapshot()
        peak = tracker.get_tracker_snapshot("peak")
    moments = [_flat(s) for s in (after_forward, after_backward, after_step, peak)]
    return moments, moments + _module_snapshots(tracker)


def _pipeline_backward_no_sync(model: Any) -> None:
    """What torch.distributed.pipelining's stage does before each micro-batch's backward of an
    FSDP stage (_PipelineStageBase.backward_maybe_with_nosync): no reduce-scatter, no reshard,
    so the stage's gradients accumulate unsharded and its weights stay gathered."""
    model.set_is_last_backward(False)
    model.set_reshard_after_backward(False)
    model.set_requires_gradient_sync(False)


def _pipeline_reduce_grad(model: Any) -> None:
    """And what it does once after the last micro-batch's backward (perform_reduce_grad): the
    post-backward of every FSDP parameter group, reduce-scatter and reshard included."""
    from torch.distributed.fsdp import fully_shard

    model.set_is_last_backward(True)
    model.set_reshard_after_backward(True)
    model.set_requires_gradient_sync(True)
    state = fully_shard.state(model)
    for each in state._state_ctx.all_states:
        for group in each._fsdp_param_groups:
            group.post_backward()
    state._root_post_backward_final_callback()


def _module_snapshots(tracker: Any) -> list[dict[str, int]]:
    """Every snapshot the tracker took around each module's forward and backward."""
    found = []
    for stats in tracker.memory_tracking.values():
        for snaps in stats.snapshots.values():
            found += [_flat(snap) for snap in snaps]
    return found


def _loss(out: Any, tokens: Any, stages: int) -> Any:
    if stages > 1:  # a middle stage's output: its gradient arrives from the next stage
        return out.float().mean()
    return parallel.loss_fn(out, tokens)


def _flat(snapshot: dict) -> dict[str, int]:
    merged: dict[str, int] = {}
    for per_device in snapshot.values():
        for key, value in per_device.items():
            name = key.value if hasattr(key, "value") else str(key)
            merged[name] = merged.get(name, 0) + value
    return merged


def _sum(snapshot: dict[str, int], names: tuple[str, ...]) -> int:
    return sum(snapshot.get(name, 0) for name in names)


def estimate_runtime(cell: dict[str, Any]) -> dict[str, Any]:
    """RuntimeEstimator's roofline ("operator-level-cost-model") over one step on one rank,
    with the accelerator's FLOPS and HBM bandwidth (`tflops`, `gbps` in the cell) in place of
    the local GPU's, which it would otherwise read from CUDA. Run twice: as is, and with FLOPS
    unbounded (memory traffic alone); FlopCounterMode counts the FLOPs of the same step."""
    from torch.distributed._tools.runtime_estimator import RuntimeEstimator
    from torch.utils import _runtime_estimation as roofline
    from torch.utils.flop_counter import FlopCounterMode

    layout = config.Layout(**cell["layout"])
    cfg = train_config(cell, layout)
    ctx = distctx.DistContext(kind="gloo", backend=None)
    torch.cuda.is_available = lambda: True  # the estimator's guard; no CUDA call follows
    times = {}
    for name, tflops, gbps in (
        ("step", cell["tflops"], cell["gbps"]),
        ("memory", 1e30, cell["gbps"]),
    ):
        roofline.get_device_tflops = lambda dtype, t=tflops: t
        roofline.get_gpu_dram_gbps = lambda g=gbps: g
        estimator = RuntimeEstimator()
        with FakeTensorMode(allow_non_fake_inputs=True):
            model = models.build_model(train.model_config(cfg))
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
            tokens = torch.randint(0, cfg.vocab_size, (cfg.batch_size, cfg.seq_len))
            flops = FlopCounterMode(display=False)
            with estimator("operator-level-cost-model"), flops:
                with parallel.autocast(ctx, cfg.precision):
                    loss = parallel.loss_fn(model(tokens), tokens)
                loss.backward()
                optimizer.step()
        times[name] = estimator.total_runtime / 1e3  # ms -> s
    return {"params": models.num_params(model), "flops": flops.get_total_flops(), "seconds": times}


def main(argv: list[str]) -> int:
    for text in argv:
        cell = json.loads(text)
        run = estimate_runtime if "tflops" in cell else measure
        print(json.dumps({**cell, **run(cell)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

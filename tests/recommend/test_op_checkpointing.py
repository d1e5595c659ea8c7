"""torchtitan's per-op selective checkpointing, held against torch's own: a Llama block (and a
GELU one) under torch.utils.checkpoint with torchtitan's policy, on small real tensors on the
CPU. What the policy keeps after forward (MemTracker's activations) and the matmul FLOPs its
backward runs again (FlopCounterMode) are what memory.op_checkpointing_saved and
steptime.recomputed_matmul_share say."""

from __future__ import annotations

from collections import defaultdict

import pytest

from sagelaunch.recommend.memory import op_checkpointing_saved
from sagelaunch.recommend.steptime import recomputed_matmul_share
from sagelaunch.recommend.workload import Shape, Workload

torch = pytest.importorskip("torch")
nn, F = torch.nn, torch.nn.functional

HIDDEN, HEADS, KV_HEADS, FFN, SEQ, BATCH, LAYERS = 256, 4, 2, 704, 256, 2, 3


class Block(nn.Module):
    """torchtitan's Llama TransformerBlock (models/llama3/model.py), RoPE left out: norms, q/k/v
    in that order, SDPA, the projection, then w2(silu(w1(x)) * w3(x)); ungated: w2(gelu(w1(x)))."""

    def __init__(self, gated: bool) -> None:
        super().__init__()
        kv = HIDDEN // HEADS * KV_HEADS
        self.attention_norm, self.ffn_norm = nn.RMSNorm(HIDDEN), nn.RMSNorm(HIDDEN)
        self.wq, self.wk = nn.Linear(HIDDEN, HIDDEN, bias=False), nn.Linear(HIDDEN, kv, bias=False)
        self.wv, self.wo = nn.Linear(HIDDEN, kv, bias=False), nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.w1, self.w2 = nn.Linear(HIDDEN, FFN, bias=False), nn.Linear(FFN, HIDDEN, bias=False)
        self.w3 = nn.Linear(HIDDEN, FFN, bias=False) if gated else None

    def forward(self, x):
        head_dim, y = HIDDEN // HEADS, self.attention_norm(x)
        xq, xk, xv = self.wq(y), self.wk(y), self.wv(y)
        q = xq.view(BATCH, SEQ, HEADS, head_dim).transpose(1, 2)
        k, v = (
            t.view(BATCH, SEQ, KV_HEADS, head_dim)
            .repeat_interleave(HEADS // KV_HEADS, dim=2)
            .transpose(1, 2)
            for t in (xk, xv)
        )
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = x + self.wo(attended.transpose(1, 2).reshape(BATCH, SEQ, HIDDEN))
        z = self.ffn_norm(h)
        inner = F.silu(self.w1(z)) * self.w3(z) if self.w3 is not None else F.gelu(self.w1(z))
        return h + self.w2(inner)


def _save_list() -> set:
    """torchtitan's _save_list (parallelize_llama.py, e7c0cae), with SDPA's CPU kernel beside its
    CUDA ones, as the CPU runs that one."""
    ops = torch.ops.aten
    return {
        ops.mm.default,
        ops._scaled_dot_product_efficient_attention.default,
        ops._scaled_dot_product_flash_attention.default,
        ops._scaled_dot_product_flash_attention_for_cpu.default,
        torch.ops._c10d_functional.reduce_scatter_tensor.default,
        ops.max.default,
    }


def _context():
    """torchtitan's selective_checkpointing_context_fn: save every op in the list, except every
    second mm, counted per block and separately in forward and in recompute."""
    from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts

    meta, save = defaultdict(int), _save_list()

    def policy(ctx, func, *args, **kwargs):
        key = f"{'recompute' if ctx.is_recompute else 'forward'}_mm_count"
        if func == torch.ops.aten.mm.default:
            meta[key] += 1
        to_save = func in save and not (func == torch.ops.aten.mm.default and meta[key] % 2 == 0)
        return CheckpointPolicy.MUST_SAVE if to_save else CheckpointPolicy.PREFER_RECOMPUTE

    return create_selective_checkpoint_contexts(policy)


class Stack(nn.Module):
    def __init__(self, gated: bool, per_op: bool, layers: int = LAYERS) -> None:
        super().__init__()
        self.blocks, self.per_op = nn.ModuleList(Block(gated) for _ in range(layers)), per_op

    def forward(self, x):
        from torch.utils.checkpoint import checkpoint

        for block in self.blocks:
            if self.per_op:
                x = checkpoint(block, x, use_reentrant=False, context_fn=_context)
            else:
                x = block(x)
        return x


def _workload(gated: bool) -> Workload:
    shape = Shape(
        LAYERS, HIDDEN, HEADS, estimated=False, kv_heads=KV_HEADS, ffn_hidden=FFN, gated_mlp=gated
    )
    return Workload(params=1, shape=shape, seq_len=SEQ, micro_batch=BATCH)


def _inputs():
    torch.manual_seed(0)
    return torch.randn(BATCH, SEQ, HIDDEN, dtype=torch.bfloat16, requires_grad=True)


@pytest.mark.parametrize("gated", [True, False], ids=["swiglu", "gelu"])
def test_what_the_policy_keeps_after_forward(gated):
    """Per block: two stacks' activations after forward differ by what their extra blocks keep
    (each block's input, the policy's saved outputs, SDPA's fp32 log-sum-exp per head and
    token)."""
    from torch.distributed._tools.mem_tracker import MemTracker

    def kept(layers: int) -> int:
        model, x = Stack(gated, per_op=True, layers=layers).to(torch.bfloat16), _inputs()
        tracker = MemTracker()
        tracker.track_external(model)
        with tracker:
            out = model(x)
            after_forward = tracker.get_tracker_snapshot("current")
            out.float().square().mean().backward()
        return sum(v for k, v in after_forward[x.device].items() if str(k).endswith("ACT"))

    tokens = SEQ * BATCH
    per_block = tokens * (HIDDEN * op_checkpointing_saved(_workload(gated), 1, 2, 1) + 4 * HEADS)
    assert kept(LAYERS) - kept(1) == pytest.approx((LAYERS - 1) * per_block, rel=0.01)


@pytest.mark.parametrize("gated", [True, False], ids=["swiglu", "gelu"])
def test_backward_runs_every_second_matmul_again(gated):
    from torch.utils.flop_counter import FlopCounterMode

    def matmul_flops(per_op: bool) -> tuple[int, int]:
        torch.manual_seed(0)
        model, x = Stack(gated, per_op), _inputs().float().detach().requires_grad_()
        with FlopCounterMode(display=False) as forward:
            out = model(x)
        with FlopCounterMode(display=False) as backward:
            out.square().mean().backward()
        mm = torch.ops.aten.mm
        return forward.get_flop_counts()["Global"][mm], backward.get_flop_counts()["Global"][mm]

    forward, plain = matmul_flops(per_op=False)
    again = matmul_flops(per_op=True)[1] - plain
    assert again / forward == pytest.approx(recomputed_matmul_share(_workload(gated).shape))
    assert 0.1 < again / forward < 0.5  # not none of them, nor all

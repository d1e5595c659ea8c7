"""ZeRO-1 beside tensor or pipeline parallelism: Megatron-Core's distributed optimizer, in AdamW.

Each data-parallel rank keeps AdamW's state for 1/dp of its (TP- and PP-local) parameters. The
parameters are flattened, in order, into buckets of about BUCKET elements (a larger tensor is a
bucket of its own), each padded to a multiple of dp and cut into dp equal slices; rank r owns
slice r of every bucket. A step:

* gradients accumulate, over the micro-batches, into one fp32 buffer per bucket (each parameter's
  gradient is added there as soon as autograd has it, and dropped: Megatron's grad buffer, fp32
  as its grad_reduce_in_fp32), which is reduce-scattered so each rank receives its averaged slice;
* the slices are clipped with the norm over every slice of the whole model;
* AdamW steps this rank's slices of the weights, and the updated weights are all-gathered.

That is one all-reduce's bytes for the gradients and one all-gather of the weights, with AdamW's
state 1/dp the size (what `recommend` models for ZeRO-1, comms.py and memory.py). Under bf16 the
weights themselves are bf16 (the model is cast once, torch_parallel) and each rank keeps the fp32
master of its slices beside AdamW's moments, as Megatron's distributed optimizer does: 2 + 4 bytes
per parameter for weights and gradients, 12/dp for the optimizer. Under fp32 AdamW steps views
into the weights' own storage, and no master copy is kept.

Checkpoints hold ordinary AdamW state under the whole model's names (``standin``/``absorb``; the
fp32 master rides along as a third tensor of each parameter's state), so a checkpoint written
under ZeRO-1 resumes under any layout, and any layout's resumes under it. Under plain DDP
``--zero1`` is torch's ZeroRedundancyOptimizer instead (torch_parallel): DDP has all-reduced the
gradients.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

import torch_dist

BUCKET = 1 << 24  # elements: 64 MB of fp32 per transient buffer
# torch 2.13 renamed the flat collectives (the old names warn on every call); the images' older
# torch has only the old ones
_all_gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_reduce_scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


@dataclass(frozen=True)
class _Piece:
    """Part of one parameter inside this rank's slice: elements [start, stop) of it, flattened,
    at ``at`` in the slice."""

    param: int  # index into ShardedAdamW.params
    start: int
    stop: int
    at: int


@dataclass(frozen=True)
class _Bucket:
    members: tuple[int, ...]  # indices into ShardedAdamW.params, in order
    sizes: tuple[int, ...]  # their numbers of elements
    slice_len: int  # the padded size / dp
    mine: tuple[_Piece, ...]  # what this rank's slice covers

    def unpack(self, whole: torch.Tensor) -> Iterator[tuple[int, torch.Tensor]]:
        """(parameter index, its elements) from a whole flat buffer."""
        offset = 0
        for index, size in zip(self.members, self.sizes, strict=True):
            yield index, whole[offset : offset + size]
            offset += size


class ShardedAdamW(torch.optim.AdamW):
    """AdamW over this rank's slices; ``params`` are the model's (bf16 or fp32)."""

    def __init__(
        self,
        params: Iterable[nn.Parameter],
        dp_group: Any,
        tp_group: Any = None,
        pp_group: Any = None,
        **adamw: Any,
    ) -> None:
        self.params = [p for p in params if p.requires_grad]
        self.dp_group, self.tp_group, self.pp_group = dp_group, tp_group, pp_group
        self.dp = dist.get_world_size(dp_group)
        self.dp_rank = dist.get_rank(dp_group)
        self.locals = [_flat_local(p) for p in self.params]
        self.device = self.locals[0].device
        self.buckets = _buckets([t.numel() for t in self.locals], self.dp, self.dp_rank)
        self.pieces = [piece for bucket in self.buckets for piece in bucket.mine]
        # A slice's share of the norm is summed over the TP group where its parameter is split
        # there, counted once where every TP rank holds the same values (norms, embeddings).
        self.tp_split = [_split_over_mesh(p) for p in self.params]
        self.grad_buffers = [
            torch.zeros(b.slice_len * self.dp, device=self.device) for b in self.buckets
        ]
        # each parameter's place in its bucket's buffer, in parameter order
        self.grad_views = [
            part
            for bucket, buffer in zip(self.buckets, self.grad_buffers, strict=True)
            for _, part in bucket.unpack(buffer)
        ]
        for index, param in enumerate(self.params):
            param.register_post_accumulate_grad_hook(self._accumulate_hook(index))
        self.has_master = self.locals[0].dtype != torch.float32
        # fp32 weights are their own master: AdamW steps views into their storage
        slices = [self.locals[p.param][p.start : p.stop] for p in self.pieces]
        self.masters = [s.float().clone() for s in slices] if self.has_master else slices
        self.adamw = adamw
        super().__init__(self.masters, **adamw)

    def _accumulate_hook(self, index: int) -> Any:
        def add(param: torch.Tensor) -> None:
            grad = param.grad
            if grad is not None:
                self.grad_views[index].add_(torch_dist.local_tensor(grad).reshape(-1))
                param.grad = None  # the fp32 buffer holds it now

        return add

    def zero_grad(self, set_to_none: bool = True) -> None:
        for buffer in self.grad_buffers:
            buffer.zero_()
        super().zero_grad(set_to_none=True)

    def reduce_gradients(self) -> None:
        """Reduce-scatter each bucket's gradients, averaged, into the slices' ``.grad``."""
        masters = iter(self.masters)
        for bucket, buffer in zip(self.buckets, self.grad_buffers, strict=True):
            mine = torch.empty(bucket.slice_len, device=self.device)
            _reduce_scatter(mine, buffer, group=self.dp_group)
            mine.div_(self.dp)
            for piece in bucket.mine:
                next(masters).grad = mine[piece.at : piece.at + piece.stop - piece.start]

    def clip_(self, max_norm: float) -> torch.Tensor:
        """Scale the slices' gradients as clip_grad_norm_ over the whole model would."""
        squares = torch.zeros(2, dtype=torch.float32, device=self.device)  # TP-split, replicated
        for piece, master in zip(self.pieces, self.masters, strict=True):
            if master.grad is not None:
                squares[0 if self.tp_split[piece.param] else 1] += master.grad.square().sum()
        dist.all_reduce(squares, group=self.dp_group)
        if self.tp_group is not None:
            split = squares[:1].clone()
            dist.all_reduce(split, group=self.tp_group)
            squares[0] = split[0]
        total_sq = squares.sum().reshape(1)
        if self.pp_group is not None:
            dist.all_reduce(total_sq, group=self.pp_group)
        total = total_sq.sqrt()[0]
        coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)  # as clip_grads_with_norm_ does
        torch._foreach_mul_([m.grad for m in self.masters if m.grad is not None], coef)
        return total

    @torch.no_grad()
    def step(self, closure: Any = None) -> Any:
        """Update this rank's slices, then all-gather every bucket's updated weights."""
        loss = super().step(closure)
        masters = iter(self.masters)
        for bucket in self.buckets:
            whole = self._all_gather(bucket, masters, self.locals[0].dtype)
            for index, part in bucket.unpack(whole):
                self.locals[index].copy_(part)
        return loss

    def _all_gather(
        self, bucket: _Bucket, slices: Iterator[torch.Tensor], dtype: torch.dtype
    ) -> torch.Tensor:
        """The bucket's flat buffer, in ``dtype``, from every rank's slice (this rank's: the next
        of ``slices``, one per piece)."""
        mine = torch.zeros(bucket.slice_len, dtype=dtype, device=self.device)
        for piece in bucket.mine:
            mine[piece.at : piece.at + piece.stop - piece.start].copy_(next(slices))
        whole = torch.empty(bucket.slice_len * self.dp, dtype=dtype, device=self.device)
        _all_gather(whole, mine, group=self.dp_group)
        return whole

    # --- checkpoints: ordinary AdamW state, whole per parameter ---------------------------------

    @property
    def _saved(self) -> tuple[str, ...]:
        return ("exp_avg", "exp_avg_sq", *(("master",) if self.has_master else ()))

    def standin(self) -> torch.optim.AdamW:
        """A plain AdamW over the model's parameters holding this optimizer's state, gathered
        whole (what torch.distributed.checkpoint saves for any layout). Before the first step its
        moments are zeros: the state a checkpoint is loaded into must name every tensor, the
        master included, or DCP leaves it out."""
        plain = torch.optim.AdamW(self.params, **self.adamw)
        first = next(iter(self.state.values()), None)
        step = first["step"] if first else torch.tensor(0.0)
        for param in self.params:
            plain.state[param]["step"] = step.clone()
        for name in self._saved:
            slices = (self._slice_state(master, name) for master in self.masters)
            for bucket in self.buckets:
                whole = self._all_gather(bucket, slices, torch.float32)
                for index, part in bucket.unpack(whole):
                    param = self.params[index]
                    local = part.clone().view(torch_dist.local_tensor(param.detach()).shape)
                    plain.state[param][name] = _like_param(local, param)
        return plain

    def _slice_state(self, master: torch.Tensor, name: str) -> torch.Tensor:
        if name == "master":
            return master
        return self.state[master][name] if master in self.state else torch.zeros_like(master)

    def absorb(self, plain: torch.optim.AdamW) -> None:
        """Take this rank's slices of a standin's state (after a checkpoint loaded into its
        tensors in place: AdamW's load_state_dict would cast them to the weights' bf16); the
        master from the checkpoint where it has one, else from the weights."""
        for piece, master in zip(self.pieces, self.masters, strict=True):
            loaded = plain.state[self.params[piece.param]]
            cut = {
                name: torch_dist.local_tensor(tensor).reshape(-1)[piece.start : piece.stop].float()
                for name, tensor in loaded.items()
                if name != "step"
            }
            self.state[master] = {
                "step": loaded["step"].clone(),
                "exp_avg": cut["exp_avg"].clone(),
                "exp_avg_sq": cut["exp_avg_sq"].clone(),
            }
            if self.has_master:
                weights = self.locals[piece.param][piece.start : piece.stop]
                master.copy_(cut.get("master", weights.float()))


def _buckets(sizes: list[int], dp: int, rank: int) -> list[_Bucket]:
    """Consecutive parameters in buckets of at most BUCKET elements (or one larger parameter),
    each cut into dp equal slices (the last padded); what slice ``rank`` covers."""
    groups: list[list[int]] = []
    total = 0
    for index, size in enumerate(sizes):
        if not groups or total + size > BUCKET:
            groups.append([])
            total = 0
        groups[-1].append(index)
        total += size
    buckets = []
    for members in groups:
        numel = sum(sizes[i] for i in members)
        slice_len = -(-numel // dp)
        lo, hi = rank * slice_len, min((rank + 1) * slice_len, numel)
        mine, offset = [], 0
        for index in members:
            start, stop = max(lo, offset), min(hi, offset + sizes[index])
            if start < stop:
                mine.append(_Piece(index, start - offset, stop - offset, start - lo))
            offset += sizes[index]
        member_sizes = tuple(sizes[i] for i in members)
        buckets.append(_Bucket(tuple(members), member_sizes, slice_len, tuple(mine)))
    return buckets


def _flat_local(param: nn.Parameter) -> torch.Tensor:
    """The parameter's (TP-local) storage, flattened: writing it writes the weight."""
    local = torch_dist.local_tensor(param.detach())
    if not local.is_contiguous():
        raise RuntimeError("ZeRO-1's slices need contiguous parameters")
    return local.view(-1)


def _split_over_mesh(param: nn.Parameter) -> bool:
    from torch.distributed.tensor import DTensor

    return isinstance(param, DTensor) and any(p.is_shard() for p in param.placements)


def _like_param(local: torch.Tensor, param: nn.Parameter) -> torch.Tensor:
    """``local`` as the parameter is: a DTensor on its mesh and placements where it is one."""
    from torch.distributed.tensor import DTensor

    if not isinstance(param, DTensor):
        return local
    return DTensor.from_local(local, param.device_mesh, param.placements, run_check=False)

"""The two models the PyTorch entry point trains: a token MLP and a small GPT-style decoder.

Both map token ids ``(batch, seq)`` to logits ``(batch, seq, vocab)`` so the data, loss and
checkpoint code never need to know which one is running. Defaults are tiny so CPU tests are fast;
real runs scale them with ``--n_layer --n_head --n_embd --seq_len --vocab_size``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

MODEL_NAMES = ("mlp", "gpt")


@dataclass(frozen=True)
class ModelConfig:
    """Shape of the model; shared by both architectures so one set of flags drives either."""

    name: str = "gpt"
    vocab_size: int = 256
    seq_len: int = 64
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 64
    dropout: float = 0.0
    activation_checkpointing: bool = False


class TokenMLP(nn.Module):
    """Per-position MLP over token embeddings: a bigram model, the cheapest thing that learns."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.body = nn.Sequential(
            nn.Linear(cfg.n_embd, 4 * cfg.n_embd),
            nn.GELU(),
            nn.Dropout(cfg.dropout),
            nn.Linear(4 * cfg.n_embd, cfg.n_embd),
        )
        self.head = nn.Linear(cfg.n_embd, cfg.vocab_size)
        self.activation_checkpointing = cfg.activation_checkpointing

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.embed(idx)
        x = x + _maybe_checkpoint(self.body, x, self.activation_checkpointing and self.training)
        return self.head(x)


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.head_dim = cfg.n_embd // cfg.n_head
        # Separate q, k and v so tensor parallelism can split each by heads (column-wise).
        # No bias: softmax ignores a key bias, so its gradient is pure rounding noise that Adam
        # would amplify into weights that differ between otherwise identical runs.
        self.q = nn.Linear(cfg.n_embd, cfg.n_embd, bias=False)
        self.k = nn.Linear(cfg.n_embd, cfg.n_embd, bias=False)
        self.v = nn.Linear(cfg.n_embd, cfg.n_embd, bias=False)
        self.proj = nn.Linear(cfg.n_embd, cfg.n_embd)
        self.dropout = cfg.dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, _ = x.shape
        # (B, T, C) -> (B, heads, T, C/heads), the layout scaled_dot_product_attention expects;
        # under TP each rank holds only its heads, hence -1.
        q, k, v = (
            lin(x).view(batch, seq, -1, self.head_dim).transpose(1, 2)
            for lin in (self.q, self.k, self.v)
        )
        drop = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=drop, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(batch, seq, -1))


class Block(nn.Module):
    """One pre-norm transformer block; also the unit FSDP shards and checkpointing recomputes."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.n_embd)
        self.attn = CausalSelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.n_embd, 4 * cfg.n_embd),
            nn.GELU(),
            nn.Linear(4 * cfg.n_embd, cfg.n_embd),
            nn.Dropout(cfg.dropout),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    """A small GPT-2-style decoder (learned positions, pre-norm, untied head).

    A pipeline stage is a GPT holding only some of these parts (see ``part``): the parts it
    lacks are None, and state-dict names stay those of the whole model.
    """

    tok_emb: nn.Embedding | None
    pos_emb: nn.Embedding | None
    ln_f: nn.LayerNorm | None
    head: nn.Linear | None

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos_emb = nn.Embedding(cfg.seq_len, cfg.n_embd)
        self.drop = nn.Dropout(cfg.dropout)
        # A dict keyed "0", "1", ...: the same names as a list, and they survive a stage dropping
        # the blocks it does not run.
        self.blocks = nn.ModuleDict({str(i): Block(cfg) for i in range(cfg.n_layer)})
        self.ln_f = nn.LayerNorm(cfg.n_embd)
        # Untied from tok_emb: tied weights complicate FSDP sharding and DCP for no gain here.
        self.head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.tok_emb is not None and self.pos_emb is not None:
            positions = torch.arange(x.shape[1], device=x.device)
            x = self.drop(self.tok_emb(x) + self.pos_emb(positions))
        recompute = self.cfg.activation_checkpointing and self.training
        for block in self.blocks.values():
            x = _maybe_checkpoint(block, x, recompute)
        if self.ln_f is not None and self.head is not None:
            x = self.head(self.ln_f(x))
        return x

    def part(self, block_ids: Sequence[int], first: bool, last: bool) -> GPT:
        """A GPT sharing this one's modules, holding only the named blocks, the embeddings when
        ``first`` and the final norm and head when ``last``."""
        view = GPT.__new__(GPT)
        nn.Module.__init__(view)
        view.cfg = self.cfg
        view.tok_emb = self.tok_emb if first else None
        view.pos_emb = self.pos_emb if first else None
        view.drop = self.drop
        view.blocks = nn.ModuleDict({str(i): self.blocks[str(i)] for i in block_ids})
        view.ln_f = self.ln_f if last else None
        view.head = self.head if last else None
        return view


def _maybe_checkpoint(module: nn.Module, x: torch.Tensor, recompute: bool) -> torch.Tensor:
    # Non-reentrant checkpointing works under DDP and FSDP alike and restores the RNG state for
    # the recomputation, so dropout masks (and hence resumed runs) stay bit-identical.
    if recompute:
        out = checkpoint(module, x, use_reentrant=False)
        assert isinstance(out, torch.Tensor)
        return out
    result: torch.Tensor = module(x)
    return result


def shape_signature(cfg: ModelConfig) -> dict[str, object]:
    """The settings that fix the parameter shapes, which a checkpoint must match to load."""
    keys = ("name", "vocab_size", "seq_len", "n_layer", "n_head", "n_embd")
    return {key: getattr(cfg, key) for key in keys}


def build_model(cfg: ModelConfig) -> nn.Module:
    """Build the named model on the CPU; the caller seeds torch first so every rank agrees."""
    if cfg.name == "mlp":
        return TokenMLP(cfg)
    if cfg.name == "gpt":
        return GPT(cfg)
    raise ValueError(f"unknown model {cfg.name!r}")


def shard_units(model: nn.Module) -> list[nn.Module]:
    """The submodules FSDP wraps one by one (the transformer blocks), before the root."""
    return list(model.blocks.values()) if isinstance(model, GPT) else []


def num_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def flops_per_token(cfg: ModelConfig, n_params: int) -> float:
    """Training FLOPs per token: 6N for the matmuls plus 12·L·d·T for attention (PaLM, App. B)."""
    attention = 12 * cfg.n_layer * cfg.n_embd * cfg.seq_len if cfg.name == "gpt" else 0
    return 6.0 * n_params + attention

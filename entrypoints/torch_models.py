"""The two models the PyTorch entry point trains: a token MLP and a small GPT-style decoder.

Both map token ids ``(batch, seq)`` to logits ``(batch, seq, vocab)`` so the data, loss and
checkpoint code never need to know which one is running. Defaults are tiny so CPU tests are fast;
real runs scale them with ``--n_layer --n_head --n_embd --seq_len --vocab_size``.
"""

from __future__ import annotations

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
        self.n_head = cfg.n_head
        # No bias: softmax ignores a key bias, so its gradient is pure rounding noise that Adam
        # would amplify into weights that differ between otherwise identical runs.
        self.qkv = nn.Linear(cfg.n_embd, 3 * cfg.n_embd, bias=False)
        self.proj = nn.Linear(cfg.n_embd, cfg.n_embd)
        self.dropout = cfg.dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=2)
        # (B, T, C) -> (B, heads, T, C/heads), the layout scaled_dot_product_attention expects.
        q, k, v = (t.view(batch, seq, self.n_head, -1).transpose(1, 2) for t in (q, k, v))
        drop = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=drop, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(batch, seq, width))


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
    """A small GPT-2-style decoder (learned positions, pre-norm, untied head)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos_emb = nn.Embedding(cfg.seq_len, cfg.n_embd)
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.n_embd)
        # Untied from tok_emb: tied weights complicate FSDP sharding and DCP for no gain here.
        self.head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(idx.shape[1], device=idx.device)
        x = self.drop(self.tok_emb(idx) + self.pos_emb(positions))
        recompute = self.cfg.activation_checkpointing and self.training
        for block in self.blocks:
            x = _maybe_checkpoint(block, x, recompute)
        return self.head(self.ln_f(x))


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
    return list(model.blocks) if isinstance(model, GPT) else []


def num_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def flops_per_token(cfg: ModelConfig, n_params: int) -> float:
    """Training FLOPs per token: 6N for the matmuls plus 12·L·d·T for attention (PaLM, App. B)."""
    attention = 12 * cfg.n_layer * cfg.n_embd * cfg.seq_len if cfg.name == "gpt" else 0
    return 6.0 * n_params + attention

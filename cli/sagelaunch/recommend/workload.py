"""What is being trained: parameter count, transformer shape, sequence, batch and numerics."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from sagelaunch.errors import UsageError

Precision = Literal["bf16", "fp32", "fp8"]
Optimizer = Literal["adamw", "adam", "sgd"]

# Llama-family tokenizers; the logits term of the activations scales with it.
DEFAULT_VOCAB = 32_000
HEAD_DIM = 128  # heads = hidden / 128 when only the width is known (GPT-3, Llama)

_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}
_PARAMS = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)(?:e(\d+))?([kmbgt]?)$")

# (parameters, layers, hidden, heads) of published decoder-only shapes: GPT-3 table 2.1
# (125M ... 175B), Llama 2/3 (7B, 13B, 70B, 405B). Used when --layers/--hidden are not given.
GPT_SHAPES: tuple[tuple[float, int, int, int], ...] = (
    (125e6, 12, 768, 12),
    (350e6, 24, 1024, 16),
    (760e6, 24, 1536, 16),
    (1.3e9, 24, 2048, 16),
    (2.7e9, 32, 2560, 20),
    (6.7e9, 32, 4096, 32),
    (13e9, 40, 5120, 40),
    (33e9, 60, 6656, 52),
    (70e9, 80, 8192, 64),
    (175e9, 96, 12288, 96),
    (405e9, 126, 16384, 128),
)


def parse_params(text: str) -> int:
    """A parameter count from 125M, 1.3B, 7B, 70B, 7e9 or 7000000000 (case-insensitive)."""
    match = _PARAMS.match(text.strip().lower().replace("_", ""))
    if not match:
        raise UsageError(
            f"--params {text!r} is not a parameter count",
            hint="write it as 125M, 1.3B, 7B, 70B, 7e9 or 7000000000",
        )
    mantissa, exponent, suffix = match.groups()
    value = float(mantissa) * 10 ** int(exponent or 0) * _SUFFIX[suffix]
    if not 1e6 <= value <= 1e13:
        raise UsageError(
            f"--params {text!r} is {value:.3g} parameters; expected between 1M and 10T",
            hint="use a suffix: 125M, 7B, 70B",
        )
    return round(value)


def format_params(params: float) -> str:
    """7000000000 -> "7B", 1300000000 -> "1.3B", 125000000 -> "125M"."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if params >= scale:
            return f"{params / scale:.3g}{suffix}"
    return str(round(params))


@dataclass(frozen=True)
class Linear:
    """One matmul of a block: its input and output widths; a row-parallel one (the attention
    projection, the MLP's down projection) has its output whole on every TP rank (partial sums,
    before the all-reduce or reduce-scatter), a column-parallel one 1/TP of it."""

    inputs: int
    outputs: int
    row_parallel: bool = False


@dataclass(frozen=True)
class Shape:
    """Transformer depth and width; the activation model needs them, the states do not."""

    layers: int
    hidden: int
    heads: int
    estimated: bool  # True when taken from GPT_SHAPES rather than the command line
    kv_heads: int | None = None  # grouped-query attention (None: as many as heads)
    ffn_hidden: int | None = None  # the MLP's inner width (None: 4 * hidden)
    gated_mlp: bool = False  # SwiGLU: three matrices (gate, up, down) instead of two
    tied_embeddings: bool = False  # the head reuses the token embedding
    learned_positions: bool = True  # a position embedding table (GPT); False: RoPE, ALiBi

    @property
    def kv_width(self) -> int:
        """Width of k (and of v): hidden / heads per kv head."""
        return self.hidden * (self.kv_heads or self.heads) // self.heads

    @property
    def ffn(self) -> int:
        return self.ffn_hidden or 4 * self.hidden

    def replicated_kv_params(self, tensor_parallel: int) -> int:
        """The weights the key/value replicas add to one block (`kv_replicas` copies of k and v
        where there was one)."""
        return 2 * self.hidden * self.kv_width * (self.kv_replicas(tensor_parallel) - 1)

    def kv_replicas(self, tensor_parallel: int) -> int:
        """Copies of each key/value head that give every TP rank whole ones, where TP exceeds
        (or does not divide) the key/value heads: neuronx-distributed's kv_size_multiplier
        (GQAQKVColumnParallelLinear: the heads times it divisible by the TP size, which it must
        divide; its Llama 3 70B tutorial runs 8 heads on TP 32 with --kv_replicator 4)."""
        kv = self.kv_heads or self.heads
        return tensor_parallel // math.gcd(kv, tensor_parallel)

    def linears(self) -> list[Linear]:
        """The block's linears in the order its forward calls them (Llama's: q, k, v, the
        projection, then the MLP's gate, up and down, or up and down without a gate)."""
        h, kv, ffn = self.hidden, self.kv_width, self.ffn
        attention = [Linear(h, h), Linear(h, kv), Linear(h, kv), Linear(h, h, row_parallel=True)]
        gate = [Linear(h, ffn)] if self.gated_mlp else []
        return [*attention, *gate, Linear(h, ffn), Linear(ffn, h, row_parallel=True)]

    @property
    def layer_params(self) -> int:
        """Weights of one block: q and the projection (h^2 each), k and v (h x kv width each),
        the MLP (2 or, gated, 3 matrices of h x ffn); 12h^2 for GPT."""
        attention = 2 * self.hidden**2 + 2 * self.hidden * self.kv_width
        return attention + (3 if self.gated_mlp else 2) * self.hidden * self.ffn


def estimate_shape(params: float, layers: int | None = None, hidden: int | None = None) -> Shape:
    """Fill in what was not given: from the nearest published shape, or from params ~ 12*L*h^2
    (each block holds 4h^2 attention + 8h^2 MLP weights) when one of the two is given."""
    if layers and hidden:
        return Shape(layers, hidden, _heads(hidden), estimated=False)
    if hidden:
        return Shape(max(1, round(params / (12 * hidden**2))), hidden, _heads(hidden), False)
    if layers:
        width = math.sqrt(params / (12 * layers))
        hidden = max(HEAD_DIM, round(width / HEAD_DIM) * HEAD_DIM)
        return Shape(layers, hidden, _heads(hidden), estimated=False)
    nearest = min(GPT_SHAPES, key=lambda shape: abs(math.log(params / shape[0])))
    _, layers, hidden, heads = nearest
    return Shape(layers, hidden, heads, estimated=True)


def _heads(hidden: int) -> int:
    return max(1, hidden // HEAD_DIM)


@dataclass(frozen=True)
class Workload:
    """One training run as the memory model sees it (all per micro-batch on one rank)."""

    params: int
    shape: Shape
    seq_len: int = 2048
    micro_batch: int = 1
    precision: Precision = "bf16"
    optimizer: Optimizer = "adamw"
    activation_checkpointing: bool = False
    activation_offload: bool = False  # saved activations in host memory (save_on_cpu)
    # the loss keeps the bf16 logits and a log-sum-exp per token (flash-attn's cross-entropy,
    # llm-foundry's default) rather than the fp32 log-softmax of PyTorch's cross_entropy
    fused_loss: bool = False
    # the loss is PyTorch's cross_entropy over fp32 logits, run eagerly (train_pytorch.py's
    # loss_fn, torch.compile or not; torchtitan's until it compiled the loss in 2025): its
    # backward holds two fp32 gradients the size of the logits at once (memory.loss_backward_bytes)
    eager_loss: bool = True
    vocab: int = DEFAULT_VOCAB
    zero_stage: int = 0  # DeepSpeed ZeRO stage to plan for (0: the layout ladder; zero.py)
    zero_offload: str = "none"  # none | optimizer | all
    # what the step time needs beyond memory
    grad_accum: int = 1  # micro-batches per optimizer step (gradient accumulation)
    # sequences per optimizer step over every data-parallel rank, held whatever the layout
    # (--global-batch): each layout then runs global_batch / (micro_batch x its data-parallel
    # ranks) micro-batches, rounded up, in place of grad_accum
    global_batch: int | None = None
    selective_checkpointing: bool = False  # recompute the cheap ops only (with checkpointing)
    # which ops selective checkpointing keeps: "activations" (every matmul's output, the
    # activation functions recomputed) or "ops" (torchtitan's per-op policy, selective_ac_option
    # 'op': the attention kernel's output and every other matmul's, everything else recomputed:
    # op_checkpointing below)
    selective_policy: str = "activations"
    # the kernels around the matmuls: "eager" (train_pytorch.py's GPT in eager PyTorch), "fused"
    # (a framework's eager step with fused norm, attention and loss kernels, and Transformer
    # Engine's linears under fp8: llm-foundry), "megatron" (Megatron-Core with Transformer
    # Engine: NeMo, Megatron-Bridge) or "compiled" (torch.compile, XLA on Neuron)
    kernels: str = "eager"
    # the attention kernel: "flash" (FlashAttention-2, what SDPA and flash-attn run), "cudnn"
    # (cuDNN's fused attention, which Transformer Engine prefers on Hopper: steptime) or
    # "unfused" (Megatron's CoreAttention without a flash kernel: a baddbmm over the whole s x s,
    # scale-mask-softmax, dropout and a bmm, the scores through memory; --eager-attention)
    attention: str = "flash"
    # unfused attention with dropout on its probabilities (GPT's attention_dropout > 0): the
    # dropout's mask and output through memory, and stored, besides the probabilities
    attention_dropout: bool = False

    @property
    def layer_params(self) -> int:
        """Weights of one transformer block (12h^2 for GPT), the unit FSDP gathers at a time."""
        return self.shape.layer_params

    @property
    def head_params(self) -> int:
        """The output projection's own weights (none when tied to the embedding)."""
        return 0 if self.shape.tied_embeddings else self.vocab * self.shape.hidden

    @property
    def token_embedding_params(self) -> int:
        """The token embedding's table (the head's too, when tied)."""
        return self.vocab * self.shape.hidden

    @property
    def embedding_params(self) -> int:
        """Token and position embeddings and the untied head: what TP does not split as it splits
        the blocks."""
        positions = self.seq_len if self.shape.learned_positions else 0
        return (self.vocab + positions) * self.shape.hidden + self.head_params

    @property
    def fused_attention(self) -> bool:
        """The attention scores never reach memory (SDPA, FlashAttention, cuDNN)."""
        return self.attention != "unfused"

    @property
    def full_checkpointing(self) -> bool:
        return self.activation_checkpointing and not self.selective_checkpointing

    @property
    def checkpoints_selectively(self) -> bool:
        """Selective checkpointing in effect (it refines activation checkpointing)."""
        return self.activation_checkpointing and self.selective_checkpointing

    @property
    def op_checkpointing(self) -> bool:
        """torchtitan's per-op selective checkpointing (``selective_policy="ops"``)."""
        return self.checkpoints_selectively and self.selective_policy == "ops"

    @property
    def block_params(self) -> float:
        """The transformer blocks' share of `params`. A shape guessed from the parameter count
        alone may put most of it in the embeddings; the blocks keep at least half then. A known
        shape is taken as it is: a small model with a large vocabulary is mostly embeddings."""
        blocks = self.params - self.embedding_params
        return max(blocks, 0.5 * self.params) if self.shape.estimated else max(blocks, 0)


# --- published shapes and Hugging Face configs ---------------------------------------------------


@dataclass(frozen=True)
class Model:
    """A model's shape as recommend needs it, and its parameter count computed from it."""

    name: str
    shape: Shape
    vocab: int
    # dropout on the attention's probabilities (a config's attention_dropout or attn_pdrop > 0):
    # what unfused attention then keeps and moves besides them
    attention_dropout: bool = False

    @property
    def params(self) -> int:
        """Blocks, the token embedding, the head unless tied, and the norms (2 per block + 1)."""
        shape, h = self.shape, self.shape.hidden
        head = 0 if shape.tied_embeddings else self.vocab * h
        return shape.layers * (shape.layer_params + 2 * h) + self.vocab * h + head + h


def model_names() -> list[str]:
    from sagelaunch.catalog import facts

    return sorted(facts.load("models")["models"])


def named_model(name: str) -> Model:
    """One of data/models.json (recommend --model)."""
    from sagelaunch.catalog import facts

    known = facts.load("models")["models"]
    entry = known.get(name.lower())
    if entry is None:
        raise UsageError(
            f"--model {name!r} is not a model recommend knows", hint=", ".join(sorted(known))
        )
    return _model(name.lower(), entry)


def _model(name: str, m: dict) -> Model:
    shape = Shape(
        m["layers"],
        m["hidden"],
        m["heads"],
        estimated=False,
        kv_heads=m["kv_heads"],
        ffn_hidden=m["ffn"],
        gated_mlp=m["gated_mlp"],
        tied_embeddings=m["tied"],
        learned_positions=m.get("learned_positions", False),
    )
    return Model(name, shape, m["vocab"], bool(m.get("attention_dropout")))


_GATED_ACTIVATIONS = {"silu", "swiglu", "swish", "geglu"}


def config_model(config: dict, name: str = "config.json") -> Model:
    """A Hugging Face config.json read as data: Llama/Mistral keys (num_hidden_layers,
    hidden_size, num_attention_heads, num_key_value_heads, intermediate_size, vocab_size,
    tie_word_embeddings, hidden_act, attention_dropout) or GPT-2's (n_layer, n_embd, n_head,
    n_inner, attn_pdrop)."""

    def pick(*keys: str) -> object:
        for key in keys:
            if config.get(key) is not None:
                return config[key]
        return None

    layers, hidden = pick("num_hidden_layers", "n_layer"), pick("hidden_size", "n_embd", "d_model")
    heads, vocab = pick("num_attention_heads", "n_head"), pick("vocab_size")
    if not all(isinstance(v, int) and v > 0 for v in (layers, hidden, heads, vocab)):
        raise UsageError(
            f"{name} does not give the layers, hidden size, heads and vocabulary size",
            hint="expected a Hugging Face config.json (num_hidden_layers, hidden_size, "
            "num_attention_heads, vocab_size)",
        )
    assert isinstance(layers, int) and isinstance(hidden, int)
    assert isinstance(heads, int) and isinstance(vocab, int)
    act = str(pick("hidden_act", "activation_function") or "gelu").lower()
    gpt2 = config.get("model_type") == "gpt2" or "n_embd" in config
    kv = pick("num_key_value_heads")
    ffn = pick("intermediate_size", "n_inner")
    dropout = pick("attention_dropout", "attn_pdrop")
    entry = {
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv if isinstance(kv, int) else heads,
        "ffn": ffn if isinstance(ffn, int) else 4 * hidden,
        "vocab": vocab,
        "gated_mlp": act in _GATED_ACTIVATIONS,
        "tied": bool(pick("tie_word_embeddings") if "tie_word_embeddings" in config else gpt2),
        "learned_positions": gpt2,
        "attention_dropout": isinstance(dropout, int | float) and dropout > 0,
    }
    return _model(str(config.get("_name_or_path") or name), entry)

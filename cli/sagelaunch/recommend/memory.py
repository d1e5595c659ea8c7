"""Memory per accelerator (per rank) for one layout: weights, gradients, optimizer state,
activations and framework overhead, in GB (10^9 bytes).

Written for the bundled train_pytorch.py GPT (what `recommend --emit-config` runs) and held
against PyTorch's own memory trackers on fake tensors, category by category, for every layout
(tests/recommend/test_oracle.py; `make bench` prints the table). DeepSpeed ZeRO keeps
DeepSpeed's own accounting (zero.py).

* Model states, bytes per parameter, as PyTorch mixed precision keeps them: fp32 parameters,
  fp32 gradients and the optimizer's fp32 state, with bf16 only for compute (autocast, or
  FSDP2's MixedPrecisionPolicy). The total equals the ZeRO paper's 16 bytes for Adam
  (Rajbhandari et al. 2020, §3.1); only the split between categories differs. On Neuron
  (neuronx-distributed) before release 2.20 the split is the paper's: bf16 weights and gradients
  (2 + 2), the fp32 master with the optimizer state (12, or 8 with SGD). Since 2.20 its ZeRO-1
  runs Standard Mixed Precision by default, gradients accumulating in an fp32 buffer and reduced
  in fp32 (2 + 4 + 12/dp; aws-neuron-sdk's standard_mixed_precision.rst, neuronx-distributed's
  trainer: use_fp32_grad_acc gives use_grad_acc_hook and higher_cc_precision). So is the entry
  point's ``--zero1`` beside TP or PP under bf16 (Megatron's distributed optimizer,
  ``distributed_optimizer``). Neuron's full BF16 with stochastic rounding
  (``Sharding.stochastic_rounding``) keeps no master and bf16 moments (2 + 2 + 4).

  ========  =========  =======  ========  ===============
  precision optimizer  weights  grads     optimizer state
  ========  =========  =======  ========  ===============
  bf16/fp8  adam(w)    4        4         8: m, v
  bf16/fp8  sgd        4        4         4: momentum
  fp32      adam(w)    4        4         8
  fp32      sgd        4        4         4
  ========  =========  =======  ========  ===============

* Activations per transformer block and token, in units of the hidden size h, as the entry
  point's block saves them for backward (its q, k and v are separate linears, so autocast casts
  their input three times): the two norms' inputs (the residual stream: fp32 under autocast over
  fp32 weights, bf16 when FSDP hands out bf16 weights), bf16 copies of the inputs of q, k, v and
  the MLP (8 under autocast; 4 with bf16 weights, where q, k and v share one), and, split
  by tensor parallelism t, SDPA's q, k, v and output (8), the
  projection's input (2), GELU's input and the second MLP linear's input (8 + 8): 26/t. fp32
  doubles the split part and the casts disappear (q, k and v share one saved input). Fused
  attention (SDPA) keeps a 4-byte log-sum-exp per head and token instead of the scores.
  Checkpointing keeps each block's input and recomputes one block at a time. The loss keeps the
  fp32 log-softmax of the logits, 4*s*b*vocab (the head is not split by TP); a fused loss
  kernel (flash-attn's cross-entropy, llm-foundry's default) keeps the bf16 logits and one fp32
  log-sum-exp per token instead, 2*s*b*vocab + 4*s*b. Under autocast
  without FSDP, autocast also caches a bf16 copy of every weight until the forward ends: 2 bytes
  per local parameter, counted with the activations since that is when it lives.
* FSDP2 shards each block and the root; at peak a rank holds its shards, the root's own
  parameters unsharded (the embeddings and head, in the compute dtype; FSDP2 does not reshard
  the root after forward) and one block gathered; the root's gradients stay unsharded (compute
  dtype) until its reduce-scatter ends the backward.
* Tensor parallelism splits the blocks' weights t ways and the token embedding by vocabulary;
  the position embeddings, norms and head stay whole, but for ``--loss_parallel``, which splits
  the head by vocabulary and with it the logits and the loss's transient.
* Sequence parallelism with TP (the entry point's ``--sequence_parallel``) runs the residual
  stream and the norms on sequence shards: the norms' inputs (and checkpointing's block inputs)
  are split t ways; each attention and MLP all-gathers its input, so the casts its linears save
  stay whole, as do the head and the loss. Megatron-LM and neuronx-distributed split the
  linears' saved inputs and the logits too (``Sharding.sequence_parallel_gathers`` False).
* Pipeline parallelism (p stages, 1F1B): each rank holds 1/p of the blocks (the first stage the
  embeddings too); the first stage keeps up to p micro-batches in flight for its L/p blocks, so
  activations stay those of all L blocks for one micro-batch (Narayanan et al. 2021, §2.2).
  Where p does not divide L, the rank with the most blocks (`stage_share`) sets both.
  Under FSDP, torch.distributed.pipelining runs each micro-batch's backward without reshard or
  gradient sync, so the stage stays gathered and its gradients accumulate unsharded in fp32
  until one reduce after the last micro-batch.
* Activation offload (``save_on_cpu``) moves stored activations to host memory; one block's
  stay on the device while it computes.
* Framework overhead: CUDA context, NCCL buffers and cuBLAS workspaces (a fixed 1.5 GB) plus
  10% of everything else for allocator fragmentation and the transient buffers of backward
  (the trackers count those as "Temp"; they are not in the four categories above), and the
  largest of those transients on its own: an eager cross_entropy's backward, two fp32 gradients
  the size of the logits (``loss_backward_bytes``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sagelaunch.recommend.workload import Workload

GB = 1e9
FIXED_OVERHEAD_GB = 1.5
FRAGMENTATION = 0.10

# (weights, gradients, optimizer) bytes per parameter; see the module docstring.
_STATE_BYTES: dict[str, tuple[int, int, int]] = {"adam": (4, 4, 8), "sgd": (4, 4, 4)}
COMPUTE_BYTES = 2  # bf16: what FSDP gathers and autocast caches under mixed precision
# the frameworks built on Transformer Engine's modules and fused activations (Workload.kernels)
FRAMEWORK_KERNELS = ("fused", "megatron")
# fp32 logit-shard-sized buffers alive at once in the backward of torch's loss_parallel (its
# DTensor handlers decompose nll_loss's and log_softmax's backward into (zeros with the targets
# scattered + exp(x)) * grad, beside the cast back to the logits' bf16): 4.5, as MemTracker
# measures it on the entry point (tests/recommend's tp2-zero1-4 oracle cell) with this torch.
# torchtitan's 2024 rows, which report memory, fit the eager cross_entropy's 2 (docs/recommend.md).
LOSS_PARALLEL_BACKWARD = 4.5


# neuronx-distributed's mixed precision (ZeRO paper, §3.1): bf16 weights and gradients, the
# fp32 master copy with the optimizer state that ZeRO-1 shards
_BF16_STATE_BYTES: dict[str, tuple[int, int, int]] = {"adam": (2, 2, 12), "sgd": (2, 2, 8)}
# full BF16 with stochastic rounding (Sharding.stochastic_rounding): bf16 moments, no master
_SR_STATE_BYTES: dict[str, tuple[int, int, int]] = {"adam": (2, 2, 4), "sgd": (2, 2, 2)}


def _optimizer(workload: Workload) -> str:
    return "sgd" if workload.optimizer == "sgd" else "adam"


def state_bytes(workload: Workload, fp32_weights: bool = True) -> tuple[int, int, int]:
    """Bytes per parameter of weights, gradients and optimizer state, before sharding; with
    bf16 weights the fp32 master is in the optimizer state."""
    optimizer = _optimizer(workload)
    if fp32_weights or workload.precision == "fp32":
        return _STATE_BYTES[optimizer]
    return _BF16_STATE_BYTES[optimizer]


def _kept_bytes(workload: Workload, sharding: Sharding) -> tuple[int, int, int]:
    """`state_bytes` as `sharding` keeps the states: bf16 weights beside their fp32 master, an
    fp32 gradient buffer, or full BF16 with no master at all."""
    if sharding.stochastic_rounding:
        return _SR_STATE_BYTES[_optimizer(workload)]
    weight_b, grad_b, optim_b = state_bytes(workload, fp32_weights=not sharding.bf16_states)
    return weight_b, 4 if sharding.fp32_gradients else grad_b, optim_b


def compute_bytes(workload: Workload) -> int:
    """Bytes per element of the weights and activations the kernels see."""
    return 4 if workload.precision == "fp32" else COMPUTE_BYTES


@dataclass(frozen=True)
class Sharding:
    """How one rank's share of the model states is cut.

    ``tensor_parallel`` splits every weight matrix (and most activations) t ways; the ``*_over``
    degrees then split that share over data-parallel ranks: DDP 1/1/1, ZeRO-1 1/1/dp,
    FSDP/ZeRO-3 S/S/S (S the shard group).
    """

    tensor_parallel: int = 1
    weights_over: int = 1
    gradients_over: int = 1
    optimizer_over: int = 1
    pipeline_parallel: int = 1  # stages: each rank holds 1/p of the layers' states
    # Interleaved 1F1B: each rank runs this many model chunks (Megatron's virtual pipeline
    # stages, train_pytorch.py's --stages_per_rank), which divides the bubble by as much
    # (Narayanan et al. 2021, §2.2.2); 1: plain 1F1B.
    pipeline_interleave: int = 1
    # PyTorch eager AMP as train_pytorch.py runs it: fp32 weights under autocast (which caches
    # bf16 copies), TP over the blocks only. False on Neuron: XLA compiles the casts away and
    # neuronx-distributed splits the embeddings and head with the blocks.
    eager_autocast: bool = True
    # Megatron-style sequence parallelism with TP: the norms, residual stream and dropout (the
    # activations plain TP replicates on every rank) are split t ways too, and the head and loss
    # are vocabulary-parallel (torchtitan's loss_parallel, Megatron, neuronx-distributed).
    sequence_parallel: bool = False
    # With sequence_parallel, how far the split reaches. False (Megatron-LM, neuronx-distributed):
    # the linears keep their sequence-sharded inputs and all-gather them again in backward, and
    # the logits are vocabulary-parallel. True: train_pytorch.py's DTensor plan
    # (`--sequence_parallel`): the residual stream and the norms run on sequence shards, but each
    # attention and MLP all-gathers its input and its linears save that whole-sequence input, and
    # the head and the loss see the whole sequence (no loss_parallel).
    sequence_parallel_gathers: bool = False
    # With bf16 weights (eager_autocast False), gradients accumulate and reduce in an fp32
    # buffer rather than in bf16: Megatron-Core's DDP with grad_reduce_in_fp32 (Megatron-Bridge's
    # bf16_mixed and the fp8 recipes built on it), neuronx-distributed's ZeRO-1 since 2.20.
    # neuronx-distributed before 2.20 kept bf16 gradients.
    fp32_gradients: bool = False
    # bf16 weights beside the fp32 master in the optimizer state, with eager_autocast's whole
    # embeddings and head: train_pytorch.py's --zero1 beside TP or PP under bf16 (torch_zero1,
    # Megatron's distributed optimizer), which runs without autocast (``distributed_optimizer``)
    master_weights: bool = False
    # The head split by vocabulary across TP and the loss computed on those shards, with the
    # rest of train_pytorch.py's TP plan as it is (`--loss_parallel`: torch's loss_parallel)
    loss_parallel: bool = False
    # FSDP's MixedPrecision(reduce_dtype=torch.bfloat16): gradients reduce over the network in
    # bf16 (IBM's fms-fsdp bfSixteen policy) rather than fp32 (the entry point's and torchtitan's
    # reduce_dtype). Communication only: FSDP casts each reduced shard back to the fp32 of its
    # sharded weights.
    bf16_reduce: bool = False
    # Neuron's full BF16 with stochastic rounding (XLA_USE_BF16=1, on by default with it: the
    # Trn1 tables' "Autocast:BF16+SR", against "BF16+FP32Optimizer"): every floating-point tensor
    # bf16, the optimizer state too, no fp32 master (aws-neuron-sdk: archive/appnotes/
    # torch-neuronx/migration-from-xla-downcast-bf16.rst, "Full BF16 with stochastic rounding")
    stochastic_rounding: bool = False

    @property
    def gradient_reduce_bytes(self) -> int:
        """Bytes per gradient element on the wire: fp32, unless the gradients are bf16 and reduce
        as they are (bf16 weights without an fp32 gradient buffer: neuronx-distributed before 2.20,
        Megatron without grad_reduce_in_fp32; full BF16; or FSDP with a bf16 reduce_dtype)."""
        bf16_buffers = self.bf16_states and not self.fp32_gradients
        bf16 = self.bf16_reduce or self.stochastic_rounding or bf16_buffers
        return 2 if bf16 else 4

    @property
    def gathers_layers(self) -> bool:
        return self.weights_over > 1

    @property
    def bf16_states(self) -> bool:
        """The weights are bf16 and the optimizer keeps their fp32 master (ZeRO paper, §3.1)."""
        return self.master_weights or not self.eager_autocast

    @property
    def vocab_parallel(self) -> bool:
        """The head and the loss split the vocabulary by TP (Megatron-style sequence parallelism,
        torchtitan's and the entry point's loss_parallel); else they stay whole."""
        split = self.sequence_parallel and not self.sequence_parallel_gathers
        return self.tensor_parallel > 1 and (split or self.loss_parallel)


@dataclass(frozen=True)
class Breakdown:
    """GB per accelerator, by what holds it."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    overhead: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.overhead

    def as_json(self) -> dict[str, float]:
        parts = {
            "weights": self.weights,
            "gradients": self.gradients,
            "optimizer": self.optimizer,
            "activations": self.activations,
            "overhead": self.overhead,
            "total": self.total,
        }
        return {key: round(value, 2) for key, value in parts.items()}


def per_device(workload: Workload, sharding: Sharding) -> Breakdown:
    """What one rank holds at peak for this workload under this sharding."""
    weight_b, grad_b, optim_b = _kept_bytes(workload, sharding)
    local = local_params(workload, sharding)
    weights = local * weight_b / sharding.weights_over
    gradients = local * grad_b / sharding.gradients_over
    optimizer = local * optim_b / sharding.optimizer_over
    gathered = compute_bytes(workload)
    if sharding.gathers_layers and sharding.pipeline_parallel > 1:
        # FSDP under torch.distributed.pipelining: each micro-batch's backward runs without
        # resharding or reduce-scatter (the stage's backward_maybe_with_nosync), so the whole
        # stage stays gathered and its gradients accumulate unsharded, in fp32 (FSDP2's
        # reduce dtype), until the reduce after the last micro-batch
        weights += local * gathered
        gradients = local * 4
    elif sharding.gathers_layers:
        block, root = workload.layer_params / sharding.tensor_parallel, _root(workload, sharding)
        weights += (root + block) * gathered
        # the root's gradients stay unsharded until its reduce-scatter ends the backward, the
        # token embedding's whole (DTensor's embedding backward returns the table's gradient
        # replicated over TP)
        whole = root + workload.token_embedding_params * (1 - 1 / sharding.tensor_parallel)
        gradients += max(0.0, whole * (gathered - grad_b / sharding.weights_over))
    elif sharding.tensor_parallel > 1 and sharding.eager_autocast:
        # the token embedding's gradient arrives whole, in the weights' dtype, before the rank
        # keeps its rows (train_pytorch.py's hook): for a moment at the end of backward
        gradients += token_gradient_bytes(workload, sharding, weight_b)
    bf16_weights = sharding.gathers_layers or sharding.bf16_states
    activations = activation_bytes(
        workload,
        sharding.tensor_parallel,
        bf16_weights,
        sharding.pipeline_parallel == 1,
        sharding.sequence_parallel,
        sharding.sequence_parallel_gathers,
        pipeline_in_flight(sharding) * stage_share(workload, sharding) * sharding.pipeline_parallel,
        sharding.tensor_parallel if sharding.vocab_parallel else 1,
    )
    if workload.precision != "fp32" and not bf16_weights:
        activations += local * COMPUTE_BYTES  # autocast's bf16 weight cache
    tensors = weights + gradients + optimizer + activations
    # the allocator fragments what churns every step (activations, gathered weights and the
    # transient buffers of backward); the states, allocated once, stay whole
    states = local * (weight_b / sharding.weights_over + grad_b / sharding.gradients_over)
    states += local * optim_b / sharding.optimizer_over
    overhead = FIXED_OVERHEAD_GB * GB + FRAGMENTATION * max(tensors - states, 0.0)
    overhead += loss_backward_bytes(workload, sharding)
    return Breakdown(weights / GB, gradients / GB, optimizer / GB, activations / GB, overhead / GB)


def distributed_optimizer(sharding: Sharding, dp: int, precision: str) -> Sharding:
    """`sharding` (TP and PP) under train_pytorch.py's --zero1 over `dp` data-parallel ranks
    (torch_zero1): AdamW's state split dp ways and, under bf16, the weights bf16 with their fp32
    master in that state and the gradients in an fp32 buffer (Megatron's distributed optimizer
    with grad_reduce_in_fp32). One data-parallel rank: plain AdamW over fp32 weights."""
    bf16 = dp > 1 and precision != "fp32"
    return replace(sharding, optimizer_over=dp, master_weights=bf16, fp32_gradients=bf16)


def token_gradient_bytes(workload: Workload, sharding: Sharding, weight_bytes: int) -> float:
    """DTensor's embedding backward returns the token embedding's whole gradient (replicated over
    TP), which train_pytorch.py slices to the rank's rows: the rows of the other TP ranks."""
    return workload.token_embedding_params * (1 - 1 / sharding.tensor_parallel) * weight_bytes


def pipeline_in_flight(sharding: Sharding) -> float:
    """The blocks' activations the first stage holds at its peak, in units of all L blocks for
    one micro-batch. Plain 1F1B: p micro-batches of its L/p blocks, 1. Interleaved (v chunks of
    L/(p·v) blocks each), the first stage warms up with (v-1)·p + 2(p-1) chunk-forwards before
    its first backward (Megatron-LM's schedules and torch.distributed.pipelining's
    ScheduleInterleaved1F1B count the same), so it holds 1 + (p-1)/(p·v)."""
    p, v = sharding.pipeline_parallel, sharding.pipeline_interleave
    if p == 1 or v <= 1:
        return 1.0
    return ((v - 1) * p + 2 * (p - 1) + 1) / (p * v)


def te_fp8_inputs(workload: Workload) -> bool:
    """Transformer Engine's linears under fp8 keep the fp8 copy of their input for backward
    (1 byte an element) instead of a bf16 one (transformer_engine/pytorch/module/linear.py:
    ``saved_inputmat = inputmat``, the quantized input): the fused frameworks' fp8 (llm-foundry's
    te layers, Megatron-Core). torchao's fp8 (torchtitan, compiled) keeps the bf16 input."""
    return workload.precision == "fp8" and workload.kernels in FRAMEWORK_KERNELS


def local_params(workload: Workload, sharding: Sharding) -> float:
    """Parameters on one rank before data-parallel sharding: its pipeline stage's blocks split
    by TP (the busiest stage's, `stage_share`; key and value heads replicated where TP outnumbers
    them, `Shape.kv_replicas`), plus what it holds whole (the first stage: embeddings; without
    PP: also the head)."""
    blocks = rank_block_params(workload, sharding, workload.block_params)
    if not sharding.eager_autocast:
        split = sharding.tensor_parallel * sharding.pipeline_parallel
        return blocks + workload.embedding_params / split
    return blocks + _root(workload, sharding)


def rank_block_params(workload: Workload, sharding: Sharding, blocks: float) -> float:
    """`blocks`, the model's block parameters, as the busiest pipeline rank holds and computes
    them: its stage's share (`stage_share`), with the key/value heads TP replicates
    (`Shape.replicated_kv_params`), split by TP."""
    tp = sharding.tensor_parallel
    replicas = workload.shape.layers * workload.shape.replicated_kv_params(tp)
    return (blocks + replicas) * stage_share(workload, sharding) / tp


def stage_share(workload: Workload, sharding: Sharding) -> float:
    """The share of the blocks on the pipeline rank that holds the most (1 without PP). Layers
    that do not divide evenly go one each to some stages (the entry point's earlier ones,
    torch_pipeline.block_ranges; neuronx-distributed's later ones, its create_partitions), and
    that rank paces every micro-batch: 80 layers over 32 stages run at 3 a stage, not 2.5. With
    interleaving, the first rank's chunks are stages 0, p, 2p, ..., the first to take one."""
    p, v = sharding.pipeline_parallel, max(sharding.pipeline_interleave, 1)
    layers = workload.shape.layers
    if p == 1 or layers < p * v:
        return 1.0 / p
    base, extra = divmod(layers, p * v)
    return sum(base + (1 if stage < extra else 0) for stage in range(0, p * v, p)) / layers


def _root(workload: Workload, sharding: Sharding) -> float:
    """What a rank holds outside the blocks: the embeddings (the token embedding split by
    vocabulary over TP, as train_pytorch.py's plan and torchtitan's split it), the head but on a
    pipeline's first stage (split too under loss_parallel)."""
    tp = sharding.tensor_parallel
    embeddings = workload.embedding_params - workload.token_embedding_params * (1 - 1 / tp)
    if sharding.pipeline_parallel > 1:  # rank 0 runs the first stage: no head
        embeddings -= workload.head_params
    elif sharding.loss_parallel:  # the head split by vocabulary
        embeddings -= workload.head_params * (1 - 1 / tp)
    return embeddings


def ddp_bucket_bytes(workload: Workload, sharding: Sharding, bucket_view: bool = True) -> float:
    """What DDP adds to a rank beyond the gradients: its all-reduce buckets hold one fp32 copy of
    the gradients; with gradient_as_bucket_view (train_pytorch.py) .grad are views into them, so
    nothing beyond the gradients. Sharded layouts have no DDP buckets."""
    if bucket_view or sharding.weights_over > 1 or sharding.gradients_over > 1:
        return 0.0
    return 4.0 * local_params(workload, sharding)


def loss_backward_bytes(workload: Workload, sharding: Sharding) -> float:
    """What the loss's backward holds for a moment beyond the saved activations, on the rank
    that computes it (without PP, rank 0): cross_entropy over fp32 logits, run eagerly, has
    nll_loss's gradient and log_softmax's gradient alive at once, two fp32 tensors the size of
    the logits (MemTracker's "Temp" at the step's peak: 16.8 GB for 16,384 tokens over a
    128,256-word vocabulary). Vocabulary-parallel losses hold 1/TP of it; the entry point's
    (``--loss_parallel``, torch's loss_parallel as it runs today) more buffers of that size
    (LOSS_PARALLEL_BACKWARD); a fused or compiled loss is not modelled here."""
    if not workload.eager_loss or workload.fused_loss or sharding.pipeline_parallel > 1:
        return 0.0
    vocab = workload.vocab / (sharding.tensor_parallel if sharding.vocab_parallel else 1)
    buffers = LOSS_PARALLEL_BACKWARD if sharding.loss_parallel else 2
    return buffers * 4 * workload.seq_len * workload.micro_batch * vocab


def op_checkpointing_saved(workload: Workload, tp: int, residual: int, sp: int) -> float:
    """Bytes per token, in units of h, that torchtitan's per-op selective checkpointing keeps
    of one block (``_save_list`` and ``_custom_policy`` in its parallelize_llama.py): the block's
    input (the checkpoint's own), the outputs of every second matmul counted from the first (q,
    v, the MLP's first linear, and the down projection when the MLP is gated), of the attention
    kernel and of each sequence-parallel reduce-scatter; norms, RoPE, the activation function and
    the other matmuls are recomputed. A row-parallel matmul's output is whole on every TP rank."""
    h, width = workload.shape.hidden, 4 if workload.precision == "fp32" else 2
    matmuls = sum(
        width * linear.outputs / h / (1 if linear.row_parallel else tp)
        for linear in workload.shape.linears()[::2]
    )
    attention = width / tp
    scattered = 2 * width / tp if sp > 1 else 0
    return residual / sp + matmuls + attention + scattered


def activation_bytes(
    workload: Workload,
    tensor_parallel: int = 1,
    bf16_weights: bool = True,
    logits: bool = True,
    sequence_parallel: bool = False,
    gathers: bool = False,
    in_flight: float = 1.0,
    vocab_split: int = 1,
) -> float:
    """Stored activations of one micro-batch on one rank; `bf16_weights`: the residual stream is
    bf16 (FSDP's mixed precision, DeepSpeed) rather than fp32 (autocast over fp32 weights);
    `logits`: the rank computes the loss (not a first pipeline stage); `sequence_parallel`: the
    replicated part (residual, norms, casts) and the logits are split by TP too; `gathers`
    (train_pytorch.py's sequence parallelism): only the residual stream and the norms' inputs
    are, the linears' whole-sequence inputs (the casts) and the logits stay whole; `in_flight`:
    the blocks' activations a first pipeline stage holds, in units of all L blocks for one
    micro-batch (`pipeline_in_flight`); `vocab_split`: the ranks the logits are split over
    (`Sharding.vocab_parallel`)."""
    s, b, t = workload.seq_len, workload.micro_batch, tensor_parallel
    shape = workload.shape
    h, a = shape.hidden, shape.heads
    tokens = s * b
    # split by TP, in bytes per h at 2 bytes an element: q and the attention output (2 + 2),
    # k and v (2 + 2 at their width), the projection's input (2), the MLP's saved tensors
    # (GELU: its input and the second linear's, 2 + 2 per ffn; SwiGLU: gate, up, silu(gate) and
    # their product, 4 x 2); 26 for GPT
    ffn, kv = shape.ffn / h, shape.kv_width * shape.kv_replicas(t) / h
    # what a linear keeps of its input: its fp8 copy (1 byte) under Transformer Engine's fp8
    linear_input = 1 if te_fp8_inputs(workload) else 2
    # the activation function's input (SwiGLU: gate and up; GELU: its input) and, in eager
    # PyTorch's SwiGLU, silu(gate) too; the fused frameworks' SwiGLU keeps only its input
    # (Megatron-Core's bias_swiglu: ``ctx.save_for_backward(input)``; TE's LayerNormMLP, fc1's
    # output)
    activation = (4 if shape.gated_mlp else 2) * ffn
    silu = 2 * ffn if shape.gated_mlp and workload.kernels not in FRAMEWORK_KERNELS else 0
    split = 4 + 4 * kv + linear_input + activation + silu + linear_input * ffn
    if workload.checkpoints_selectively and not workload.op_checkpointing:
        # selective: the activation function's outputs are recomputed, the matmuls' kept (the
        # per-op policy keeps its own share, below; its block in recompute holds everything)
        split -= silu + linear_input * ffn
    if workload.precision == "fp32":
        residual, casts, split = 4, 8, 2 * split
    else:
        # bf16 weights: q, k, v share one saved bf16 input, the MLP another; fp32 weights:
        # autocast casts the input of q, k, v and the MLP separately
        residual, casts = (2, 4) if bf16_weights else (4, 8)
        casts = casts * linear_input // 2
    sp = t if sequence_parallel else 1
    replicated = 2 * residual / sp + casts / (1 if gathers else sp)
    per_layer = tokens * h * (replicated + split / t)
    if workload.fused_attention:
        per_layer += 4 * a * tokens / t  # log-sum-exp, fp32
    elif not workload.checkpoints_selectively:
        # the probabilities, and under dropout its mask and output (Korthikanti et al. 2022's
        # 5as^2b); selective checkpointing recomputes exactly these (its section 4.3)
        per_layer += (5 if workload.attention_dropout else 2) * a * s * tokens / t
    if workload.activation_offload:
        stored = per_layer  # the rest waits in host memory
    elif workload.op_checkpointing:
        # what the per-op policy saves of a block, and the block in recompute at the peak
        saved = tokens * h * op_checkpointing_saved(workload, t, residual, sp)
        saved += 4 * a * tokens / t  # log-sum-exp, fp32 (the attention kernel's output)
        stored = workload.shape.layers * in_flight * saved + per_layer
    elif workload.full_checkpointing:
        inputs = residual * tokens * h / sp
        stored = workload.shape.layers * in_flight * inputs + per_layer
    else:
        stored = workload.shape.layers * in_flight * per_layer
    vocab = workload.vocab / vocab_split
    if workload.fused_loss and workload.precision != "fp32":
        loss = tokens * (COMPUTE_BYTES * vocab + 4)  # the bf16 logits and a fp32 log-sum-exp
    else:
        loss = 4 * tokens * vocab  # the fp32 log-softmax
    return stored + (loss if logits else 0)

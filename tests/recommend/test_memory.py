"""The memory model's arithmetic against the numbers it cites (ZeRO, Korthikanti et al.)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sagelaunch.errors import UsageError
from sagelaunch.recommend.memory import (
    FIXED_OVERHEAD_GB,
    Sharding,
    activation_bytes,
    local_params,
    loss_backward_bytes,
    per_device,
    pipeline_in_flight,
    state_bytes,
)
from sagelaunch.recommend.workload import (
    Shape,
    Workload,
    estimate_shape,
    format_params,
    parse_params,
)

B = 10**9


def dims(shape) -> tuple[int, int, int]:
    return (shape.layers, shape.hidden, shape.heads)


def workload(params: float = 7e9, **options) -> Workload:
    return Workload(params=int(params), shape=estimate_shape(params), **options)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("125M", 125_000_000),
        ("1.3B", 1_300_000_000),
        ("7B", 7_000_000_000),
        ("70b", 70_000_000_000),
        ("7e9", 7_000_000_000),
        ("7000000000", 7_000_000_000),
        ("1.5T", 1_500_000_000_000),
        (" 13B ", 13_000_000_000),
    ],
)
def test_parse_params(text, expected):
    assert parse_params(text) == expected


@pytest.mark.parametrize("text", ["7Q", "", "B", "seven", "7BB", "-7B", "1e3", "1e14"])
def test_parse_params_rejects(text):
    with pytest.raises(UsageError):
        parse_params(text)


def test_format_params_round_trips():
    assert [format_params(parse_params(t)) for t in ("125M", "1.3B", "7B", "70B")] == [
        "125M",
        "1.3B",
        "7B",
        "70B",
    ]


def test_shape_from_published_gpt_shapes():
    assert dims(estimate_shape(7e9)) == (32, 4096, 32)
    assert dims(estimate_shape(70e9)) == (80, 8192, 64)
    assert dims(estimate_shape(125e6)) == (12, 768, 12)
    assert estimate_shape(7e9).estimated


def test_shape_from_one_given_dimension_uses_12_L_h2():
    shape = estimate_shape(7e9, layers=32)
    assert shape.hidden == 4224 and not shape.estimated  # sqrt(7e9 / 384) = 4270, to /128
    assert estimate_shape(7e9, hidden=4096).layers == 35  # 7e9 / (12 * 4096^2) = 34.8
    assert dims(estimate_shape(7e9, layers=40, hidden=5120)) == (40, 5120, 40)


def test_mixed_precision_adam_is_16_bytes_per_parameter():
    # PyTorch AMP: fp32 weights (4) + fp32 grads (4) + Adam's m and v (8): ZeRO §3.1's 16.
    assert state_bytes(workload()) == (4, 4, 8)
    ddp = per_device(workload(), Sharding())
    assert ddp.weights + ddp.gradients + ddp.optimizer == pytest.approx(112.0)  # 7B -> 112 GB


def test_state_bytes_by_precision_and_optimizer():
    assert state_bytes(workload(precision="fp32")) == (4, 4, 8)
    assert state_bytes(workload(optimizer="sgd")) == (4, 4, 4)
    assert state_bytes(workload(precision="fp8")) == state_bytes(workload())
    assert state_bytes(workload(optimizer="adam")) == state_bytes(workload(optimizer="adamw"))


def test_fp32_stores_the_same_states_and_wider_activations():
    bf16 = per_device(workload(), Sharding())
    fp32 = per_device(workload(precision="fp32"), Sharding())
    assert bf16.weights == pytest.approx(28.0) and fp32.weights == pytest.approx(28.0)
    # wider saved tensors, but no autocast copy of the weights (14 GB at 7B under bf16)
    assert activation_bytes(workload(precision="fp32")) > activation_bytes(workload(), 1, False)
    assert bf16.activations - activation_bytes(workload(), 1, False) / B == pytest.approx(14.0)


def test_fsdp_shards_every_state_and_gathers_one_block_and_the_root():
    work = workload()
    full = per_device(work, Sharding(1, 8, 8, 8))
    block, root = 12 * 4096**2, work.embedding_params
    assert full.optimizer == pytest.approx(56.0 / 8)
    assert full.weights == pytest.approx((28e9 / 8 + 2 * (root + block)) / B)
    assert full.gradients == pytest.approx((28e9 / 8 + root * (2 - 4 / 8)) / B)
    wider = per_device(work, Sharding(1, 64, 64, 64))
    assert wider.optimizer == pytest.approx(56.0 / 64) and wider.activations == full.activations


def test_zero1_shards_only_the_optimizer():
    zero1 = per_device(workload(), Sharding(optimizer_over=32))
    assert (zero1.weights, zero1.gradients) == pytest.approx((28.0, 28.0))
    assert zero1.optimizer == pytest.approx(56.0 / 32)


def test_neuron_keeps_bf16_weights_and_splits_everything_by_tensor_parallelism():
    neuron = per_device(
        workload(), Sharding(tensor_parallel=8, optimizer_over=4, eager_autocast=False)
    )
    assert (neuron.weights, neuron.gradients) == pytest.approx((14.0 / 8, 14.0 / 8))
    assert neuron.optimizer == pytest.approx(84.0 / 32)


def test_key_value_heads_are_replicated_where_tp_outnumbers_them():
    """neuronx-distributed gives each TP rank whole key/value heads (kv_size_multiplier): Llama 3
    70B's 8 over TP 32 are copied 4 times, so each rank holds a whole head's k and v where an
    even split would hold a quarter; TP 8 splits them as they are."""
    shape = Shape(80, 8192, 64, estimated=False, kv_heads=8, ffn_hidden=28672, gated_mlp=True)
    assert [shape.kv_replicas(tp) for tp in (1, 2, 8, 16, 32)] == [1, 1, 1, 2, 4]
    assert Shape(40, 5120, 40, estimated=False).kv_replicas(8) == 1  # multi-head: one per head
    work = Workload(params=70_553_706_496, shape=shape, vocab=128256)
    copies = 80 * 2 * 8192 * 1024 * 3  # three more copies of each block's k and v (1024 wide)
    for tp, extra in ((8, 0), (32, copies)):
        neuron = Sharding(tensor_parallel=tp, optimizer_over=4, eager_autocast=False)
        assert local_params(work, neuron) == pytest.approx((work.params + extra) / tp)
        assert per_device(work, neuron).weights == pytest.approx(2 * (work.params + extra) / tp / B)


def test_full_bf16_with_stochastic_rounding_keeps_no_fp32_master():
    """Neuron's XLA_USE_BF16 (the Trn1 tables' "BF16+SR"): the moments bf16, no master copy."""
    full = Sharding(tensor_parallel=8, eager_autocast=False, stochastic_rounding=True)
    neuron = per_device(workload(), full)
    assert (neuron.weights, neuron.gradients) == pytest.approx((14.0 / 8, 14.0 / 8))
    assert neuron.optimizer == pytest.approx(28.0 / 8)  # two bf16 moments: 4 of the master's 12
    assert full.gradient_reduce_bytes == 2


def test_tensor_parallel_divides_the_blocks_and_the_token_table_not_the_rest():
    work = workload()
    one, eight = per_device(work, Sharding()), per_device(work, Sharding(tensor_parallel=8))
    whole = (work.embedding_params - work.token_embedding_params) * 4 / B  # positions, head
    assert eight.weights == pytest.approx((one.weights - whole) / 8 + whole)
    assert one.activations / 4 < eight.activations < one.activations / 2


def test_activations_of_the_entry_point_block():
    s, h, a, layers, vocab = 2048, 4096, 32, 32, 32_000
    # bf16 weights (FSDP, DeepSpeed): 2 norm inputs x 2 + 4 of casts + 26 split = 34 bytes * h
    fused = activation_bytes(workload())
    assert fused == pytest.approx(layers * (s * h * 34 + 4 * a * s) + 4 * s * vocab)
    # unfused attention keeps its probabilities (2 bytes), and under dropout its mask and output
    # too: Korthikanti et al.'s 5as^2b
    eager = activation_bytes(workload(attention="unfused", attention_dropout=True))
    assert eager == pytest.approx(layers * s * h * (34 + 5 * a * s / h) + 4 * s * vocab)
    no_dropout = activation_bytes(workload(attention="unfused"))
    assert no_dropout == pytest.approx(layers * s * h * (34 + 2 * a * s / h) + 4 * s * vocab)
    assert fused < eager / 3  # the a*s^2 scores dominate at s=2048
    autocast = activation_bytes(workload(), bf16_weights=False)  # fp32 residual, 3 casts
    assert autocast == pytest.approx(layers * (s * h * 42 + 4 * a * s) + 4 * s * vocab)


def test_activation_checkpointing_keeps_layer_inputs_only():
    plain = activation_bytes(workload())
    ckpt = activation_bytes(workload(activation_checkpointing=True))
    assert ckpt < plain / 5
    s, h = 2048, 4096
    assert ckpt > 32 * 2 * s * h  # the inputs of every layer stay
    assert per_device(workload(activation_checkpointing=True), Sharding()).activations < (
        per_device(workload(), Sharding()).activations
    )


def test_activations_scale_with_sequence_and_micro_batch():
    base = activation_bytes(workload())
    assert activation_bytes(workload(micro_batch=4)) == pytest.approx(4 * base)
    assert activation_bytes(workload(seq_len=4096)) == pytest.approx(2 * base)


def test_overhead_is_fixed_plus_fragmentation():
    mem = per_device(workload(125e6), Sharding())
    tensors = mem.weights + mem.gradients + mem.optimizer + mem.activations
    # the states are allocated once and do not fragment; what churns each step does
    # and the loss's backward: two fp32 gradients the size of the logits (test_oracle.py)
    loss = loss_backward_bytes(workload(125e6), Sharding()) / B
    assert loss == pytest.approx(8 * 2048 * workload(125e6).vocab / B)
    assert mem.overhead == pytest.approx(FIXED_OVERHEAD_GB + 0.10 * mem.activations + loss)
    assert mem.total == pytest.approx(tensors + mem.overhead)


def test_a_known_small_shape_with_a_large_vocabulary_is_mostly_embeddings():
    # 2 blocks of width 256 (1.6M) under 32,000-token embeddings and head (16.4M): the blocks'
    # share is what the shape says, not the half of the parameters a guessed shape is given
    shape = Shape(2, 256, 4, estimated=False)
    work = Workload(params=18_000_000, shape=shape, seq_len=256, vocab=32_000)
    assert work.block_params == 18_000_000 - work.embedding_params
    assert work.block_params < 0.1 * work.params
    guessed = Workload(params=18_000_000, shape=Shape(2, 256, 4, estimated=True), vocab=32_000)
    assert guessed.block_params == 0.5 * guessed.params


def test_interleaved_first_stage_holds_what_torchs_schedule_keeps_in_flight():
    """The first stage of an interleaved 1F1B pipeline holds more than plain 1F1B's p
    micro-batches: counted on torch.distributed.pipelining's own ScheduleInterleaved1F1B (what
    train_pytorch.py runs; Megatron-LM's warm-up counts the same), forwards minus backwards on
    rank 0 at their peak, in chunks of L/(p·v) blocks."""
    pytest.importorskip("torch")
    from types import SimpleNamespace

    from torch.distributed.pipelining import schedules

    def peak_chunks(p: int, v: int) -> int:
        stages = [
            SimpleNamespace(num_stages=p * v, group_size=p, group_rank=0, stage_index=i * p)
            for i in range(v)
        ]
        order = schedules.ScheduleInterleaved1F1B(stages, 2 * p).pipeline_order[0]
        held = peak = 0
        for action in filter(None, order):
            if action.computation_type == schedules.FORWARD:
                held += 1
            elif action.computation_type in (schedules.FULL_BACKWARD, schedules.BACKWARD_INPUT):
                held -= 1
            peak = max(peak, held)
        return peak

    work = workload(7e9, micro_batch=1)
    plain = per_device(work, Sharding(pipeline_parallel=4)).activations
    assert pipeline_in_flight(Sharding(pipeline_parallel=4)) == 1.0
    for p, v in ((2, 2), (4, 2), (8, 5)):
        interleaved = Sharding(pipeline_parallel=p, pipeline_interleave=v)
        assert pipeline_in_flight(interleaved) == pytest.approx(peak_chunks(p, v) / (p * v))
    interleaved = Sharding(pipeline_parallel=4, pipeline_interleave=2)
    assert per_device(work, interleaved).activations > plain


def _megatron(**options) -> Workload:
    """A Llama-style block (SwiGLU, GQA) as Megatron-Core runs it."""
    shape = Shape(8, 4096, 32, estimated=False, kv_heads=8, ffn_hidden=14336, gated_mlp=True)
    return Workload(params=int(2e9), shape=shape, seq_len=4096, kernels="megatron", **options)


def test_transformer_engines_fp8_linears_keep_their_input_in_one_byte():
    """Under fp8 the fused frameworks' linears (Transformer Engine) save the fp8 copy of their
    input: the inputs of q/k/v, the projection, the first and the second MLP linear (h, h, h and
    ffn elements a token) take one byte less each. torchao's fp8 (compiled) keeps bf16 ones."""
    tp, sp = 4, Sharding(tensor_parallel=4, sequence_parallel=True, eager_autocast=False)
    bf16, fp8 = _megatron(precision="bf16"), _megatron(precision="fp8")
    shape, tokens = bf16.shape, bf16.seq_len * bf16.micro_batch
    linear_inputs = shape.layers * tokens * (3 * shape.hidden + shape.ffn) / tp
    saved = per_device(bf16, sp).activations - per_device(fp8, sp).activations
    assert saved * B == pytest.approx(linear_inputs)
    compiled = {"kernels": "compiled"}
    assert per_device(replace(bf16, **compiled), sp).activations == pytest.approx(
        per_device(replace(fp8, **compiled), sp).activations
    )


def test_a_fused_swiglu_keeps_only_its_input():
    """Megatron-Core's bias_swiglu saves its input (gate and up) alone; eager PyTorch's SwiGLU
    also keeps silu(gate) for the product's backward: ffn elements a token in bf16."""
    fused, eager = _megatron(), replace(_megatron(), kernels="eager")
    shape, tokens = fused.shape, fused.seq_len * fused.micro_batch
    silu = shape.layers * tokens * shape.ffn * 2
    sharding = Sharding(eager_autocast=False)
    gap = per_device(eager, sharding).activations - per_device(fused, sharding).activations
    assert gap * B == pytest.approx(silu)


def test_megatron_gradients_in_fp32_double_the_bf16_ones():
    work = _megatron()
    bf16 = per_device(work, Sharding(optimizer_over=8, eager_autocast=False))
    fp32 = per_device(work, Sharding(optimizer_over=8, eager_autocast=False, fp32_gradients=True))
    assert fp32.gradients == pytest.approx(2 * bf16.gradients)
    assert (fp32.weights, fp32.optimizer) == (bf16.weights, bf16.optimizer)

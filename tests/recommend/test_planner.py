"""Known points of the planner: which parallelism and how many instances for well-known sizes."""

from __future__ import annotations

import pytest

from sagelaunch.catalog import facts
from sagelaunch.errors import UsageError
from sagelaunch.recommend import hardware, layouts, planner, workload
from sagelaunch.recommend.memory import local_params
from sagelaunch.recommend.workload import Shape, Workload, estimate_shape
from tests.aws.price_list import priced

P4D, P5, TRN1 = "ml.p4d.24xlarge", "ml.p5.48xlarge", "ml.trn1.32xlarge"


def plan(params: float, instance_type: str = P4D, count: int | None = None, **options):
    work = Workload(params=int(params), shape=estimate_shape(params), **options)
    return planner.recommend(work, layouts.device(instance_type), count)


def test_device_per_rank_memory_from_the_catalog():
    p4d, trn1 = layouts.device(P4D), layouts.device(TRN1)
    # 39.59 GiB as CUDA reports it: 42.5 GB of 10^9 bytes
    assert (p4d.ranks_per_host, p4d.usable_gb) == (8, p4d.memory_gb)  # "other" is the margin
    assert p4d.memory_gb == pytest.approx(39.59 * 2**30 / 1e9)
    assert p4d.smp_v2 and p4d.kind == "gpu"
    # 16 Trainium chips x 32 GB shared by 32 NeuronCores.
    assert (trn1.ranks_per_host, trn1.memory_gb, trn1.smp_v2) == (32, 16, False)


@pytest.mark.parametrize("bad", ["ml.p9.48xlarge", "p4d.24xlarge", "ml.m5.xlarge"])
def test_device_rejects_unknown_and_cpu_types(bad):
    with pytest.raises(UsageError):
        layouts.device(bad)


def test_unknown_type_suggests_a_close_one():
    with pytest.raises(UsageError) as err:
        layouts.device("ml.p4d.24xlarg")
    assert "ml.p4d.24xlarge" in (err.value.hint or "")


def test_125m_is_ddp_on_one_instance():
    rec = plan(125e6)
    assert (rec.chosen.parallelism, rec.chosen.instance_count) == ("ddp", 1)
    assert rec.chosen.fits and rec.chosen.memory.total < 10
    assert "DDP" in rec.reason


def test_7b_adamw_on_40gb_a100s_is_sharded_on_one_instance():
    rec = plan(7e9)
    assert rec.chosen.parallelism in {"fsdp", "smp"} and rec.chosen.instance_count == 1
    assert rec.chosen.fits and rec.chosen.shard_group == 8
    ddp = next(alt for alt in rec.alternatives if alt.parallelism == "ddp")
    assert not ddp.fits and ddp.memory.total > 112  # all 112 GB of states on every GPU
    assert "112 GB" in rec.reason


def test_70b_on_p4d_needs_at_least_four_instances():
    rec = plan(70e9)
    assert rec.chosen.fits and rec.chosen.instance_count >= 4
    # activations alone overflow 40 GB without splitting layers: the entry point's TP, whose
    # sequence parallelism splits the norms' activations too
    assert rec.chosen.parallelism == "torchrun" and rec.chosen.tensor_parallel == 8
    assert rec.chosen.sharding.sequence_parallel
    fewer = plan(70e9, count=rec.chosen.instance_count - 1)
    assert not fewer.chosen.fits
    assert f"--instance-count {rec.chosen.instance_count}" in fewer.reason


def test_70b_fewest_instances_first_then_simplest():
    rec = plan(70e9, P5, activation_checkpointing=True)
    assert rec.chosen.fits
    for alt in rec.alternatives:
        assert alt.instance_count >= rec.chosen.instance_count or not alt.fits


def test_a_layout_on_more_instances_that_trains_cheaper_per_token_gets_a_note(monkeypatch):
    """70B on p5: the fewest instances (2, TP8 + shard) is the choice; FSDP over more instances
    does more tokens per dollar by the step model, and the note says so with both figures."""
    priced(monkeypatch, {("us-east-1", P5): "64.0"})  # sagelaunch ships no p5 price
    rec = plan(70e9, P5)
    mine = rec.chosen.speed(rec.workload).tokens_per_dollar
    wider = [alt for alt in rec.alternatives if alt.fits and alt.instance_count > 2]
    best = max(wider, key=lambda alt: alt.speed(rec.workload).tokens_per_dollar)
    theirs = best.speed(rec.workload).tokens_per_dollar
    assert rec.chosen.instance_count == 2 and rec.chosen.tensor_parallel == 8
    assert theirs > planner.CHEAPER_PER_TOKEN * mine
    [note] = [note for note in rec.notes if "per dollar" in note]
    assert note.startswith(f"{best.layout} on {best.instance_count} ml.p5.48xlarge instances")
    assert f"({theirs / 1e6:.2f} vs {mine / 1e6:.2f} M)" in note and "communication" in note


@pytest.mark.parametrize("params", [125e6, 7e9])
def test_no_note_when_no_wider_layout_is_cheaper_per_token(params):
    """On one instance the simplest layout is kept whatever the roofline says of the others."""
    rec = plan(params, P5)
    assert rec.chosen.instance_count == 1
    assert not any("per dollar" in note for note in rec.notes)


def test_fits_means_within_the_devices_memory():
    """The model's peak already holds the allocator's share (memory.py's "other"): no second
    margin (hardware.HEADROOM)."""
    for rec in (plan(125e6), plan(7e9), plan(70e9), plan(1.3e9, TRN1)):
        for cand in (rec.chosen, *rec.alternatives):
            assert cand.fits == (cand.memory.total <= cand.device.memory_gb)


def test_activation_checkpointing_lowers_the_plan():
    plain, ckpt = plan(70e9), plan(70e9, activation_checkpointing=True)
    assert ckpt.chosen.memory.activations < plain.chosen.memory.activations
    assert ckpt.chosen.instance_count < plain.chosen.instance_count
    assert any("--activation-checkpointing" in note for note in plain.notes)


def test_given_instance_count_prefers_hybrid_sharding_within_a_node():
    rec = plan(7e9, count=4)
    assert rec.chosen.parallelism == "fsdp" and rec.chosen.hybrid
    assert rec.chosen.shard_group == 8 and rec.chosen.instance_count == 4
    layouts = {alt.layout for alt in rec.alternatives}
    assert "FSDP full shard over 32 GPUs" in layouts
    assert any("SMP v2 hybrid shard (16 GPUs" in layout for layout in layouts)


def test_trainium_uses_neuron_torchrun_with_zero1():
    rec = plan(1.3e9, TRN1)
    assert rec.chosen.parallelism == "torchrun-neuron" and rec.chosen.fits
    assert rec.chosen.sharding.optimizer_over == 32 and rec.chosen.sharding.weights_over == 1
    assert "neuronx-distributed" in rec.reason
    assert all(alt.parallelism == "torchrun-neuron" for alt in rec.alternatives)


def test_trainium_zero1_accumulates_and_reduces_gradients_in_fp32():
    """Neuron 2.20's Standard Mixed Precision, neuronx-distributed's default wherever its ZeRO-1
    runs: an fp32 gradient buffer (4 bytes a local parameter, not bf16's 2) reduced in fp32;
    plain data parallelism, which runs no ZeRO-1, keeps bf16 gradients."""
    rec = plan(7e9, TRN1)
    every = (rec.chosen, *rec.alternatives)
    zero1 = [c for c in every if c.sharding.optimizer_over > 1]
    assert zero1 and all(c.sharding.fp32_gradients for c in zero1)
    assert all(c.sharding.gradient_reduce_bytes == 4 for c in zero1)
    chosen = rec.chosen
    local = local_params(rec.workload, chosen.sharding)
    assert chosen.memory.gradients == pytest.approx(4 * local / 1e9)
    replica = next(c for c in every if c.family == "dp")
    assert not replica.sharding.fp32_gradients and replica.sharding.gradient_reduce_bytes == 2


def test_trainium_7b_adds_tensor_parallelism():
    rec = plan(7e9, TRN1)
    assert rec.chosen.fits and rec.chosen.tensor_parallel > 1


def test_trainium_pipelines_only_where_no_tensor_parallel_degree_fits():
    """neuronx-distributed's answer for a model that no TP degree of one node fits (its Llama
    70B tutorial: pipeline stages, with TP 32 to keep them few): offered then, and only then."""
    seven = plan(7e9, TRN1)
    assert all(c.sharding.pipeline_parallel == 1 for c in (seven.chosen, *seven.alternatives))
    big = plan(70e9, TRN1, count=32, seq_len=8192)
    every = (big.chosen, *big.alternatives)
    flat = [c for c in every if c.sharding.pipeline_parallel == 1]
    assert flat and not any(c.fits for c in flat)
    assert big.chosen.fits and big.chosen.sharding.pipeline_parallel > 1
    assert big.chosen.tensor_parallel * big.chosen.sharding.pipeline_parallel <= 32 * 32
    assert "pipeline" in big.chosen.layout and "pipeline stages" in big.reason


def test_tensor_parallel_degrees_give_every_rank_whole_attention_heads():
    """train_pytorch.py refuses an --n_head that TP does not divide, and neuronx-distributed's
    attention divides its heads by the TP size: a 12-head GPT gets no TP 8 on a p4d, Llama 2 13B
    (40 heads) no TP 16 or 32 on a trn1, whose 32 NeuronCores would otherwise allow them."""
    small = plan(125e6, count=2)
    assert small.workload.shape.heads == 12
    small_tp = {c.tensor_parallel for c in (small.chosen, *small.alternatives)}
    assert small_tp == {1, 2, 4}
    llama = workload.named_model("llama2-13b")
    work = Workload(params=llama.params, shape=llama.shape, vocab=llama.vocab, seq_len=4096)
    trn = planner.recommend(work, layouts.device(TRN1), 4)
    trn_tp = {c.tensor_parallel for c in (trn.chosen, *trn.alternatives)}
    assert trn_tp == {1, 2, 4, 8}
    # a 64-head model keeps every degree a trn1 offers
    seventy = workload.named_model("llama2-70b")
    wide = Workload(params=seventy.params, shape=seventy.shape, vocab=seventy.vocab)
    every = planner.recommend(wide, layouts.device(TRN1), 32)
    assert {c.tensor_parallel for c in (every.chosen, *every.alternatives)} >= {16, 32}


def test_one_candidate_per_tensor_parallel_layout():
    """SMP v2's TP and the entry point's would be the same TP × shard layout twice (and SMP's
    does not split train_pytorch.py's GPT): each TP degree is offered once, by torchrun."""
    rec = plan(13e9, count=2)
    shown = [(c.instance_count, c.short) for c in (rec.chosen, *rec.alternatives)]
    assert len(shown) == len(set(shown)), shown
    tp = [c for c in (rec.chosen, *rec.alternatives) if c.tensor_parallel > 1]
    assert tp and all(c.parallelism == "torchrun" for c in tp)


def test_sequence_parallel_where_the_sequence_splits_evenly():
    even, odd = plan(70e9, count=6), plan(70e9, count=6, seq_len=2047)
    assert even.chosen.tensor_parallel == 8 and even.chosen.sharding.sequence_parallel
    assert "sequence parallelism" in even.chosen.layout
    same = next(c for c in [*odd.alternatives, odd.chosen] if c.family == even.chosen.family)
    assert not same.sharding.sequence_parallel
    assert even.chosen.memory.activations < same.memory.activations
    # Neuron: neuronx-distributed's (Megatron's) sequence parallelism with its TP
    trn = plan(7e9, TRN1)
    assert trn.chosen.tensor_parallel > 1 and trn.chosen.sharding.sequence_parallel


def test_layouts_that_do_not_fit_are_ranked_closest_first():
    rec = plan(70e9, count=2)
    over = [c.memory.total for c in rec.ranked() if not c.fits]
    assert over == sorted(over)


def test_no_smp_layouts_where_smp_v2_does_not_run():
    rec = plan(13e9, "ml.g5.48xlarge", activation_checkpointing=True)
    assert rec.chosen.parallelism == "fsdp" and rec.chosen.instance_count > 1
    assert all(alt.parallelism != "smp" for alt in rec.alternatives)


def test_nothing_fits_says_how_to_shrink():
    rec = plan(1e12, "ml.g5.xlarge")
    assert not rec.chosen.fits
    assert "--activation-checkpointing" in rec.reason


def test_fp8_on_a100_is_flagged():
    assert any("fp8 needs" in note for note in plan(7e9, precision="fp8").notes)
    assert not any("fp8 needs" in note for note in plan(7e9, P5, precision="fp8").notes)


def test_native_tensor_parallel_when_fsdp_on_one_node_does_not_fit():
    rec = plan(7e9, "ml.g5.48xlarge", count=1, seq_len=2048)
    fsdp = [c for c in rec.alternatives if c.parallelism == "fsdp"]
    assert fsdp and not any(c.fits for c in fsdp)
    chosen = rec.chosen
    assert chosen.parallelism == "torchrun" and chosen.tensor_parallel > 1 and chosen.fits
    assert chosen.as_json()["pipeline_parallel_degree"] == 1


def test_pipeline_stages_and_offload_in_the_memory_model():
    from sagelaunch.recommend.memory import Sharding, per_device

    work = Workload(params=int(13e9), shape=estimate_shape(13e9))
    alone = per_device(work, Sharding(tensor_parallel=8))
    staged = per_device(work, Sharding(tensor_parallel=8, pipeline_parallel=4))
    # the blocks split over 4 stages; the first stage keeps the embeddings (the token table split
    # by TP) and not the head
    token, head = work.token_embedding_params, work.head_params
    ends = (work.embedding_params - token * 7 / 8) * 4 / 1e9
    assert staged.weights == pytest.approx((alone.weights - ends) / 4 + ends - head * 4 / 1e9)
    assert staged.optimizer == pytest.approx(staged.weights * 2)
    offloaded = per_device(
        Workload(params=int(13e9), shape=estimate_shape(13e9), activation_offload=True),
        Sharding(tensor_parallel=8),
    )
    # autocast's bf16 weight cache stays on the device; the saved activations leave it
    assert offloaded.activations < alone.activations / 2


def test_cpu_offload_suggested_where_nothing_fits_on_the_gpus():
    """A 7B full fine-tune on one ml.g5.12xlarge (4 A10G, 24 GB): no GPU-resident layout fits;
    DeepSpeed ZeRO-3 with the optimizer on the CPU does, in the instance's 192 GiB, and the note
    says what it costs (PCIe traffic per step, the CPU's Adam)."""
    rec = plan(7e9, "ml.g5.12xlarge", count=1)
    assert not rec.chosen.fits
    found = rec.cpu_offload
    assert found is not None and found.candidate.fits
    assert (found.plan.stage, found.plan.offload) == (3, "optimizer")  # the least traffic that fits
    assert found.host_gb == pytest.approx(16 * 7e9 * 1.5 / 1e9)  # DeepSpeed's estimate
    assert found.host_gb <= 0.9 * found.candidate.device.host_memory_gb
    assert found.pcie_gb == pytest.approx(4 * 7e9 / 4 / 1e9)  # 16-bit grads down, weights up
    assert "DeepSpeed ZeRO-3 with CPU offload fits on 1 ml.g5.12xlarge instance" in rec.reason
    [note] = [note for note in rec.notes if "--offload" in note]
    assert "--zero-stage 3 --offload optimizer" in note and "--offload_optimizer cpu" in note
    assert "PCIe" in note and "CPU Adam" in note and "16.3 GB per GPU" in note
    body = rec.as_json()["cpu_offload"]
    assert (body["offload"], body["fits"], body["pcie_gb_per_gpu_per_step"]) == (
        "optimizer",
        True,
        7.0,
    )


def test_cpu_offload_of_the_weights_too_when_the_optimizer_alone_is_not_enough():
    rec = plan(40e9, P4D, count=1)
    assert not rec.chosen.fits
    assert rec.cpu_offload is not None and rec.cpu_offload.plan.offload == "all"
    assert rec.cpu_offload.candidate.fits


def test_no_offload_note_where_a_gpu_layout_fits():
    for rec in (plan(7e9), plan(125e6), plan(7e9, "ml.g5.12xlarge", count=3)):
        assert rec.cpu_offload is None
        assert not any("--offload" in note for note in rec.notes)


def test_asked_offload_gets_the_pcie_note():
    rec = plan(7e9, "ml.g5.12xlarge", count=1, zero_stage=3, zero_offload="optimizer")
    assert rec.chosen.parallelism == "deepspeed" and rec.chosen.fits and rec.cpu_offload is None
    assert any("PCIe" in note and "host memory" in note for note in rec.notes)


def test_the_interleaved_schedule_divides_the_bubble_by_its_chunks_per_rank():
    from dataclasses import replace

    from sagelaunch.recommend import hardware, steptime
    from sagelaunch.recommend.memory import Sharding

    work = Workload(params=13_000_000_000, shape=estimate_shape(13e9), grad_accum=16)
    plain = Sharding(tensor_parallel=2, pipeline_parallel=4)
    hw = hardware.for_instance("ml.p4d.24xlarge")
    one = steptime.step(work, plain, hw, 1)
    four = steptime.step(work, replace(plain, pipeline_interleave=4), hw, 1)
    assert one.bubble_s > 0 and four.bubble_s == pytest.approx(one.bubble_s / 4)
    assert four.seconds == pytest.approx(one.seconds - 0.75 * one.bubble_s)


def test_a_pipeline_runs_at_the_pace_of_its_busiest_stage():
    """Layers that do not divide evenly go one each to some stages (the entry point's first ones,
    neuronx-distributed's last), and that stage paces every micro-batch: 80 layers on 32 stages
    hold and run 3 a stage, as 96 layers on 32 do, not 2.5."""
    from sagelaunch.recommend import hardware, steptime
    from sagelaunch.recommend.memory import Sharding, per_device, stage_share

    def gpt(layers: int) -> Workload:
        model = workload.Model("gpt", Shape(layers, 4096, 32, estimated=False), vocab=32000)
        return Workload(params=model.params, shape=model.shape, vocab=model.vocab, grad_accum=64)

    uneven, even = gpt(80), gpt(96)
    stages = Sharding(tensor_parallel=8, pipeline_parallel=32)
    assert stage_share(uneven, stages) == 3 / 80 and stage_share(even, stages) == 3 / 96
    assert stage_share(uneven, Sharding(pipeline_parallel=16)) == 1 / 16
    # interleaved, 82 layers in 12 chunks: the first rank's chunks (0, 4, 8) take 7 each
    chunks = Sharding(pipeline_parallel=4, pipeline_interleave=3)
    assert stage_share(gpt(82), chunks) == 21 / 82
    hw = hardware.for_instance("ml.p5.48xlarge")
    slow, paced = steptime.micro_batch(uneven, stages, hw), steptime.micro_batch(even, stages, hw)
    # the same three blocks a micro-batch (the final norm, counted with the blocks, aside)
    assert slow.forward_s == pytest.approx(paced.forward_s, rel=1e-4)
    assert slow.backward_s == pytest.approx(paced.backward_s, rel=1e-4)
    assert slow.memory_s == pytest.approx(paced.memory_s, rel=1e-4)
    # and the same three blocks held, with 32 micro-batches of them in flight on the first
    held, full = per_device(uneven, stages), per_device(even, stages)
    assert held.weights == pytest.approx(full.weights, rel=1e-3)
    assert held.activations == pytest.approx(full.activations, rel=1e-3)


def test_cudnn_attention_is_faster_on_hopper_and_nowhere_else():
    """Transformer Engine's cuDNN attention on H100 runs at 1.6 times FlashAttention-2's rate
    (FlashAttention-3 paper's benchmarks): only the attention share of the step shrinks, and only
    on Hopper. recommend's own runs (SDPA) stay on FlashAttention."""
    from dataclasses import replace

    from sagelaunch.recommend import hardware, steptime
    from sagelaunch.recommend.memory import Sharding

    flash = Workload(params=int(7e9), shape=estimate_shape(7e9), seq_len=4096, kernels="fused")
    assert flash.attention == "flash"
    cudnn = replace(flash, attention="cudnn")
    shape = flash.shape
    attention_flops = 7 * shape.layers * shape.hidden * flash.seq_len**2  # forward 2, backward 5
    for instance, speedup in ((P5, 1.6), (P4D, 1.0)):
        hw = hardware.for_instance(instance)
        fast, slow = (steptime.micro_batch(w, Sharding(), hw) for w in (cudnn, flash))
        rate = hw.bf16_flops * steptime.attention_efficiency(hw.accelerator)
        saved = attention_flops / rate * (1 - 1 / speedup)
        spent = slow.forward_s + slow.backward_s - fast.forward_s - fast.backward_s
        assert spent == pytest.approx(saved, abs=1e-12)


def test_unfused_attention_computes_every_score_and_moves_them_through_memory():
    """Megatron's CoreAttention without a flash kernel (Neuron before 2.19, --eager-attention):
    both halves of the s x s scores at the block's matmul rate (twice the causal FLOPs, plus the
    backward's two matmuls per forward one), and each score element of each head through HBM,
    8 bytes forward and 14 backward, 3 and 1 more under dropout. Megatron's selective
    checkpointing recomputes exactly that region: its forward again, its traffic too, and its
    scores are never stored."""
    from dataclasses import replace

    from sagelaunch.recommend import hardware, steptime
    from sagelaunch.recommend.memory import Sharding, activation_bytes

    hw = hardware.for_instance("ml.trn1.32xlarge")
    tp = Sharding(tensor_parallel=8, sequence_parallel=True, eager_autocast=False)
    flash = Workload(params=int(7e9), shape=estimate_shape(7e9), seq_len=4096, kernels="compiled")
    unfused = replace(flash, attention="unfused")
    assert flash.fused_attention and not unfused.fused_attention
    shape, s = flash.shape, flash.seq_len
    per_block = shape.layers * shape.hidden * s / 8 * s  # this rank's share, one micro-batch
    rate = hw.bf16_flops * steptime.matmul_efficiency(hw.accelerator, shape.hidden / 8)
    scores = per_block / shape.hidden * shape.heads
    hbm = hw.hbm_bytes_per_s * steptime.HBM_EFFICIENCY

    fast, slow = (steptime.micro_batch(w, tp, hw) for w in (flash, unfused))
    unfused_flops_s = slow.forward_s + slow.backward_s - fast.forward_s - fast.backward_s
    flash_rate = hw.bf16_flops * steptime.attention_efficiency(hw.accelerator)
    assert unfused_flops_s == pytest.approx(12 * per_block / rate - 7 * per_block / flash_rate)
    assert unfused_flops_s > 0
    assert slow.memory_s - fast.memory_s == pytest.approx((8 + 14) * scores / hbm)
    dropped = steptime.micro_batch(replace(unfused, attention_dropout=True), tp, hw)
    assert dropped.memory_s - slow.memory_s == pytest.approx((3 + 1) * scores / hbm)
    # a fused kernel has no dropout traffic to add
    assert steptime.micro_batch(replace(flash, attention_dropout=True), tp, hw) == fast

    def selective(w: Workload) -> Workload:
        return replace(w, activation_checkpointing=True, selective_checkpointing=True)

    kept = steptime.micro_batch(selective(unfused), tp, hw)
    assert kept.backward_s == pytest.approx(slow.backward_s + 4 * per_block / rate)
    assert kept.memory_s - slow.memory_s == pytest.approx(8 * scores / hbm)

    # stored: the probabilities (2 bytes an element) in place of the fused kernel's fp32
    # log-sum-exp; under selective checkpointing neither
    def stored(w: Workload) -> float:
        return activation_bytes(w, tensor_parallel=8)

    log_sum_exp = 4 * shape.heads * s / 8 * shape.layers
    assert stored(unfused) - stored(flash) == pytest.approx(2 * scores - log_sum_exp)
    assert stored(selective(unfused)) == pytest.approx(stored(selective(flash)) - log_sum_exp)


def test_zero1_beside_tp_and_pipelines_are_offered_as_the_entry_point_runs_them():
    """--zero1 beside TP or PP (torch_zero1: Megatron's distributed optimizer): AdamW's state
    split over the data-parallel ranks, and under bf16 bf16 weights with their fp32 master there
    (12/dp bytes a parameter for the optimizer, 2 for the weights, 4 for the fp32 gradients)."""
    rec = plan(13e9, count=4, vocab=32_000)
    every = [rec.chosen, *rec.alternatives]
    zero1 = {c.family: c for c in every if c.family.startswith("zero1-tp")}
    assert set(zero1) == {"zero1-tp2", "zero1-tp4", "zero1-tp8"}
    tp2 = zero1["zero1-tp2"]
    assert (tp2.sharding.optimizer_over, tp2.sharding.weights_over) == (16, 1)
    assert tp2.sharding.master_weights and tp2.short == "TP2 SP + ZeRO-1 16"
    fsdp = next(c for c in every if c.family == "tp2")
    # ZeRO-1 keeps whole bf16 weights where FSDP keeps a shard of fp32 ones
    assert tp2.memory.weights > fsdp.memory.weights
    fp32 = plan(13e9, count=4, precision="fp32", vocab=32_000)  # fp32 weights: no master copy
    assert not any(c.sharding.master_weights for c in [fp32.chosen, *fp32.alternatives])
    # pipelines: every power-of-two depth whose stages × TP divide the 32 GPUs, ZeRO-1 beyond
    pipes = [c for c in every if c.sharding.pipeline_parallel > 1]
    assert {(c.sharding.pipeline_parallel, c.tensor_parallel) for c in pipes} == {
        (pp, tp) for tp in (2, 4, 8) for pp in (2, 4, 8, 16) if pp * tp <= 32
    }
    for c in pipes:
        dp = 32 // (c.sharding.pipeline_parallel * c.tensor_parallel)
        assert c.sharding.optimizer_over == dp and c.sharding.master_weights == (dp > 1)


def test_loss_parallel_where_tensor_parallelism_divides_the_vocabulary():
    """--loss_parallel splits the head and the logits by TP where the vocabulary divides."""
    even, odd = plan(13e9, count=2, vocab=32_000), plan(13e9, count=2, vocab=32_001)
    split = next(c for c in even.alternatives if c.family == "tp8")
    whole = next(c for c in odd.alternatives if c.family == "tp8")
    assert split.sharding.loss_parallel and not whole.sharding.loss_parallel
    assert split.memory.activations < whole.memory.activations
    assert split.memory.weights < whole.memory.weights  # 1/8 of the head


def test_alternatives_rank_by_throughput_where_the_catalog_has_no_price():
    """ml.p5e.48xlarge has no price in the catalog: tokens/s per instance still orders the
    alternatives (one instance type, so it orders them as tokens per dollar would)."""
    rec = plan(8e9, "ml.p5e.48xlarge", count=8, seq_len=8192, micro_batch=2, vocab=128_256)
    assert rec.chosen.speed(rec.workload).tokens_per_dollar is None
    fitting = [c for c in rec.ranked() if c.fits]
    speeds = [c.speed(rec.workload).tokens_per_s for c in fitting]
    assert len(speeds) > 3 and speeds == sorted(speeds, reverse=True)


@pytest.mark.parametrize(
    ("instance_type", "ranks", "per_rank_gb"),
    [
        ("ml.p6-b200.48xlarge", 8, 180),  # the B200's nominal 180 GB (no CUDA figure measured)
        ("ml.trn2.48xlarge", 64, 96 / 4),  # 96 GB a Trainium2 chip, 4 logical NeuronCores
        ("ml.p6e-gb200.36xlarge", 4, 185),  # AWS's published P6e-GB200 figures
    ],
)
def test_70b_on_this_generations_accelerators(instance_type, ranks, per_rank_gb):
    """recommend plans a 70B model on each device's own memory and peak (the catalog's)."""
    device = layouts.device(instance_type)
    assert (device.ranks_per_host, device.memory_gb) == (ranks, pytest.approx(per_rank_gb))
    rec = plan(70e9, instance_type)
    assert rec.chosen.fits and rec.chosen.memory.total <= device.usable_gb
    known = facts.instance(instance_type)
    rank = hardware.for_instance(instance_type)
    share = known["accelerators"] / ranks
    assert rank.bf16_flops == pytest.approx(known["bf16_tflops"] * 1e12 * share)
    assert rank.fp8_flops == pytest.approx(known["fp8_tflops"] * 1e12 * share)


def test_a_gpu_without_a_peak_figure_is_refused_with_the_reason():
    with pytest.raises(UsageError) as err:
        layouts.device("ml.p2.xlarge")
    assert "K80 has no bf16 or fp16 tensor units" in str(err.value)

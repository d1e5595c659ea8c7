"""recommend against the world: published measured training throughputs (torchtitan, llm-foundry,
AWS Neuron; tests/recommend/data/measured_throughput.json, a source per row), and DDP's
gradient buckets against a measured DDP run.

The figures asserted are the ones reached when the model was last calibrated (docs/recommend.md
shows the table: `.venv/bin/python -m tests.recommend.calibration`), so a change that makes the
model agree less with the world fails here. The issue's target is higher (85% within ±25%,
median error 12%, no layout that ran called "does not fit").
"""

from __future__ import annotations

import pytest

from sagelaunch.recommend.memory import Sharding, ddp_bucket_bytes, per_device
from tests.recommend.calibration import (
    check,
    holdout_rows,
    megatron_rows,
    memory_checks,
    planned,
    published,
    published_rank,
    rows,
    summarize,
)

# reached at calibration (2026-11): 32 of 35 within ±25%, median error 4.6% (7.9% before the
# torchtitan 8B rows' checkpointing became what torchtitan's per-op policy runs, which recomputes
# every second matmul; 8.3% before FlashAttention-2's H100 share became the FlashAttention-3
# paper's measured 32%, from a fitted 40%), no row over its device's memory (CUDA's capacity in
# 10^9 bytes; llm-foundry's fused loss) nor over the planner's usable share, now the whole device
# (hardware.HEADROOM; at 90% 6 rows were over it, ranked below layouts nobody ran); the published
# layout among recommend's top 3 for 33 of 35 (was 27)
WITHIN_25_AT_LEAST = 32 / 35
MEDIAN_ERROR_AT_MOST = 0.046
DOES_NOT_FIT_AT_MOST = 0
OVER_USABLE_AT_MOST = 0
PUBLISHED_IN_TOP3_AT_LEAST = 33


# Megatron-Core with Transformer Engine (tests/recommend/data/megatron_throughput.json: NeMo 24.07
# and Megatron-Bridge 25.11 FP8 on DGX-H100), issue #42's first holdout. Its residuals (12.3%
# median error, every row under-predicted, Llama 3 70B over its device) led to the model's
# Transformer Engine facts: cuDNN's attention at its published speed, fp8 linears keeping fp8
# inputs, the fused SwiGLU keeping its input, the interleaved schedule's in-flight activations,
# fp32 gradient buffers. They brought it to 8.3%, and the one constant fitted on these rows
# (NONMATMUL_BYTES["megatron"]) to 4.3%, 8 of 8 within ±25%, all within their devices; 2.6% since
# gradients reduce at the width they are kept in (bf16 without grad_reduce_in_fp32: the GPT-3 and
# Llama 2 rows), a rule read from Megatron's code, the constant not refitted.
MEGATRON_WITHIN_25_AT_LEAST = 8
MEGATRON_MEDIAN_ERROR_AT_MOST = 0.027

# the holdout (tests/recommend/data/holdout_throughput.json): published rows gathered after those
# changes, never used to fit anything. 5 Megatron-Core rows (NeMo 24.07's Nemotron 8B/22B/340B,
# Megatron-Bridge's Llama 3 8B with Megatron-FSDP and 70B at another batch) and 12 from the
# sources of the calibration rows that the calibration does not hold (llm-foundry's MPT at 256-512
# H100s, 32K tokens, fp8 at 8K, A100s; torchtitan's async-TP benchmark's vanilla TP, Llama 3.1 8B
# fp8 on H200s). Issue #42's goal there: at least 85% within ±25%, a median error of at most 12%,
# no layout that ran called too big, the published layout among the top 3 for 85%. History of the
# first 18 rows: 13 of 17 and 13.9% as gathered; 14 and 11.1% after FlashAttention-2's measured
# H100 share; 15 and 8.1% after torchtitan's per-op checkpointing (a fact read from its source, no
# constant fitted, but found while its rows were over-predicted here: docs/recommend.md says so);
# one row gathered after that change and evaluated on it unchanged (NeMo's Nemotron-15B, 0.85 of
# measured). Top 3: 12 of 18 until the entry point ran Megatron's layouts (ZeRO-1 beside TP and
# PP with bf16 weights, a vocabulary-parallel loss: built for the 5 Megatron-Core rows these
# tables showed it could not plan) and alternatives were ranked by throughput where the catalog
# has no price (the H200 rows' p5e): 16 of 18, both after reading them. Then 11 rows gathered by a
# rule fixed before looking (NVIDIA's Megatron-Core tables, other releases) and evaluated once on
# d45b814 unchanged: 11 of 11 within ±25%, median error 15.1% (under-predicted: 0.85), the
# published layout among the top 3 for 4 of 11: the honest out-of-sample figure, and the goal it
# misses (Megatron's deep interleaved pipelines rank 6th to 11th behind TP × FSDP and shallower
# pipelines, several of which the entry point needs more memory for: whole embeddings, no
# interleaving). All 29: 27 within ±25% (93%), median error 12.0%, top 3 for 20 (69%). Then,
# after reading those 11, the entry point split the token embedding by vocabulary over TP (as
# torchtitan and Megatron do): Megatron's Llama 3 70B and GPT-3 175B pipelines fit and rank
# second or third, 27 of 29 (93%), not an out-of-sample figure. Then 59 rows gathered by a rule
# fixed before looking (every row of fms-fsdp's README tables, the pytorch.org float8-and-FSDP2
# post, AWS Neuron's Trn1 decoder table and torchtitan's performance page and benchmarks that the
# data did not hold) and evaluated once on 5a9ce0e unchanged: 46 of 59 within ±25% (78%), median
# error 12.3%, top 3 for 44 (75%): the second out-of-sample figure, and all three goals missed.
# After reading them, two rules from the frameworks' code (no constant fitted): HSDP all-reduces
# each unit's shard under the backward still to come, and gradients cross the wire at the width
# they reduce in (fms-fsdp's bf16 reduce_dtype; bf16 weights without an fp32 buffer): 54 of 59,
# 7.7%; top 3 still 44 (neuronx-distributed's 13 TP × PP layouts and torchtitan's 2 pipelines over
# FSDP are no candidate of the planner). All 88: 81 within ±25% (92%), median error 9.7%, top 3
# for 71 (81%, below the goal). Then the rest of AWS Neuron's Trn1 tables under the same rule (28
# rows the first gather left for time: NeMo's GPT-3 23B/46B/175B and Llama 2, Megatron-LM's GPT-3
# 6.7B, Neuron 2.3 to 2.18), evaluated once on 04afee5 (their plain data parallelism written as
# "dp" first): 16 of 28 within ±25%, median error 20.6%, over-predicted (1.21: older releases,
# GPT-3 6.7B ran 808 to 1,150 tokens/s from 2.3 to 2.13), 10 called too big, top 3 for 12 (their
# pipelines are no Trainium candidate). After reading them the model keeps the tables' "BF16+SR"
# (full BF16 with stochastic rounding: bf16 moments, no fp32 master): none too big. All 116: 97
# within ±25% (84%, below the goal), median error 10.7%, none too big, top 3 for 83 (72%). Then,
# also after reading them, the 37 Neuron rows before release 2.19 (NeMo's, Megatron-LM's and
# neuronx-distributed's: the release that brought Neuron a flash attention kernel for training)
# carry the attention their code ran, "unfused" (every score through memory; dropout where their
# config runs it), where the gathering had copied "flash": those 37 go from 25 within ±25% (16.6%,
# 1.15) to 34 (11.4%, 1.00), the unfused matmuls at the block's rate (at the matmul curve's rate
# for one head's width, 103 of 116; the byte count took three tries, docs/recommend.md lists
# them). All 116: 106 within ±25% (91%), median error 10.3%, none too big, top 3 for 83 (72%,
# below the goal: Neuron's TP × PP layouts are Trainium candidates only where no TP degree fits,
# and there its TP 32 pipelines rank 5th to 7th, behind TP 16 ones). Then a Trainium TP group
# rings over its chips on the torus links its cycles use (Neuron's collectives page): 106, 9.7%.
# Then three rules read from the frameworks' code, none fitted, the last two found while reading
# these rows' rankings: TP degrees divide the attention heads (the entry point and
# neuronx-distributed refuse others: Llama 2 13B lost TP 16 and 32 on Trainium), Neuron 2.20's
# fp32 gradient buffer under ZeRO-1 (Llama 2 70B's TP 32 alone no longer fits, its pipelines are
# offered), and a pipeline runs at its busiest stage's pace (80 layers on 32 stages: 3 a stage):
# 106, 9.7%, top 3 for 86 (74%, below the goal; GPT-3 175B's TP 32 pipelines rise to 3rd).
# Then a fourth, from the same code: where TP outnumbers the key/value heads neuronx-distributed
# copies them until each rank holds a whole one (kv_size_multiplier, 4 for 8 heads on TP 32),
# which the model now holds and computes: the TP 32 Llama rows fall 3-7% (8B 0.87-0.97 of
# measured to 0.81-0.90; the calibration's from 1.11 to 1.03), the median to 9.9%, the counts
# unchanged. Held, not fitted away: it says the Trainium width curve may be too steep at TP 32.
HOLDOUT_WITHIN_25_AT_LEAST = 106
HOLDOUT_MEDIAN_ERROR_AT_MOST = 0.099
HOLDOUT_PUBLISHED_IN_TOP3_AT_LEAST = 86
HOLDOUT_DOES_NOT_FIT_AT_MOST = 0


@pytest.fixture(scope="module")
def checks():
    return [check(row) for row in rows()]


def test_every_row_names_its_source():
    for row in rows():
        assert row["source"]["url"].startswith("https://") and row["source"]["title"]
        assert row["tokens_per_s_per_gpu"] > 0


def test_holdout_and_megatron_rows_name_their_source_and_quote():
    for row in holdout_rows() + megatron_rows():
        # one stored copy is a plain-http mirror of NVIDIA's page (its title says so)
        assert row["source"]["url"].startswith(("https://", "http://")) and row["source"]["title"]
        assert row["quote"] and row["derived"]
        assert row["tokens_per_s_per_gpu"] > 0


def test_holdout_does_not_regress():
    """recommend against published rows kept outside the calibration (goal: 85% within ±25%,
    median error 12%, none that ran called too big; the fence holds what it reaches today)."""
    summary = summarize([check(row) for row in holdout_rows()])
    assert summary.within_25 >= HOLDOUT_WITHIN_25_AT_LEAST, summary
    assert summary.median_error <= HOLDOUT_MEDIAN_ERROR_AT_MOST, summary
    assert summary.does_not_fit <= HOLDOUT_DOES_NOT_FIT_AT_MOST, summary


def test_holdout_published_layout_among_the_top_three():
    ranks = {row["id"]: published_rank(row) for row in holdout_rows()}
    hits = sum(rank is not None and rank < 3 for rank in ranks.values())
    assert hits >= HOLDOUT_PUBLISHED_IN_TOP3_AT_LEAST, ranks


# Memory, where the source reports it beside the throughput (torchtitan's rows: the allocator's
# peak reserved memory per GPU, so fragmentation included): the model's total within ±25% for all
# 10. It was 4: torchtitan's per-op checkpointing keeps about half of what the model's "selective"
# kept (the H200 rows were at 1.71); the 405B 3D layout was at 0.37 before FSDP under torch's
# pipelining kept its stage gathered and its gradients unsharded in fp32 (the oracle's pp2-fsdp-4
# cell); the 2024 rows' uncompiled cross_entropy holds two fp32 logit-sized gradients in backward
# (the oracle's 128K-vocabulary cell), without which the 8B rows were at 0.79-0.86 and 70B at 0.71.
# 9 of 10 since the token embedding is split by vocabulary over TP, as torchtitan splits it (and
# the oracle's TP cells measure): the 405B stage fell from 0.84 to 0.67, so what else its first
# stage holds is not modelled; its 0.84 had come from keeping a whole 2.1B-parameter table.
# 12 of 13 with the holdout's three torchtitan rows of 2026-11-26, out of sample (8B at 32K
# tokens 1.00, 405B interleaved 0.79, 405B at 32K tokens 0.94).
MEMORY_ROWS = 13
MEMORY_WITHIN_25_AT_LEAST = 12


def test_modelled_memory_agrees_with_what_the_sources_report(checks):
    held = [check(row) for row in holdout_rows()]
    pairs = memory_checks(checks + held)
    within = sum(abs(c.memory_gb / reported - 1) <= 0.25 for c, reported in pairs)
    assert len(pairs) == MEMORY_ROWS and within >= MEMORY_WITHIN_25_AT_LEAST, [
        (c.row["id"], round(c.memory_gb / reported, 2)) for c, reported in pairs
    ]


def test_megatron_rows_do_not_regress():
    """Megatron-Core's rows, on which the megatron kernel kind is fitted."""
    summary = summarize([check(row) for row in megatron_rows()])
    assert summary.within_25 >= MEGATRON_WITHIN_25_AT_LEAST, summary
    assert summary.median_error <= MEGATRON_MEDIAN_ERROR_AT_MOST, summary
    assert summary.does_not_fit == 0, summary


def test_the_holdout_shares_no_row_with_what_was_fitted():
    """The holdout's rows are neither the calibration's nor the rows the Transformer Engine facts
    were built on; the megatron kernel kind is fitted on Megatron-Core's rows only."""
    held = {r["id"] for r in holdout_rows()}
    assert not held & {r["id"] for r in megatron_rows()}
    assert not held & {r["id"] for r in rows()}
    assert all(row["kernels"] == "megatron" for row in megatron_rows())


def test_within_25_percent_share_does_not_regress(checks):
    summary = summarize(checks)
    assert summary.within_25_share >= WITHIN_25_AT_LEAST - 1e-9, summary


def test_median_error_does_not_regress(checks):
    assert summarize(checks).median_error <= MEDIAN_ERROR_AT_MOST


def test_layouts_that_ran_are_not_called_too_big(checks):
    assert summarize(checks).does_not_fit <= DOES_NOT_FIT_AT_MOST


def test_layouts_that_ran_stay_within_the_usable_share(checks):
    """Above the planner's HEADROOM share recommend calls a layout 'does not fit': no layout that
    ran is (torchtitan 8B on 8 GPUs, MPT 7B with 6 sequences and MPT 3B on 40 GB were, at 90%)."""
    assert summarize(checks).over_usable <= OVER_USABLE_AT_MOST


def test_published_layout_among_the_top_three():
    """The planner, run for each row's model, run and instance count as `recommend` would be,
    ranks the layout that was published among the first three it shows (issue #42's target:
    85%; the misses: PP combined with FSDP, and PP on Neuron, which the ladder does not offer)."""
    ranks = {row["id"]: published_rank(row) for row in rows()}
    hits = sum(rank is not None and rank < 3 for rank in ranks.values())
    assert hits >= PUBLISHED_IN_TOP3_AT_LEAST, ranks


def test_published_match_reads_the_layout():
    """`published` tells the published layout from its neighbours (not a pass for anything)."""
    row = next(r for r in rows() if r["id"] == "mpt-70b-h100-64gpu-seq2048-bf16")
    shown = planned(row)
    assert sum(published(c, row) for c in shown) == 1
    assert not published(shown[0], row)  # hybrid shard 32 x2 is not FSDP over all 64


def test_neither_side_dominates(checks):
    """The median ratio stays near 1: neither optimistic nor pessimistic across the rows."""
    assert 0.9 <= summarize(checks).median_ratio <= 1.1


def test_communication_shows_where_it_should(checks):
    by_id = {c.row["id"]: c for c in checks}
    assert (
        by_id["torchtitan-8b-fsdp8"].timed.communication_s
        < 0.05 * by_id["torchtitan-8b-fsdp8"].timed.seconds
    )  # FSDP in one instance: hidden by compute
    assert (
        by_id["torchtitan-70b-fsdp32-tp8"].timed.communication_s
        > 0.1 * by_id["torchtitan-70b-fsdp32-tp8"].timed.seconds
    )  # TP on the critical path
    assert by_id["torchtitan-405b-fsdp8-tp8-pp8"].timed.bubble_s > 0


@pytest.mark.slow
def test_ddp_bucket_bytes_match_a_measured_ddp_run():
    """Two gloo ranks on the CPU, 8M parameters: what one rank gains over forward and backward
    is the gradients (4 B/param) with gradient_as_bucket_view, and the buckets on top without;
    the model's gradients plus ddp_bucket_bytes within 10% of each."""
    pytest.importorskip("torch")
    from sagelaunch.recommend.workload import Shape, Workload
    from tests.recommend.ddp_buckets_driver import measure

    measured = measure(8e6)
    # a stack of linears: no embeddings to speak of (a vocabulary of 8, one position)
    shape = Shape(8, 1024, 8, estimated=False)
    work = Workload(params=measured["params"], shape=shape, seq_len=1, vocab=8)
    ddp = Sharding()
    gradients = per_device(work, ddp).gradients * 1e9
    grads_only = 4 * measured["params"]
    assert gradients == pytest.approx(grads_only, rel=0.05)
    for view, key in ((True, "view"), (False, "copy")):
        predicted = grads_only + ddp_bucket_bytes(work, ddp, bucket_view=view)
        assert predicted == pytest.approx(measured[key], rel=0.10), (key, measured)

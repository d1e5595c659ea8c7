"""`sagelaunch validate`/`plan` and the PyTorch entry point agree on every device mesh.

The CLI decodes a launch config's hyperparameters (cli/sagelaunch/plan/mesh.py); the job parses
them into its TrainConfig (torch_config.resolve_layout). Both must give the same dims for every
layout, and refuse the same ones, or a config that validates would fail at start (or the
reverse).
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from sagelaunch.plan.mesh import mesh_dims

PARALLEL = ("ddp", "fsdp", "dp", "ps")
SHARDING = ("full", "hybrid")
# A model every degree below splits: 12 heads, 4 layers, a batch of 8 (2 micro-batches).
MODEL = {"model": "gpt", "n_head": 12, "n_layer": 4, "batch_size": 8}


def layouts():
    for hosts, per_host in itertools.product((1, 2, 3), (1, 2, 4, 8)):
        for tp, pp, parallel, sharding, replicate in itertools.product(
            (1, 2, 3, 4), (1, 2), PARALLEL, SHARDING, (0, 1, 2, 3)
        ):
            hps = {
                "tensor_parallel_degree": tp,
                "pipeline_parallel_degree": pp,
                "parallel": parallel,
                "sharding": sharding,
                "dp_replicate": replicate,
            }
            yield hosts, per_host, hps


def job_layout(torch_config, smenv, hps, world, per_host):
    cfg = torch_config.TrainConfig(**MODEL, **hps)
    try:
        return dataclasses.asdict(torch_config.resolve_layout(cfg, world, per_host))
    except smenv.UsageError:
        return "refused"


def cli_layout(hps, world, per_host):
    # As a launch config carries them: SageMaker's strings.
    found = mesh_dims({k: str(v) for k, v in hps.items()}, world, per_host)
    return "refused" if isinstance(found, list) else dataclasses.asdict(found)


def test_the_cli_and_the_entry_point_agree_on_every_layout(entrypoints_on_path):
    import smenv
    import torch_config

    checked = refused = 0
    for hosts, per_host, hps in layouts():
        world = hosts * per_host
        job = job_layout(torch_config, smenv, hps, world, per_host)
        assert cli_layout(hps, world, per_host) == job, (hosts, per_host, hps)
        checked, refused = checked + 1, refused + (job == "refused")
    assert checked == 3 * 4 * 4 * 2 * 4 * 2 * 4 and 0 < refused < checked


@pytest.mark.parametrize(
    ("hps", "mentions"),
    [
        ({"parallel": "dp"}, "parallel: dp (DataParallel) runs in one process"),
        ({"parallel": "fsdp", "sharding": "hybrid"}, "sharding: hybrid needs 2"),
    ],
)
def test_validate_refuses_what_the_job_would(cli, make_config, hps, mentions):
    """Keys the CLI once ignored: DataParallel beyond one process, hybrid sharding that does not
    split into hosts (2 × 4 A10G, tensor parallel 4: 2 data-parallel ranks, hosts of 4)."""
    config = make_config(
        {
            "compute": {"instance_type": "ml.g5.12xlarge", "instance_count": 2},
            "distribution": {"strategy": "torchrun"},
            "hyperparameters": {"tensor_parallel_degree": 4, **hps},
        }
    )
    result = cli("validate", config)
    assert result.exit_code != 0 and mentions in result.output, result.output

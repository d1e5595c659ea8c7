"""Heterogeneous local runs: every instance group's hosts, the toolkit's own instance-group
environment on each (checked against ``sagemaker_training.environment``), the launcher only on
the training group, channels only on the groups that receive them."""

from __future__ import annotations

import json
import re

import pytest

from tests.local.conftest import (
    CHANNEL_GPT,
    TWO_HOST_TORCHRUN,
    pytorch_config,
    read_json,
    run_local,
)
from tests.local.test_toolkit_oracle import DUMP_ENV, _diff, toolkit_env
from tests.local.tokens import write_tokens

GROUP_VARIABLES = (
    "SM_CURRENT_INSTANCE_GROUP",
    "SM_CURRENT_INSTANCE_GROUP_HOSTS",
    "SM_INSTANCE_GROUPS",
    "SM_INSTANCE_GROUPS_DICT",
    "SM_DISTRIBUTION_INSTANCE_GROUPS",
    "SM_IS_HETERO",
    "SM_CURRENT_INSTANCE_TYPE",
)
DUMP_RANKS = DUMP_ENV.replace(
    '("TRAINING_JOB_NAME", "MASTER_ADDR", "CURRENT_HOST")',
    '("TRAINING_JOB_NAME", "MASTER_ADDR", "CURRENT_HOST", "RANK", "WORLD_SIZE")',
)


@pytest.mark.slow
def test_every_group_host_gets_the_toolkits_instance_group_environment(write_config, tmp_path):
    data = tmp_path / "data"
    for index in range(2):
        (data / "train" / f"part-{index}.bin").parent.mkdir(parents=True, exist_ok=True)
        (data / "train" / f"part-{index}.bin").write_bytes(bytes(8))
    (data / "validation.csv").write_text("0,1,2\n")
    config = write_config(
        {
            "name": "hetero-oracle",
            "framework": "pytorch",
            "entry_point": "dump_env.py",
            "source_dir": "code",
            "framework_version": "2.2.0",
            "compute": {
                "groups": [
                    {"name": "data_group", "instance_type": "ml.c5.xlarge", "instance_count": 1},
                    {"name": "dnn_group", "instance_type": "ml.g5.xlarge", "instance_count": 4},
                ]
            },
            "distribution": {"strategy": "torchrun", "groups": ["dnn_group"]},
            "hyperparameters": {"lr": 0.001},
            "inputs": {
                "train": {"uri": "s3://bucket/train/", "groups": ["data_group"]},
                "validation": {"uri": f"file://{data / 'validation.csv'}"},
            },
            "local": {"inputs": {"train": "data/train"}},
        },
        code={"dump_env.py": DUMP_RANKS},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--keep", "--output", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert [h["host"] for h in json.loads(done.stdout)["hosts"]] == ["algo-1", "algo-2", "algo-3"]
    seen = {}
    for host in ("algo-1", "algo-2", "algo-3"):
        tree = tmp_path / "run" / host
        received = read_json(tree / "output" / "data" / "env.json")
        oracle = tmp_path / "run" / f"{host}-oracle.json"
        expected = toolkit_env(tree, "pytorch", oracle, received["other"]["TRAINING_JOB_NAME"])
        assert received["sm"] == expected, _diff(received["sm"], expected)
        seen[host] = received
    data_host, trainers = seen["algo-1"], [seen["algo-2"], seen["algo-3"]]
    # The toolkit's own answer for the data host, spelled out once.
    assert {k: data_host["sm"][k] for k in GROUP_VARIABLES} == {
        "SM_CURRENT_INSTANCE_GROUP": "data_group",
        "SM_CURRENT_INSTANCE_GROUP_HOSTS": '["algo-1"]',
        "SM_INSTANCE_GROUPS": '["data_group","dnn_group"]',
        "SM_INSTANCE_GROUPS_DICT": json.dumps(
            {
                "data_group": {
                    "hosts": ["algo-1"],
                    "instance_group_name": "data_group",
                    "instance_type": "ml.c5.xlarge",
                },
                "dnn_group": {
                    "hosts": ["algo-2", "algo-3"],
                    "instance_group_name": "dnn_group",
                    "instance_type": "ml.g5.xlarge",
                },
            },
            sort_keys=True,
            separators=(",", ":"),
        ),
        "SM_DISTRIBUTION_INSTANCE_GROUPS": '["dnn_group"]',
        "SM_IS_HETERO": "true",
        "SM_CURRENT_INSTANCE_TYPE": "ml.c5.xlarge",
    }
    assert trainers[0]["sm"]["SM_CURRENT_INSTANCE_GROUP"] == "dnn_group"
    # torchrun spans the training group only (world size 2); the data host runs plainly.
    assert data_host["other"]["RANK"] is None
    assert sorted(t["other"]["RANK"] for t in trainers) == ["0", "1"]
    assert {t["other"]["WORLD_SIZE"] for t in trainers} == {"2"}
    # The train channel reaches the data group only; validation reaches every host.
    run = tmp_path / "run"
    assert sorted(p.name for p in (run / "algo-1/input/data/train").iterdir()) == [
        "part-0.bin",
        "part-1.bin",
    ]
    for trainer in ("algo-2", "algo-3"):
        assert not (run / trainer / "input/data/train").exists()
        assert (run / trainer / "input/data/validation/validation.csv").is_file()
    assert "SM_CHANNEL_TRAIN" in data_host["sm"] and "SM_CHANNEL_TRAIN" not in trainers[0]["sm"]


LOSS = re.compile(r"\[(algo-\d)\] step=(\d+) train_loss=([0-9.eE+-]+)")


def _losses(stderr: str) -> tuple[set[str], dict[int, float]]:
    found = LOSS.findall(stderr)
    return {host for host, _, _ in found}, {int(step): float(loss) for _, step, loss in found}


@pytest.mark.slow
@pytest.mark.xdist_group(TWO_HOST_TORCHRUN)  # its homogeneous run is test_runs.py's too
def test_offloaded_data_gives_the_homogeneous_runs_losses(
    write_config, tmp_path, two_host_torchrun
):
    """1 data host + 2 training hosts == 2 homogeneous hosts, step by step: the training hosts
    hold no data, so every batch they train on came from the data host. Tolerance: 1e-6
    relative (the batches are identical, so the losses are in practice bit-identical). The
    homogeneous run, the same hyperparameters (CHANNEL_GPT) and tokens (write_tokens' defaults),
    is the session's shared one (conftest.py)."""
    write_tokens(tmp_path / "tokens")
    local = {"inputs": {"train": "tokens"}}
    groups = {
        "groups": [
            {"name": "data_group", "instance_type": "ml.c5.xlarge", "instance_count": 1},
            {"name": "dnn_group", "instance_type": "ml.g5.xlarge", "instance_count": 2},
        ]
    }
    hetero = write_config(
        pytorch_config(
            hyperparameters=dict(CHANNEL_GPT),
            compute=groups,
            distribution={"strategy": "torchrun", "groups": ["dnn_group"]},
            inputs={"train": {"uri": "s3://bucket/tokens/", "groups": ["data_group"]}},
            local=local,
        ),
        name="hetero.yaml",
    )
    _, plain = two_host_torchrun
    assert plain.returncode == 0, plain.stderr[-3000:]
    fed = run_local(hetero, "--workdir", str(tmp_path / "fed"), "--keep")
    assert fed.returncode == 0, fed.stderr[-3000:]
    plain_hosts, expected = _losses(plain.stderr)
    fed_hosts, got = _losses(fed.stderr)
    assert plain_hosts == {"algo-1"} and fed_hosts == {"algo-2"}  # rank 0 logs
    assert sorted(got) == sorted(expected) == [1, 2, 3, 4]
    for step, loss in expected.items():
        assert got[step] == pytest.approx(loss, rel=1e-6), step
    assert "[algo-1] data host algo-1: fed 2 training ranks" in fed.stdout + fed.stderr
    run = tmp_path / "fed"
    assert len(list((run / "algo-1/input/data/train").iterdir())) == 3
    assert not (run / "algo-2/input/data").joinpath("train").exists()
    assert not (run / "algo-3/input/data").joinpath("train").exists()
    assert (run / "model.tar.gz").is_file()


LIST_CHANNELS = """\
import json, os, pathlib

channel = os.environ.get("SM_CHANNEL_TRAIN")
seen = {
    "channels": json.loads(os.environ["SM_CHANNELS"]),
    "train": sorted(p.name for p in pathlib.Path(channel).iterdir()) if channel else None,
}
out = pathlib.Path(os.environ["SM_OUTPUT_DATA_DIR"])
out.mkdir(parents=True, exist_ok=True)
(out / "seen.json").write_text(json.dumps(seen))
"""


@pytest.mark.slow
def test_a_sharded_channel_is_dealt_over_its_groups_hosts_only(write_config, tmp_path):
    """5 hosts, the sharded channel for the second group's 3: as each host's script sees it,
    those 3 hold the 7 files between them, each file once; the first group's hosts have no
    such channel (SM_CHANNELS, inputdataconfig.json, /opt/ml/input/data)."""
    data = tmp_path / "data" / "train"
    data.mkdir(parents=True)
    for index in range(7):
        (data / f"part-{index}.csv").write_text(f"{index}\n")
    config = write_config(
        {
            "name": "hetero-sharded",
            "framework": "pytorch",
            "entry_point": "list_channels.py",
            "source_dir": "code",
            "framework_version": "2.2.0",
            "compute": {
                "groups": [
                    {"name": "dnn_group", "instance_type": "ml.g5.xlarge", "instance_count": 2},
                    {"name": "data_group", "instance_type": "ml.c5.xlarge", "instance_count": 3},
                ]
            },
            "inputs": {
                "train": {
                    "uri": "s3://bucket/train/",
                    "distribution": "sharded",
                    "groups": ["data_group"],
                }
            },
            "local": {"hosts": 3, "inputs": {"train": "data/train"}},
        },
        code={"list_channels.py": LIST_CHANNELS},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    run = tmp_path / "run"
    seen = {
        h: read_json(run / h / "output/data/seen.json")
        for h in sorted(p.name for p in run.glob("algo-*"))
    }
    assert list(seen) == ["algo-1", "algo-2", "algo-3", "algo-4", "algo-5"]
    for host in ("algo-1", "algo-2"):
        assert seen[host] == {"channels": [], "train": None}
        assert read_json(run / host / "input/config/inputdataconfig.json") == {}
        assert not (run / host / "input/data/train").exists()
    shares = [seen[host]["train"] for host in ("algo-3", "algo-4", "algo-5")]
    assert all(seen[h]["channels"] == ["train"] for h in ("algo-3", "algo-4", "algo-5"))
    assert shares == [
        ["part-0.csv", "part-3.csv", "part-6.csv"],
        ["part-1.csv", "part-4.csv"],
        ["part-2.csv", "part-5.csv"],
    ]
    dealt = [name for share in shares for name in share]
    assert sorted(dealt) == sorted(p.name for p in data.iterdir()) and len(set(dealt)) == 7
    shard = read_json(run / "algo-3/input/config/inputdataconfig.json")["train"]
    assert shard["S3DistributionType"] == "ShardedByS3Key"

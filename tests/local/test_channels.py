"""Channels: sources, shares (sharded = disjoint and complete, replicated = everything), copies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sagelaunch.config.loader import load
from sagelaunch.errors import ConfigError
from sagelaunch.local import channels
from sagelaunch.local.tree import HostTree, input_data_config
from tests.local.data import write_dataset

FILES = [channels.DataFile(f"part-{i:03d}.csv", f"/data/part-{i:03d}.csv") for i in range(7)]


@pytest.mark.parametrize("hosts", [1, 2, 3, 7, 9])
def test_sharded_shares_are_disjoint_and_complete(hosts):
    shares = [channels.share(FILES, i, hosts, sharded=True) for i in range(hosts)]
    keys = [f.key for share in shares for f in share]
    assert sorted(keys) == [f.key for f in FILES]  # every file once: disjoint and complete
    assert len(keys) == len(set(keys))
    sizes = [len(share) for share in shares]
    assert max(sizes) - min(sizes) <= 1  # about 1/n each
    if hosts > len(FILES):
        assert sizes[len(FILES) :] == [0] * (hosts - len(FILES))


def test_sharding_deals_sorted_keys_round_robin():
    shares = [[f.key for f in channels.share(FILES, i, 3, sharded=True)] for i in range(3)]
    assert shares[0] == ["part-000.csv", "part-003.csv", "part-006.csv"]
    assert shares[1] == ["part-001.csv", "part-004.csv"]


@pytest.mark.parametrize("hosts", [1, 2, 3])
def test_replicated_gives_every_host_everything(hosts):
    for index in range(hosts):
        assert channels.share(FILES, index, hosts, sharded=False) == FILES


def _trees(tmp_path: Path, count: int) -> list[HostTree]:
    return [HostTree(f"algo-{i + 1}", tmp_path / "run" / f"algo-{i + 1}") for i in range(count)]


def _channel_files(tree: HostTree, name: str) -> list[str]:
    root = tree.channel(name)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_populate_local_folders(tmp_path, make_config):
    data = write_dataset(tmp_path / "data", train_files=5, rows_per_file=3)
    (data / "train" / "nested").mkdir()
    (data / "train" / "nested" / "part-999.csv").write_text("1,2\n")
    before = {p: p.read_bytes() for p in data.rglob("*") if p.is_file()}
    loaded = load(
        make_config(
            {
                "inputs": {
                    "train": {"uri": "s3://bucket/train/", "distribution": "sharded"},
                    "validation": f"file://{data / 'validation'}",
                },
                "local": {"inputs": {"train": "data/train"}},
            }
        )
    )
    sources = channels.sources(loaded)
    assert sources["train"] == channels.Source("train", str(data / "train"), sharded=True)
    trees = _trees(tmp_path, 2)
    counts = channels.populate(trees, sources, tmp_path / "cache", _no_s3)
    assert counts == {"train": [3, 3], "validation": [1, 1]}
    first, second = (_channel_files(t, "train") for t in trees)
    assert not set(first) & set(second)
    assert sorted(first + second) == sorted(
        p.relative_to(data / "train").as_posix() for p in (data / "train").rglob("*.csv")
    )
    assert all(_channel_files(t, "validation") == ["part-000.csv"] for t in trees)
    assert {p: p.read_bytes() for p in data.rglob("*") if p.is_file()} == before


def _no_s3() -> channels.ObjectStore:
    raise AssertionError("no S3 channel in this test")


def test_file_system_channel_needs_a_local_input(make_config):
    fsx = {"type": "FSxLustre", "id": "fs-0123456789abcdef0", "path": "/fsx/data"}
    loaded = load(make_config({"inputs": {"fsx": {"file_system": fsx}}}))
    with pytest.raises(ConfigError) as caught:
        channels.sources(loaded)
    [problem] = caught.value.problems
    assert problem.path == "inputs.fsx.file_system" and problem.line > 1
    assert "local.inputs.fsx" in problem.message


def test_missing_local_path_is_a_located_error(make_config):
    loaded = load(
        make_config(
            {
                "inputs": {"train": "s3://bucket/train/"},
                "local": {"inputs": {"train": "nowhere/"}},
            }
        )
    )
    with pytest.raises(ConfigError) as caught:
        channels.sources(loaded)
    assert caught.value.problems[0].path == "local.inputs.train"
    assert "no such file or folder" in caught.value.problems[0].message


@pytest.fixture
def moto_s3(monkeypatch):
    from moto.server import ThreadedMotoServer

    from sagelaunch.local.ports import free_port

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    for key, value in {
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)
    yield
    server.stop()


@pytest.mark.integration
def test_populate_from_s3_through_a_moto_server(moto_s3, tmp_path, make_config):
    import boto3  # the test's own client: sagelaunch's is trimmed to the calls it makes

    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="data")
    keys = [f"train/part-{i}.csv" for i in range(5)] + ["train/sub/x.csv", "other/y.csv"]
    for key in keys:
        s3.put_object(Bucket="data", Key=key, Body=key.encode())
    s3.put_object(Bucket="data", Key="train/folder/", Body=b"")
    loaded = load(
        make_config(
            {
                "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 2},
                "inputs": {
                    "train": {"uri": "s3://data/train/", "distribution": "sharded"},
                    "all": "s3://data/train",
                },
            }
        )
    )
    trees = _trees(tmp_path, 2)
    counts = channels.populate(
        trees, channels.sources(loaded), tmp_path / "cache", lambda: channels.S3Store("us-east-1")
    )
    assert counts == {"train": [3, 3], "all": [6, 6]}
    first, second = (_channel_files(t, "train") for t in trees)
    assert first == ["part-0.csv", "part-2.csv", "part-4.csv"]
    assert second == ["part-1.csv", "part-3.csv", "sub/x.csv"]
    assert (trees[1].channel("train") / "sub" / "x.csv").read_bytes() == b"train/sub/x.csv"
    assert _channel_files(trees[0], "all") == sorted(first + second)
    assert os.stat(trees[0].channel("all") / "part-0.csv").st_size == len("train/part-0.csv")


def test_each_host_gets_a_private_copy_never_a_link(tmp_path):
    original = tmp_path / "data" / "rows.csv"
    original.parent.mkdir()
    original.write_text("1,2\n")
    copies = [tmp_path / host / "rows.csv" for host in ("algo-1", "algo-2")]
    for copy in copies:
        channels.private_copy(original, copy)
    with copies[0].open("a") as handle:  # a script appending to its input file
        handle.write("3,4\n")
    assert original.read_text() == copies[1].read_text() == "1,2\n"
    assert copies[0].read_text() == "1,2\n3,4\n"
    assert original.stat().st_nlink == 1
    assert original.stat().st_mtime == copies[1].stat().st_mtime  # copied with its times


def test_an_s3_channel_without_credentials_names_the_channel_and_local_inputs(write_config):
    """No credentials on this machine (none in the environment, no shared files): the run stops
    before any host, naming the channel, its URI and the local copy that needs none."""
    from tests.local.conftest import clean_env, pytorch_config, run_local

    config = write_config(
        pytorch_config(
            compute={"instance_type": "ml.c5.xlarge", "instance_count": 1},
            distribution={"strategy": "none"},
            inputs={"train": "s3://bucket/train/"},
        )
    )
    env = clean_env(
        AWS_CONFIG_FILE="/nonexistent/config", AWS_SHARED_CREDENTIALS_FILE="/nonexistent/creds"
    )
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        env.pop(name, None)
    done = run_local(config, env=env)
    assert done.returncode == 3, done.stderr
    assert "channel train reads s3://bucket/train/ from S3: no AWS credentials found" in (
        done.stderr
    )
    assert "local.inputs: {train: ./data/train}" in done.stderr
    assert "[algo-1]" not in done.stderr  # no host started


def test_a_group_only_channel_is_dealt_over_that_groups_hosts_alone(tmp_path, make_config):
    """Instance groups, planned as for a real run: a sharded channel named for one group is dealt
    round-robin over that group's hosts only (each file to exactly one of them, all files
    delivered); a replicated one gives each of them everything; the other group's hosts get
    neither (no folder, no inputdataconfig.json entry). The receiving group is listed second, so
    its hosts are not the cluster's first: dealing over every host would lose files."""
    from sagelaunch.local import group_hosts, preflight
    from sagelaunch.local.options import Options
    from sagelaunch.services.local_run import local_plan

    data = write_dataset(tmp_path / "data", train_files=7, rows_per_file=2)
    loaded = load(
        make_config(
            {
                "compute": {
                    "instance_type": None,
                    "instance_count": None,
                    "groups": [
                        {"name": "dnn_group", "instance_type": "ml.g5.xlarge", "instance_count": 2},
                        {
                            "name": "data_group",
                            "instance_type": "ml.c5.xlarge",
                            "instance_count": 3,
                        },
                    ],
                },
                "distribution": {"strategy": "torchrun", "groups": ["dnn_group"]},
                "inputs": {
                    "train": {
                        "uri": "s3://bucket/train/",
                        "distribution": "sharded",
                        "groups": ["data_group"],
                    },
                    "validation": {"uri": "s3://bucket/validation/", "groups": ["data_group"]},
                },
                "local": {
                    "hosts": 3,
                    "inputs": {"train": "data/train", "validation": "data/validation"},
                },
            }
        )
    )
    prepared = preflight.prepare(loaded, Options())
    assert [(h.name, h.group) for h in prepared.cluster] == [
        ("algo-1", "dnn_group"),
        ("algo-2", "dnn_group"),
        ("algo-3", "data_group"),
        ("algo-4", "data_group"),
        ("algo-5", "data_group"),
    ]
    plan, _ = local_plan(prepared.plannable, [])
    receiving = group_hosts.receivers(plan.request, prepared.cluster)
    assert receiving == {"train": [2, 3, 4], "validation": [2, 3, 4]}
    trees = _trees(tmp_path, len(prepared.cluster))
    counts = channels.populate(trees, prepared.sources, tmp_path / "cache", _no_s3, receiving)
    assert counts == {"train": [0, 0, 3, 2, 2], "validation": [0, 0, 1, 1, 1]}
    every_file = sorted(p.name for p in (data / "train").iterdir())
    shares = [_channel_files(tree, "train") for tree in trees[2:]]
    assert shares == [every_file[0::3], every_file[1::3], every_file[2::3]]
    dealt = [key for share in shares for key in share]
    assert sorted(dealt) == every_file and len(dealt) == len(set(dealt))
    assert all(_channel_files(t, "validation") == ["part-000.csv"] for t in trees[2:])
    everyone = input_data_config(plan.request)
    assert everyone["train"]["S3DistributionType"] == "ShardedByS3Key"
    for index, tree in enumerate(trees[:2]):
        assert not tree.channel("train").exists() and not tree.channel("validation").exists()
        assert group_hosts.host_channels(everyone, receiving, index) == {}
    for index in range(2, 5):
        assert set(group_hosts.host_channels(everyone, receiving, index)) == {"train", "validation"}

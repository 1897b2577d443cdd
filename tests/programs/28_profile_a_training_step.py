"""The profiler recipe of the PyTorch tutorials on a small MLP training step: profile with record_shapes, a record_function range, and a schedule over a loop with on_trace_ready; it prints what does not depend on the machine's speed: the backward nodes the engine evaluated and how often, the ranges, the layers' ops with their input shapes, the schedule's recorded windows."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule
torch.manual_seed(5)
model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 12), nn.ReLU(), nn.Linear(12, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
X = torch.randn(32, 6); y = torch.randint(0, 3, (32,))
with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    with record_function("forward_pass"):
        loss = F.cross_entropy(model(X), y)
    opt.zero_grad(); loss.backward(); opt.step()
averages = prof.key_averages()
for evt in averages:
    if evt.key.startswith("autograd::engine") or evt.key in ("forward_pass", "aten::linear", "aten::relu"):
        print(f"{evt.key:<60} calls={evt.count}")
print(sorted(str(e.input_shapes) for e in prof.events() if e.name == "aten::linear"))
names = {evt.key for evt in averages}
print("Optimizer.step#Adam.step" in names, "Optimizer.zero_grad#Adam.zero_grad" in names)
total = averages.table(sort_by="cpu_time_total", row_limit=3).splitlines()
print(total[1].split(), len(total))
windows = []
def trace_ready(p):
    windows.append(sorted(evt.key for evt in p.key_averages() if evt.key.startswith("batch")))
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
             on_trace_ready=trace_ready) as prof:
    for i in range(10):
        with record_function(f"batch{i}"):
            opt.zero_grad(); F.cross_entropy(model(X), y).backward(); opt.step()
        prof.step()
print(windows)

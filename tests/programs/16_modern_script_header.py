"""The header and loop of a current training script: seeding everything, the backend flags,
thread and precision settings, torch.compile, mixed precision switched off on a CPU, activation
checkpointing, gradient clipping, finfo-guarded division and all/any metrics."""
import random

import numpy as np
import torch
import torch.backends.cudnn as cudnn
from torch import nn
from torch.utils.checkpoint import checkpoint


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    cudnn.deterministic = True
    cudnn.benchmark = False
    torch.use_deterministic_algorithms(True)


seed_everything(7)
torch.set_num_threads(1)
torch.set_float32_matmul_precision("high")
if torch.cuda.is_available():
    device = "cuda"
elif torch.backends.mps.is_available():
    device = "mps"
else:
    device = "cpu"
use_amp = device == "cuda"
print("device:", device, "| amp:", use_amp, "| deterministic:", torch.are_deterministic_algorithms_enabled())
print("threads:", torch.get_num_threads(), "| matmul precision:", torch.get_float32_matmul_precision())
print("eps:", torch.finfo(torch.float32).eps, "| int8 range:", torch.iinfo(torch.int8).min, torch.iinfo(torch.int8).max)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, width))

    def forward(self, x):
        return x + checkpoint(self.body, x, use_reentrant=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(6, 16)
        self.blocks = nn.ModuleList([Block(16) for _ in range(2)])
        self.out = nn.Linear(16, 3)

    def forward(self, x):
        x = self.inp(x)
        for block in self.blocks:
            x = block(x)
        return self.out(x)


# (backend="eager" keeps PyTorch's side of the test fast: inductor would compile C++ for a minute)
model = torch.compile(Net().to(device), backend="eager")
print(type(model).__name__, list(model.state_dict())[:3])
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
scaler = torch.amp.GradScaler(device, enabled=use_amp)
loss_fn = nn.CrossEntropyLoss()

X = torch.randn(64, 6)
y = (X[:, 0] > 0).long() + (X[:, 1] > 0.5).long()
for step in range(6):
    model.train()
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=use_amp):
        loss = loss_fn(model(X), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    model.eval()
    with torch.no_grad():
        pred = model(X).argmax(dim=1)
        correct = (pred == y)
        per_class = torch.stack([correct[y == c].float().sum() / ((y == c).sum() + torch.finfo(torch.float32).eps)
                                 for c in range(3)])
    print(f"step {step}: loss {loss.item():.4f} grad-norm {norm.item():.4f} acc {correct.float().mean():.3f} "
          f"all-right {correct.all().item()} any-right {correct.any().item()} "
          f"classes-seen {torch.any(pred.unsqueeze(1) == torch.arange(3), dim=0).tolist()}")
    print("   per-class", [round(v, 3) for v in per_class.tolist()])
print("scale:", scaler.get_scale(), "| state:", scaler.state_dict())
print("rows all positive:", torch.all(X > -3, dim=1).sum().item(), "of", X.shape[0])
torch.use_deterministic_algorithms(False)

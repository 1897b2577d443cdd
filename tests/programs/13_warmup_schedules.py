"""The warmup-then-decay recipe of current training scripts: AdamW and NAdam with a LinearLR
warmup handed over to CosineAnnealingLR by SequentialLR, an imbalanced dataset drawn with a
WeightedRandomSampler, and a CyclicLR / warm-restart schedule printed for comparison."""
import torch
from torch import nn
from torch.utils.data import DataLoader, StackDataset, TensorDataset, WeightedRandomSampler

torch.manual_seed(0)
n = 96
X = torch.randn(n, 6)
y = (X[:, 0] + 0.5 * X[:, 1] > 1.0).long()  # about one sample in five is class 1
counts = torch.bincount(y, minlength=2)
print("class counts:", counts.tolist())
sample_weights = (1.0 / counts.float())[y]
sampler = WeightedRandomSampler(sample_weights, num_samples=n, replacement=True)
loader = DataLoader(TensorDataset(X, y), batch_size=16, sampler=sampler)
first_x, first_y = next(iter(loader))
print("first batch labels:", first_y.tolist())


def train(optimizer_class, **options):
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = optimizer_class(model.parameters(), lr=0.01, **options)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=3)
    decay = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=7, eta_min=1e-4)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, decay], milestones=[3])
    loss_fn = nn.CrossEntropyLoss()
    print(optimizer_class.__name__, optimizer.defaults["weight_decay"])
    for epoch in range(10):
        total, correct, seen = 0.0, 0, 0
        for xb, yb in loader:
            logits = model(xb)
            loss = loss_fn(logits, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(yb)
            correct += (logits.argmax(1) == yb).sum().item()
            seen += len(yb)
        scheduler.step()
        print(f"epoch {epoch} loss {total / seen:>7f} acc {correct / seen:.3f} "
              f"lr {scheduler.get_last_lr()[0]:.6f}")
    return model, optimizer


model, optimizer = train(torch.optim.AdamW, weight_decay=0.05)
state = optimizer.state_dict()
print(sorted(state["state"][0]), state["state"][0]["step"])
model, optimizer = train(torch.optim.NAdam, decoupled_weight_decay=True, weight_decay=0.01)
print(sorted(optimizer.state_dict()["state"][0]))

probe = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1, momentum=0.9)
cyclic = torch.optim.lr_scheduler.CyclicLR(probe, base_lr=0.01, max_lr=0.1, step_size_up=3,
                                           mode="triangular2")
rates = []
for _ in range(14):
    probe.step()
    cyclic.step()
    rates.append(f"{cyclic.get_last_lr()[0]:.4f}/{probe.param_groups[0]['momentum']:.3f}")
print("cyclic:", " ".join(rates))
restarts = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(probe, T_0=2, T_mult=2)
rates = []
for _ in range(8):
    probe.step()
    restarts.step()
    rates.append(round(restarts.get_last_lr()[0], 5))
print("restarts:", rates)

pairs = StackDataset(features=TensorDataset(X[:4]), label=y[:4])
print(pairs[1]["label"], len(pairs))

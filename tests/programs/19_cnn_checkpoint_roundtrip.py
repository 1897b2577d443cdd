"""A small image classifier the way tutorials write one: random_split, shuffled DataLoader with a seeded generator, Conv/BatchNorm/MaxPool/Dropout, kaiming_normal_(mode="fan_out"), SGD with Nesterov momentum and StepLR, label smoothing, clip_grad_value_, a confusion matrix with bincount, a checkpoint saved and loaded with weights_only=True, top-k and softmax read back through numpy, format specs on tensors."""
import io, os, tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split
torch.manual_seed(3)
X = torch.randn(240, 1, 12, 12); y = (X.mean(dim=(1, 2, 3)) > 0).long() + (X[:, 0, 0, 0] > 1).long()
ds = TensorDataset(X, y)
train, val = random_split(ds, [200, 40], generator=torch.Generator().manual_seed(1))
tl = DataLoader(train, batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(2))
vl = DataLoader(val, batch_size=64)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 3, padding=1); self.bn = nn.BatchNorm2d(6)
        self.pool = nn.MaxPool2d(2); self.drop = nn.Dropout(0.2); self.fc = nn.Linear(6 * 6 * 6, 3)
        for m in self.modules():
            if isinstance(m, nn.Conv2d): nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    def forward(self, x):
        x = self.pool(F.relu(self.bn(self.conv(x))))
        return self.fc(self.drop(torch.flatten(x, 1)))
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in range(4):
    model.train(); total = 0.0
    for xb, yb in tl:
        opt.zero_grad(); loss = F.cross_entropy(model(xb), yb, label_smoothing=0.1); loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 1.0); opt.step(); total += loss.item() * xb.size(0)
    sched.step()
    model.eval(); preds = []
    with torch.no_grad():
        for xb, yb in vl: preds.append(model(xb).argmax(dim=1))
    preds = torch.cat(preds); truth = torch.stack([val[i][1] for i in range(len(val))])
    acc = (preds == truth).float().mean()
    cm = torch.bincount(truth * 3 + preds, minlength=9).reshape(3, 3)
    print(f"epoch {epoch}: loss {total / len(train):.4f} val acc {acc:.2%} lr {sched.get_last_lr()[0]:.4f}")
    print(cm.tolist(), F.one_hot(preds[:4], 3).tolist())
buf = io.BytesIO()
path = os.path.join(tempfile.mkdtemp(), "ck.pt")
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 4}, path)
ck = torch.load(path, weights_only=True)
m2 = Net(); m2.load_state_dict(ck["model"]); m2.eval()
with torch.no_grad():
    print(torch.allclose(m2(X[:5]), model(X[:5])), ck["epoch"], sorted(ck["opt"]["state"].keys())[:3], ck["opt"]["param_groups"][0]["lr"])
    top2 = model(X[:8]).topk(2, dim=1)
    print(top2.indices.tolist())
    probs = F.softmax(model(X[:3]), dim=1)
    print(probs.detach().cpu().numpy().round(3).tolist())
print(model.bn.running_mean.round(decimals=3), model.bn.num_batches_tracked)
print(f"{torch.tensor(0.123456):.3f}", f"{torch.tensor(12):>5}", format(torch.tensor(2.5), "e"))

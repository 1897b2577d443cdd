"""An example-style script that saves the whole model (torch.save(model, path)), as the official examples' end-of-training code does, then loads it back: refused by default (weights_only=True since PyTorch 2.6, the UnpicklingError's first line printed), loaded with weights_only=False; a checkpoint dict holding the model and its optimizer; type() of what came back."""
import os, pickle, tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(7)
class TwoLayer(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.hidden = nn.Linear(d_in, d_hidden); self.out = nn.Linear(d_hidden, d_out)
        self.register_buffer("seen", torch.tensor(0))
    def forward(self, x):
        self.seen += x.shape[0]
        return self.out(F.gelu(self.hidden(x)))
model = TwoLayer(5, 16, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
X = torch.randn(64, 5); y = (X[:, 0] * X[:, 1] > 0).long()
for epoch in range(3):
    opt.zero_grad(); loss = F.cross_entropy(model(X), y); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.5f}")
folder = tempfile.mkdtemp()
path = os.path.join(folder, "model.pt")
torch.save(model, path)
print(sorted(os.listdir(folder)))
try:
    torch.load(path)
except pickle.UnpicklingError as error:
    print(type(error).__mro__[-3].__name__, "|", str(error).splitlines()[0][:60])
    print([line for line in str(error).splitlines() if "Unsupported global" in line][0].strip()[:120])
loaded = torch.load(path, weights_only=False)
print(type(loaded), type(loaded.hidden.weight), loaded.seen)
print(loaded)
with torch.no_grad():
    print(torch.equal(loaded(X[:3]), model(X[:3])), loaded(X[:3]))
torch.save({"epoch": 3, "model": model, "optimizer": opt}, path)
ck = torch.load(path, weights_only=False)
print(ck["epoch"], type(ck["optimizer"]), ck["optimizer"].param_groups[0]["params"][0] is ck["model"].hidden.weight)
ck["optimizer"].zero_grad(); F.cross_entropy(ck["model"](X), y).backward(); ck["optimizer"].step()
print(f"resumed loss {F.cross_entropy(ck['model'](X), y).item():.5f}")
torch.save(model.state_dict(), path)
print(sorted(torch.load(path)), torch.load(path)["seen"])

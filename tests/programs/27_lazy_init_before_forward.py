"""The d2l-style lazy model: nn.LazyLinear layers, an init loop over parameters that touches .data before any forward (normal_ on the empty .data, as tutorials write it), printing the uninitialized parameters, then a dummy forward that materializes them, an apply(init) afterwards, and a few training steps."""
import torch
import torch.nn as nn
torch.manual_seed(11)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
print(net)
print(net[0].weight, type(net[0].weight).__name__, net[0].weight.data, net[0].weight.size())
for p in net.parameters():
    p.data.normal_(0, 0.01)
try:
    net[0].weight.shape
except RuntimeError as error:
    print("RuntimeError:", str(error)[:50])
try:
    net[0].weight.numel()
except ValueError as error:
    print("ValueError:", str(error)[:80])
print(net.state_dict())
X = torch.randn(5, 3)
print(net(X))
print(type(net[0].weight).__name__, net[0].weight.shape, [p.shape for p in net.parameters()], net)
def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01); nn.init.zeros_(module.bias)
net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])
opt = torch.optim.SGD(net.parameters(), lr=0.1)
y = X.sum(dim=1, keepdim=True)
for step in range(3):
    opt.zero_grad(); loss = nn.functional.mse_loss(net(X), y); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.6f}")

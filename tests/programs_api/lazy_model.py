"""d2l's builders' guide: a lazy MLP whose input size comes from the first batch."""
import torch
from torch import nn

net = nn.Sequential(nn.LazyLinear(16), nn.ReLU(), nn.LazyLinear(4))
print(net)
print(type(net[0].weight).__name__, net[0].has_uninitialized_params())
try:
    net[0].weight.shape
except RuntimeError as error:
    print("RuntimeError:", str(error).split(".")[0])

X = torch.cos(torch.arange(2 * 20, dtype=torch.float64) * 0.3).float().reshape(2, 20)
net(X)  # materialises every parameter
print(net)
print([(name, tuple(p.shape)) for name, p in net.named_parameters()])

with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_((torch.sin(torch.arange(p.numel(), dtype=torch.float64) * 0.11 + i) * 0.2).float().reshape(p.shape))

targets = torch.arange(8, dtype=torch.float32).reshape(2, 4) / 8
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
for epoch in range(4):
    optimizer.zero_grad()
    loss = nn.functional.smooth_l1_loss(net(X), targets, beta=0.5)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: {loss.item():.6f}")
print(net(X))
state = net.state_dict()
print(list(state), tuple(state["2.weight"].shape))

"""The first pages of d2l's builders' guide and the device idiom of current tutorials:
lazy layers, parameter access, schedulers, and a few linear-algebra one-liners."""
import torch
from torch import nn

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")

torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1)).to(device)
print(net[0].weight)
print("has uninitialized params:", net[0].has_uninitialized_params())
X = torch.rand(size=(2, 20), device=device)
print(net(X).shape)
print([(name, tuple(p.shape)) for name, p in net.named_parameters()])
print(net[2].state_dict()["bias"].data)
print(net)

shared = nn.LazyLinear(8)
blocks = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.LazyLinear(1))
blocks(X)
print(blocks[2].weight.data[0] == blocks[4].weight.data[0])
blocks[2].weight.data[0, 0] = 100
print(blocks[2].weight.data[0] == blocks[4].weight.data[0])

optimizer = torch.optim.RMSprop(net.parameters(), lr=0.01, momentum=0.5)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 4], gamma=0.5)
loss_fn = nn.MSELoss()
y = torch.rand(2, 1)
for epoch in range(6):
    optimizer.zero_grad()
    loss = loss_fn(net(X), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"epoch {epoch} loss {loss.item():>8f} lr {scheduler.get_last_lr()[0]:.4f}")

A = torch.arange(24.0).reshape(2, 3, 4)
B = torch.arange(12.0).reshape(4, 3)
print(torch.tensordot(A, B, dims=1))
print(torch.tensordot(A, B.T, dims=([1, 2], [0, 1])))
print(torch.inner(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.5, -1.0, 2.0])))
print(A[0].inner(B.T).shape)

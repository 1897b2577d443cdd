"""Shape checks on the 'meta' device, as tutorials do them: build a network without memory,
trace the output shape of every layer, count parameters, then materialise it on the CPU
(to_empty + reset_parameters) and train one step."""
import torch
from torch import nn

torch.manual_seed(0)
with torch.device("meta"):
    net = nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, kernel_size=5), nn.ReLU(), nn.AvgPool2d(2, 2),
        nn.Flatten(), nn.LazyLinear(120), nn.ReLU(), nn.Dropout(0.5), nn.Linear(120, 10))
    X = torch.randn(1, 1, 28, 28)
print(X)
for layer in net:
    X = layer(X)
    print(f"{layer.__class__.__name__:>12} output shape:\t{tuple(X.shape)}")
print(net[8].weight)
print("parameters:", sum(p.numel() for p in net.parameters()))
print("bytes it would take:", sum(p.numel() * p.element_size() for p in net.parameters()))

# a huge layer costs nothing on meta
big = nn.Linear(100_000, 100_000, device="meta")
print(big.weight.shape, big.weight.is_meta, big.weight.dtype)
print(big(torch.empty(8, 100_000, device="meta")).shape)

# gradients on meta: shapes and grad_fn only
out = net(torch.randn(4, 1, 28, 28, device="meta"))
loss = nn.functional.cross_entropy(out, torch.randint(0, 10, (4,), device="meta"))
print(type(out.grad_fn).__name__, loss)
loss.backward()
print([tuple(p.grad.shape) for p in net[:2].parameters()])

# data-dependent results and values are not available on meta
for attempt in (lambda: out.argmax(1).tolist(), lambda: out.sum().item(), lambda: out.cpu()):
    try:
        attempt()
    except (RuntimeError, NotImplementedError) as error:
        print(type(error).__name__, error)

# materialise on the CPU and train one step
net.to_empty(device="cpu")
for module in net.modules():
    if hasattr(module, "reset_parameters"):
        module.reset_parameters()
print(net[0].weight.device, net[0].weight[0, 0, 0])
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
images, labels = torch.randn(8, 1, 28, 28), torch.randint(0, 10, (8,))
for step in range(2):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(net(images), labels)
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():>7f}")

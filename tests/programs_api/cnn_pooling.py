"""A small CNN with every kind of pooling and the newer activations, trained for a few steps."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def deterministic_(model, scale=0.3):
    """Weights from sin(arange): the same values on every library, no random numbers."""
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            values = torch.sin(torch.arange(p.numel(), dtype=torch.float64) * 0.7 + i) * scale
            p.copy_(values.float().reshape(p.shape))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1), nn.GELU(), nn.MaxPool2d(2),
            nn.Conv2d(4, 8, 3, padding=1), nn.LeakyReLU(0.1), nn.AvgPool2d(2),
            nn.Dropout2d(0.25),
        )
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(8, 16), nn.SiLU(), nn.Linear(16, 3))

    def forward(self, x):
        return self.head(self.pool(self.features(x)))


model = Net()
deterministic_(model)
print(model)
print("parameters:", sum(p.numel() for p in model.parameters()))

images = torch.sin(torch.arange(6 * 12 * 12, dtype=torch.float64) * 0.37).float().reshape(6, 1, 12, 12)
labels = torch.tensor([0, 1, 2, 1, 0, 2])

model.eval()  # Dropout2d off: the runs see the same network
with torch.no_grad():
    out = model(images)
print("logits:", out.shape, out.dtype)
print(out)
print("adaptive max:", F.adaptive_max_pool2d(images, 3)[0, 0])
print("avg pool:", F.avg_pool2d(images[:1], 3, stride=2, padding=1, count_include_pad=False).sum().item())

optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
for step in range(5):
    optimizer.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.5f}, grad norm {model.features[0].weight.grad.norm().item():.5f}")

with torch.no_grad():
    predictions = model(images).argmax(dim=1)
print("predictions:", predictions.tolist(), "accuracy:", (predictions == labels).float().mean().item())

"""A spatial transformer (the PyTorch tutorial's idea, small): a localisation net predicts an
affine theta per image, F.affine_grid + F.grid_sample warp the image, a classifier reads it."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 4, 3), nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 5 * 5, 6))
        self.loc[-1].weight.data.zero_()
        self.loc[-1].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))
        self.fc = nn.Linear(12 * 12, 3)

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False)
        return self.fc(x.flatten(1)), theta


model = STN()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
images = torch.randn(8, 1, 12, 12)
labels = torch.randint(0, 3, (8,))
for step in range(5):
    logits, theta = model(images)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
print(theta[0].detach().round(decimals=4))
print(logits.grad_fn.name(), type(theta.grad_fn).__name__)
warped = F.grid_sample(images[:2], F.affine_grid(theta[:2].detach(), [2, 1, 6, 6], align_corners=True),
                       mode="bicubic", padding_mode="reflection", align_corners=True)
print(warped.shape, f"{warped.abs().sum().item():.2f}")

# A small CNN on random 8x8 "images": Conv2d, MaxPool2d, Dropout, shuffled DataLoader, SGD.
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
images = torch.rand(256, 1, 8, 8)
labels = (images[:, 0, :4].mean(dim=(1, 2)) > images[:, 0, 4:].mean(dim=(1, 2))).long()
loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(4 * 4 * 4, 2)

    def forward(self, x):
        x = self.pool(F.relu(self.conv(x)))
        return self.fc(self.drop(torch.flatten(x, 1)))


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(3):
    correct = 0
    for xb, yb in loader:
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += (out.argmax(1) == yb).sum().item()
    print(f"epoch {epoch}: last loss {loss.item():.4f}, train accuracy {correct / len(images):.3f}")
print(model.conv.weight[0, 0])

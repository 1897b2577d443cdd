# Regression with dropout and Adam: dropout masks and initial weights come from the seed.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(3)
x = torch.linspace(-2, 2, 200).unsqueeze(1)
y = torch.sin(x) + 0.1 * torch.randn(200, 1)
loader = DataLoader(TensorDataset(x, y), batch_size=50, shuffle=True)
model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Dropout(0.2), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()
for epoch in range(4):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch}: {total / len(loader):.5f}")
model.eval()
with torch.no_grad():
    print(model(torch.tensor([[0.0], [1.0]])))
print(nn.functional.dropout(torch.ones(2, 8), 0.5))

# A custom map-style Dataset, default collation of dicts and tuples, shuffling over epochs.
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return {"x": torch.tensor([float(idx), float(idx) ** 2]), "label": idx % 3, "name": f"s{idx}"}


torch.manual_seed(7)
loader = DataLoader(Squares(10), batch_size=4, shuffle=True)
print(len(loader))
for epoch in range(3):
    for i, batch in enumerate(loader):
        if i == 0:
            print(epoch, batch["label"], batch["name"], batch["x"][:, 0])
print(torch.randn(2))

pairs = DataLoader([(i, float(i) / 4) for i in range(6)], batch_size=4, shuffle=True, drop_last=True)
for ints, floats in pairs:
    print(ints, floats.tolist())
g = torch.Generator().manual_seed(3)
print([b.tolist() for b in DataLoader(torch.arange(9), batch_size=3, shuffle=True, generator=g)])
print(torch.rand(2))

# random_split with lengths and fractions, explicit samplers, and batch samplers.
import torch
from torch.utils.data import (BatchSampler, DataLoader, RandomSampler, SequentialSampler,
                              SubsetRandomSampler, TensorDataset, random_split)

torch.manual_seed(2024)
ds = TensorDataset(torch.arange(20).float(), torch.arange(20) % 4)
a, b, c = random_split(ds, [10, 6, 4])
print(a.indices, b.indices, c.indices)
parts = random_split(range(30), [0.3, 0.3, 0.4], generator=torch.Generator().manual_seed(42))
print([list(p) for p in parts])
print(list(BatchSampler(RandomSampler(range(10)), batch_size=3, drop_last=False)))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=4, drop_last=True)))
print(list(SubsetRandomSampler([1, 3, 5, 7, 9])))
sampler = RandomSampler(ds, replacement=True, num_samples=12)
for xb, yb in DataLoader(ds, batch_size=5, sampler=sampler):
    print(xb, yb)
for xb, yb in DataLoader(a, batch_size=4, shuffle=True):
    print(xb.tolist())
print(torch.randint(0, 100, (5,)))

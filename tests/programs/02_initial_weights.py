# Layers start from PyTorch's initial weights after the same seed (nothing copied).
import math

import torch
from torch import nn

torch.manual_seed(42)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
for name, p in model.named_parameters():
    print(name, p.data)

conv = nn.Conv2d(1, 2, kernel_size=3)
print(conv.weight[0, 0])
print(conv.bias)
emb = nn.Embedding(5, 3)
print(emb.weight)

w = torch.empty(3, 5)
nn.init.xavier_uniform_(w)
print(w)
nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
print(w)
nn.init.normal_(w, std=0.02)
print(w)
layer = nn.Linear(6, 4).double()
nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5))
print(layer.weight.tolist())

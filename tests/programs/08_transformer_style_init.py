# The initialisations of transformer and RNN code: truncated normals, orthogonal and identity
# matrices, Dirac kernels, sparse columns, and factories that follow an existing tensor.
import torch
from torch import nn

torch.manual_seed(3)
block = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))


def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02)
        nn.init.zeros_(module.bias)


block.apply(init_weights)
for name, p in block.named_parameters():
    print(name, tuple(p.shape), f"{p.abs().max().item():.6f}", f"{p.sum().item():.6f}")

position = torch.empty(1, 5, 8)
nn.init.trunc_normal_(position, mean=0.0, std=1.0, a=-0.5, b=0.5)  # a narrow window
print(position[0, :2])

recurrent = torch.empty(6, 6)
nn.init.orthogonal_(recurrent, gain=1.5)
print((recurrent @ recurrent.T / 2.25).diagonal().round(decimals=4))

print(nn.init.eye_(torch.empty(3, 4)))
kernel = nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2)
print(kernel.sum(dim=(2, 3)))
sparse = nn.init.sparse_(torch.empty(6, 3), sparsity=0.5, std=0.1)
print((sparse == 0).sum(dim=0), sparse)

x = torch.randn(2, 3, dtype=torch.float64)
print(x)
print(x.new_zeros(2), x.new_ones((1, 2)).dtype, x.new_full((2,), 0.5), x.new_tensor([1, 2]))
print(torch.empty(1000, dtype=torch.float64).exponential_().sum().item())
print(torch.rand(3))
print(x.dtype, x.shape, x.max(dim=1))
print(f"Shape of tensor: {x.shape}", f"Datatype of tensor: {x.dtype}", f"Device tensor is stored on: {x.device}")

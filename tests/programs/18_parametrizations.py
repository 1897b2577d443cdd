"""Parametrizations (the PyTorch tutorial, small): a symmetric weight and a skew-symmetric one via
register_parametrization, weight_norm and spectral_norm on a small model, a few SGD steps each,
then the parametrizations removed."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils.parametrizations import spectral_norm, weight_norm

torch.manual_seed(0)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
print(layer)
print(torch.allclose(layer.weight, layer.weight.T))
A = torch.rand(3, 3)
layer.weight = A + A.T
print(torch.allclose(layer.weight, A + A.T))
print(list(layer.state_dict().keys()))

skew = nn.Linear(3, 3)
parametrize.register_parametrization(skew, "weight", Skew())
print(torch.allclose(skew.weight, -skew.weight.T))

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
weight_norm(model[0])
spectral_norm(model[2])
parametrize.register_parametrization(model[2], "weight", Symmetric())
print(model)
print({k: tuple(v.shape) for k, v in model.state_dict().items()})
print(f"{torch.linalg.matrix_norm(model[2].weight, 2).item():.4f}")

opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 2)
for step in range(6):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")

with parametrize.cached():
    print(f"cached loss {F.mse_loss(model(x), y).item():.4f}")
print(model[0].parametrizations.weight.original0.flatten()[:4])
parametrize.remove_parametrizations(model[0], "weight")
parametrize.remove_parametrizations(model[2], "weight", leave_parametrized=False)
print(model)
print(type(model[2].weight).__name__, parametrize.is_parametrized(model[2]))
print(f"final loss {F.mse_loss(model(x), y).item():.4f}")

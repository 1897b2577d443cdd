"""A notebook-style tour of what a script imports at the top and prints about its objects: type() of tensors, parameters, sizes, modules and optimizers; torch.functional's and torch.linalg's functions (cross, matmul, vecdot, multi_dot, matrix_power, norms, inv/det/solve); torch.distributions.Multinomial draws, log_prob and entropy; torch.onnx imported but not called."""
import torch
import torch.nn as nn
import torch.onnx  # noqa: F401 - scripts import it for the export at their end
from torch.functional import einsum, meshgrid, split, unique
from torch.distributions import Multinomial
torch.manual_seed(0)
t = torch.randn(3, 3)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
print(type(t), type(t.shape), type(model), type(model[0].weight), type(torch.float32), type(torch.device("cpu")))
print(type(torch.optim.SGD(model.parameters(), lr=0.1)), nn.Linear, torch.Tensor, torch.Size)
print(isinstance(model[0].weight, torch.Tensor), type(model[0].weight).__name__, t.type())
a, b = torch.randn(4, 3, dtype=torch.float64), torch.randn(4, 3, dtype=torch.float64)
print(torch.linalg.cross(a, b))
print(torch.linalg.vecdot(a, b), torch.linalg.matmul(a, b.T).diagonal())
print(torch.linalg.multi_dot([a.T, b, torch.randn(3, 2, dtype=torch.float64)]))
S = (t @ t.T + 3 * torch.eye(3)).double()
print(torch.linalg.matrix_power(S, 3)[0], torch.linalg.matrix_power(S, -1)[0])
print(torch.linalg.norm(a), torch.linalg.vector_norm(a, ord=1, dim=1), torch.linalg.matrix_norm(S))
print(torch.linalg.inv(S)[0], torch.linalg.det(S), torch.linalg.solve(S, torch.ones(3, dtype=torch.float64)))
print(einsum("ij,ij->i", a, b), [p.shape for p in split(a, 3)], unique(torch.tensor([3, 1, 3, 2])))
xs, ys = meshgrid(torch.arange(2), torch.arange(3), indexing="xy")
print(xs, ys)
probs = torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], requires_grad=True)
m = Multinomial(8, probs=probs)
counts = m.sample((2,))
print(counts, m.log_prob(counts), m.entropy(), m.mean, m.variance)
m.log_prob(counts).sum().backward()
print(probs.grad)

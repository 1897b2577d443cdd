"""'Learning PyTorch with Examples' in miniature: fitting sin(x) with a cubic by hand-written
backward, by autograd, by a custom autograd.Function (Legendre P3), by nn.Sequential with
Flatten(0, 1) and MSELoss(reduction='sum'), by RMSprop, and by a dynamic network."""
import math
import random

import torch


def report(t, loss, digits=".4f"):
    if t % 100 == 99:
        print(t, format(loss, digits))


dtype, device = torch.float, torch.device("cpu")
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)
torch.manual_seed(0)
a, b, c, d = (torch.randn((), device=device, dtype=dtype) for _ in range(4))
learning_rate = 1e-6
for t in range(300):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    report(t, loss)
    grad_y_pred = 2.0 * (y_pred - y)
    a -= learning_rate * grad_y_pred.sum()
    b -= learning_rate * (grad_y_pred * x).sum()
    c -= learning_rate * (grad_y_pred * x ** 2).sum()
    d -= learning_rate * (grad_y_pred * x ** 3).sum()
print(f"y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
learning_rate = 5e-6
for t in range(300):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    report(t, loss.item())
    loss.backward()
    with torch.no_grad():
        for param in (a, b, c, d):
            param -= learning_rate * param.grad
            param.grad = None
print(y_pred.grad_fn.name(), f"{a.item():.4f} {b.item():.4f} {c.item():.4f} {d.item():.4f}")

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape, xx.dtype)
torch.manual_seed(1)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    report(t, loss.item(), ".5g")  # Linear's matrix product rounds as its BLAS does: last bits drift
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
linear_layer = model[0]
print(f"y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x + "
      f"{linear_layer.weight[:, 1].item():.3f} x^2 + {linear_layer.weight[:, 2].item():.3f} x^3")


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c, self.d, self.e = (torch.nn.Parameter(torch.randn(())) for _ in range(5))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return (f"y = {self.a.item():.4f} + {self.b.item():.4f} x + {self.c.item():.4f} x^2 + "
                f"{self.d.item():.4f} x^3 + {self.e.item():.4f} x^4 ? + {self.e.item():.4f} x^5 ?")


random.seed(0)
torch.manual_seed(2)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(300):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    report(t, loss.item(), ".6g")  # x ** 4 and x ** 5 are SLEEF's pow in PyTorch: last bits differ
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(model.string())

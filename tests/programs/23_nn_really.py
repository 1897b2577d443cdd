"""'What is torch.nn really?' in miniature: logistic regression from raw tensors, refactored step
by step into nn.Module, nn.Linear, optim, TensorDataset/DataLoader, a validation loop with
weighted mean losses, and a CNN ending in adaptive average pooling behind a Lambda module."""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)
x_train_np = rng.random((256, 64), dtype=np.float32)
y_train_np = (x_train_np[:, :8].sum(1) * 10 // 8).astype(np.int64) % 10
x_valid_np, y_valid_np = x_train_np[:64] * 0.9, y_train_np[:64]
x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train_np, y_train_np, x_valid_np, y_valid_np))
n, c = x_train.shape
print(x_train.shape, y_train.dtype, y_train.min(), y_train.max())

torch.manual_seed(0)
weights = torch.randn(64, 10) / math.sqrt(64)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


bs = 32
xb, yb = x_train[0:bs], y_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)
print(nll(preds, yb), accuracy(preds, yb))

lr, epochs = 0.5, 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        xb, yb = x_train[start_i:start_i + bs], y_train[start_i:start_i + bs]
        loss = nll(model(xb), yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print(f"{nll(model(xb), yb).item():.5f}", f"{accuracy(model(xb), yb).item():.5f}")


class MnistLogistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(64, 10)

    def forward(self, xb):
        return self.lin(xb)


loss_func = F.cross_entropy


def get_model():
    model = MnistLogistic()
    return model, optim.SGD(model.parameters(), lr=lr)


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, f"{val_loss:.5f}")


train_ds, valid_ds = TensorDataset(x_train, y_train), TensorDataset(x_valid, y_valid)


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True),
            DataLoader(valid_ds, batch_size=bs * 2))


torch.manual_seed(1)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
print(f"{loss_func(model(xb), yb).item():.5f}")
fit(2, model, loss_func, opt, train_dl, valid_dl)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, 8, 8)


torch.manual_seed(2)
cnn = nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
opt = optim.SGD(cnn.parameters(), lr=0.1, momentum=0.9)
fit(2, cnn, loss_func, opt, train_dl, valid_dl)
print(cnn)

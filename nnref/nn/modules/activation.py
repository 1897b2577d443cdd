"""Activation layers (``torch/nn/modules/activation.py``): ReLU, Sigmoid, Tanh, Softmax, LogSoftmax."""
from ..._ops import pointwise
from .. import functional as F
from .module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax"]


class ReLU(Module):
    """``max(x, 0)`` elementwise; ``inplace=True`` overwrites the input."""

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise."""

    def forward(self, input):
        return pointwise.sigmoid(input)


class Tanh(Module):
    def forward(self, input):
        return pointwise.tanh(input)


class Softmax(Module):
    """Rescale along ``dim`` so the values are positive and sum to 1."""

    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """``log(softmax(x))`` along ``dim``, computed stably; pair it with ``NLLLoss``."""

    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"

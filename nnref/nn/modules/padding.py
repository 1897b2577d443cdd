"""Constant and zero padding layers (``torch/nn/modules/padding.py``).

nnref's ``F.pad`` pads with a constant only, so the reflection, replication and circular
padding layers are not here (see "Differences from PyTorch").
"""
from .. import functional as F
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


def _ntuple(value, n):
    """``1 -> (1,) * n``; a sequence becomes a tuple (``torch.nn.modules.utils._ntuple``)."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: ``padding`` is an int or ``(left, right)``."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(padding, 2)


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``: ``padding`` is an int or ``(left, right, top, bottom)``."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(padding, 4)


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``: an int or ``(left, right, top, bottom, front, back)``."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(padding, 6)


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros: ``padding`` is an int or ``(left, right)``."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros: ``padding`` is an int or ``(left, right, top, bottom)``."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros: an int or ``(left, right, top, bottom, front, back)``."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"

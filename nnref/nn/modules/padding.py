"""Padding layers: constant, zero, reflection, replication and circular (``torch/nn/modules/padding.py``)."""
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


__all__ += ["ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
            "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


class _ModePadNd(Module):
    """Padding with the input's own values (``F.pad`` with ``mode``)."""

    __constants__ = ["padding"]
    _mode = None
    _sides = 2

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._sides)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    """Pad the last dim of ``(N, C, W)`` or ``(C, W)`` with its mirror image (the edge not repeated)."""

    _mode = "reflect"


class ReflectionPad2d(_ModePadNd):
    """Pad the last two dims of ``(N, C, H, W)`` or ``(C, H, W)`` with their mirror image."""

    _mode, _sides = "reflect", 4


class ReflectionPad3d(_ModePadNd):
    """Pad the last three dims of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` with their mirror image."""

    _mode, _sides = "reflect", 6


class ReplicationPad1d(_ModePadNd):
    """Pad the last dim of ``(N, C, W)`` or ``(C, W)`` by repeating its edge values."""

    _mode = "replicate"


class ReplicationPad2d(_ModePadNd):
    """Pad the last two dims of ``(N, C, H, W)`` or ``(C, H, W)`` by repeating their edges."""

    _mode, _sides = "replicate", 4


class ReplicationPad3d(_ModePadNd):
    """Pad the last three dims of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` by repeating their edges."""

    _mode, _sides = "replicate", 6


class _CircularPadNd(_ModePadNd):
    _mode = "circular"
    _dims = (2, 3)

    def forward(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pad the last dim of ``(N, C, W)`` or ``(C, W)`` by wrapping around (the other end's values)."""


class CircularPad2d(_CircularPadNd):
    """Pad the last two dims of ``(N, C, H, W)`` or ``(C, H, W)`` by wrapping around."""

    _sides, _dims = 4, (3, 4)


class CircularPad3d(_CircularPadNd):
    """Pad the last three dims of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` by wrapping around."""

    _sides, _dims = 6, (4, 5)

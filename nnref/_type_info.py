"""``nnref.finfo`` and ``nnref.iinfo``: the limits of a floating-point or integer dtype.

Mirrors ``torch.finfo``/``torch.iinfo`` (``torch/csrc/TypeInfo.cpp``): the same attributes, the
same printed form (``%g`` numbers, the dtype's name), Python ``float``/``int`` values.  The
numbers come from numpy's (and ``ml_dtypes``' for bfloat16) description of the same formats.
"""
import builtins

import ml_dtypes
import numpy as np

from .core._naming import TorchNamed
from .core import _dtype

__all__ = ["finfo", "iinfo"]


class finfo(metaclass=TorchNamed):
    """The limits of a floating-point dtype (the default dtype when none is given):
    ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``), ``resolution``
    and ``dtype`` (its name), as ``torch.finfo`` (``torch/csrc/TypeInfo.cpp``)."""
    _torch_name = "torch.finfo"  # PyTorch's name (nnref/_naming.py)

    __hash__ = None  # PyTorch's finfo compares equal by value and cannot be hashed

    def __init__(self, type=None):
        type = _dtype.get_default_dtype() if type is None else type
        if not isinstance(type, _dtype.dtype):
            raise TypeError(f"finfo(): argument 'type' (position 1) must be torch.dtype, not "
                            f"{builtins.type(type).__name__}")
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        info = ml_dtypes.finfo(type.numpy) if type is _dtype.bfloat16 else np.finfo(type.numpy)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo(metaclass=TorchNamed):
    """The limits of an integer dtype: ``bits``, ``max``, ``min`` and ``dtype`` (its name), as
    ``torch.iinfo`` (``torch/csrc/TypeInfo.cpp``)."""
    _torch_name = "torch.iinfo"  # PyTorch's name (nnref/_naming.py)

    __hash__ = None

    def __init__(self, type):
        if not isinstance(type, _dtype.dtype):
            raise TypeError(f"iinfo(): argument 'type' (position 1) must be torch.dtype, not "
                            f"{builtins.type(type).__name__}")
        if type is _dtype.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(type.numpy)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


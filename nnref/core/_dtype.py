"""Data types: ``nnref.float32`` and friends.

Mirrors ``torch.dtype`` (c10/core/ScalarType.h) and the promotion lattice of
``torch.promote_types``.  Each dtype wraps the numpy dtype that stores it;
bfloat16 comes from ``ml_dtypes`` because numpy has none of its own.
"""
import ml_dtypes
import numpy as np

from ._naming import TorchNamed

__all__ = ["dtype", "float16", "bfloat16", "float32", "float64", "uint8", "int8", "int16", "short", "int32", "int64", "bool",
           "half", "float", "double", "int", "long", "get_default_dtype", "set_default_dtype",
           "promote_types"]


class dtype(metaclass=TorchNamed):
    """A tensor element type; it prints as PyTorch's does (``torch.float32``)."""
    _torch_name = "torch.dtype"  # PyTorch's name (nnref/_naming.py)

    # is_signed, is_complex, itemsize and pickling are the mirror's (nnref/_type_info.py).
    __slots__ = ("name", "numpy", "is_floating_point", "_rank", "_legacy_name", "_accumulate")

    def __init__(self, name, numpy_dtype, is_floating_point, rank, legacy_name):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = is_floating_point
        self._rank = rank
        self._legacy_name = legacy_name
        # Sums and products of 16-bit floats accumulate in float32, as PyTorch's CPU kernels do
        # (summing 20,000 bfloat16 values in bfloat16 would stall at 32).
        self._accumulate = np.dtype(np.float32) if is_floating_point and self.numpy.itemsize == 2 else self.numpy

    def __repr__(self):
        return f"torch.{self.name}"


float16 = dtype("float16", np.float16, True, 4, "HalfTensor")
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, True, 4, "BFloat16Tensor")
float32 = dtype("float32", np.float32, True, 5, "FloatTensor")
float64 = dtype("float64", np.float64, True, 6, "DoubleTensor")
uint8 = dtype("uint8", np.uint8, False, 1.25, "ByteTensor")
int8 = dtype("int8", np.int8, False, 1.5, "CharTensor")
int16 = dtype("int16", np.int16, False, 1.75, "ShortTensor")
int32 = dtype("int32", np.int32, False, 2, "IntTensor")
int64 = dtype("int64", np.int64, False, 3, "LongTensor")
bool = dtype("bool", np.bool_, False, 1, "BoolTensor")  # noqa: A001 - PyTorch's name
half, float, double, short, int, long = float16, float32, float64, int16, int32, int64  # noqa: A001

ALL_DTYPES = (float16, bfloat16, float32, float64, uint8, int8, int16, int32, int64, bool)
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES}

_default_dtype = float32


def get_default_dtype():
    """The dtype Python floats become (``torch.get_default_dtype``)."""
    return _default_dtype


def set_default_dtype(d):
    """Change the default floating dtype; only float32 and float64 are allowed, as in PyTorch."""
    global _default_dtype
    if d not in (float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_dtype = d


def promote_types(type1, type2):
    """The smallest dtype both ``type1`` and ``type2`` convert to safely (``torch.promote_types``)."""
    a, b = type1, type2
    if a is b:
        return a
    if {a, b} == {float16, bfloat16}:
        return float32
    if {a, b} == {uint8, int8}:  # neither holds the other's range
        return int16
    return a if a._rank > b._rank else b

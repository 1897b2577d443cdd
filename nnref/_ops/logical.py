"""``logical_and``/``or``/``xor``/``not`` and ``count_nonzero``: truth values of any dtype.

Mirrors ``aten/src/ATen/native/BinaryOps.cpp`` (logical ops, bool results, no gradient)
and ``ReduceOps.cpp`` (``count_nonzero``, int64).
"""
import numpy as np

from ..core import _dtype
from ..core._device import array_module
from ..core._tensor import Tensor, _wrap_dim
from ._common import check_same_device, wrap

__all__ = ["logical_and", "logical_or", "logical_xor", "logical_not", "count_nonzero"]


def _logical(name, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    check_same_device(input, other)
    xp = array_module(input._device)
    data = other._data
    if not data.ndim and type(data) is np.ndarray:
        data = data[()]  # a 0-d CPU tensor joins as a number (CuPy refuses host arrays)
    return wrap(getattr(xp, name)(input._data, data), input)


def logical_and(input, other):
    """True where both are nonzero (any dtypes, broadcast)."""
    return _logical("logical_and", input, other)


def logical_or(input, other):
    """True where either is nonzero."""
    return _logical("logical_or", input, other)


def logical_xor(input, other):
    """True where exactly one is nonzero."""
    return _logical("logical_xor", input, other)


def logical_not(input):
    """True where ``input`` is zero."""
    return wrap(array_module(input._device).logical_not(input._data), input)


def count_nonzero(input, dim=None):
    """How many elements are nonzero, in all (``dim=None``) or along ``dim`` (an int or a tuple)."""
    xp = array_module(input._device)
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dim = tuple(_wrap_dim(d, max(input._data.ndim, 1)) for d in dims)
    counts = xp.count_nonzero(input._data, axis=dim) if input._data.ndim else xp.asarray(
        int(input._data != 0))
    return wrap(xp.asarray(counts).astype(_dtype.int64.numpy), input)

"""Searching sorted values and sets: ``searchsorted``, ``bucketize`` and ``isin``.

Mirrors ``aten/src/ATen/native/Bucketization.cpp`` (``searchsorted``, ``bucketize``) and
``TensorCompare.cpp`` (``isin``).  None is differentiable (their results are indices and
truth values).  A NaN value is placed after every boundary, as PyTorch's binary search puts it.
"""
import builtins
import math

import numpy as np

from ..core import _dtype
from ..core._device import array_module
from ..core._tensor import Tensor
from ._common import as_tensor, check_same_device, operand_data, result_type, wrap

__all__ = ["searchsorted", "bucketize", "isin"]


def _binary_search(xp, rows, values, right):
    """PyTorch's ``cus_lower_bound``/``cus_upper_bound`` on each row of ``rows`` for the values of the
    same row of ``values``: the same steps, for every value at once (so NaNs land where PyTorch's land)."""
    n = rows.shape[-1]
    start = xp.zeros(values.shape, dtype=np.int64)
    end = xp.full(values.shape, n, dtype=np.int64)
    for _ in range(builtins.max(n, 1).bit_length() + 1):
        active = start < end
        mid = xp.minimum((start + end) // 2, builtins.max(n - 1, 0))
        probe = xp.take_along_axis(rows, mid, axis=-1) if n else values
        go_right = ~(probe > values) if right else ~(probe >= values)
        start = xp.where(active & go_right, mid + 1, start)
        end = xp.where(active & ~go_right, mid, end)
    return start


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """For each value, the index in ``sorted_sequence`` (sorted along its last dim) where it would
    be inserted to keep the order: before equal values, or after them with ``right=True`` /
    ``side='right'`` (``torch.searchsorted``, ``aten/src/ATen/native/Bucketization.cpp``)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    values = as_tensor(input, sorted_sequence)
    check_same_device(sorted_sequence, values)
    bounds_shape, values_shape = sorted_sequence._data.shape, values._data.shape
    if scalar and len(bounds_shape) != 1:
        raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                           f"dimension is 1, but we got boundaries tensor dim({len(bounds_shape)}) and input "
                           f"value's dim({len(values_shape)}) numbers of dimensions")
    if len(bounds_shape) != 1 and (len(bounds_shape) != len(values_shape)
                                   or bounds_shape[:-1] != values_shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(bounds_shape)} and input value tensor {list(values_shape)}")
    dtype = result_type(sorted_sequence, values)
    xp = array_module(sorted_sequence._device)
    bounds = operand_data(sorted_sequence, dtype)
    if sorter is not None:
        if sorter.shape != sorted_sequence.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got "
                               f"boundary tensor {list(bounds_shape)}and got sorter tensor {list(sorter.shape)}")
        bounds = xp.take_along_axis(bounds, sorter._data, axis=-1)
    data = xp.asarray(operand_data(values, dtype))
    if len(bounds_shape) == 1:
        found = _binary_search(xp, bounds.reshape(1, -1), data.reshape(1, -1), right).reshape(values_shape)
    else:
        rows = math.prod(bounds_shape[:-1])
        found = _binary_search(xp, bounds.reshape(rows, bounds_shape[-1]), data.reshape(rows, -1),
                               right).reshape(values_shape)
    return wrap(found.astype(np.int32 if out_int32 else np.int64), sorted_sequence)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The index of the bucket of ``boundaries`` (1-d, sorted) each value falls in:
    ``searchsorted(boundaries, input)`` (``torch.bucketize``, ``aten/src/ATen/native/Bucketization.cpp``)."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _one_of(name, value, alias, alias_value):
    if value is not None:
        raise TypeError(f"isin() got both {name}= and {alias}=: give one of them")
    return alias_value


def isin(elements=None, test_elements=None, *, assume_unique=False, invert=False, element=None,
         test_element=None):
    """True where an element of ``elements`` is among ``test_elements`` (either may be a number),
    compared in their common dtype (``torch.isin``, ``aten/src/ATen/native/TensorCompare.cpp``).
    PyTorch's overloads name a number ``element`` or ``test_element`` when given by keyword."""
    if element is not None:
        elements = _one_of("elements", elements, "element", element)
    if test_element is not None:
        test_elements = _one_of("test_elements", test_elements, "test_element", test_element)
    if elements is None or test_elements is None:
        raise TypeError("isin() missing required arguments: call isin(elements, test_elements)")
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments: one of 'elements' and "
                        "'test_elements' must be a Tensor")
    like = elements if isinstance(elements, Tensor) else test_elements
    elements, test_elements = as_tensor(elements, like), as_tensor(test_elements, like)
    check_same_device(elements, test_elements)
    for t in (elements, test_elements):
        if t._dtype is _dtype.bool:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    dtype = result_type(elements, test_elements)
    xp = array_module(like._device)
    a = xp.asarray(operand_data(elements, dtype))
    b = xp.asarray(operand_data(test_elements, dtype)).reshape(-1)
    found = xp.isin(a, b, invert=builtins.bool(invert))
    return wrap(xp.asarray(found, dtype=bool), like)

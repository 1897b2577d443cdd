"""``tril_indices`` and ``triu_indices``: the coordinates of a matrix's lower or upper triangle;
and ``unravel_index``, the coordinates of flat indices.

Mirrors ``aten/src/ATen/native/TensorFactories.cpp``: a ``2 x N`` tensor, row indices then
column indices, in row-major order, for a ``row x col`` matrix and the diagonal ``offset``.
"""
from .. import _type_info
from ..core import _dtype

__all__ = ["tril_indices", "triu_indices", "unravel_index"]


def _indices(name, row, col, offset, dtype, device):
    dtype = _type_info.as_dtype(dtype) or _dtype.int64
    if dtype not in (_dtype.int64, _dtype.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype._legacy_name[:-6]}'")
    if row < 0 or col < 0:
        raise RuntimeError(f"row must be non-negative, got{row}" if row < 0 else f"col must be non-negative, got{col}")
    from .._creation import _finish

    def make(xp, dev):
        picks = (xp.tril_indices if name == "tril_indices" else xp.triu_indices)(row, offset, col)
        return xp.stack(picks).reshape(2, -1)
    return _finish(make, dtype, device, False)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(row, column)`` coordinates of the lower triangle of a ``row x col`` matrix, on and
    below the diagonal ``offset`` (``torch.tril_indices``, ``aten/src/ATen/native/TensorFactories.cpp``)."""
    return _indices("tril_indices", row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(row, column)`` coordinates of the upper triangle of a ``row x col`` matrix, on and
    above the diagonal ``offset`` (``torch.triu_indices``, ``aten/src/ATen/native/TensorFactories.cpp``)."""
    return _indices("triu_indices", row, col, offset, dtype, device)


def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in a tensor of ``shape``, one int64 tensor per
    dimension, each ``indices // stride % size`` with Python's floor rounding, so indices out of
    range wrap as in PyTorch (``torch.unravel_index``, ``torch/functional.py``)."""
    from ..core._device import array_module
    from ..core._tensor import Tensor
    from ._common import wrap
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    if indices._dtype.is_floating_point or indices._dtype is _dtype.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices._dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    xp = array_module(indices._device)
    flat = indices._data.astype(_dtype.int64.numpy)
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return tuple(wrap(xp.floor_divide(flat, stride) % size if size else flat * 0, indices)
                 for stride, size in zip(strides, shape))

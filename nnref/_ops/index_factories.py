"""``tril_indices`` and ``triu_indices``: the coordinates of a matrix's lower or upper triangle.

Mirrors ``aten/src/ATen/native/TensorFactories.cpp``: a ``2 x N`` tensor, row indices then
column indices, in row-major order, for a ``row x col`` matrix and the diagonal ``offset``.
"""
from .. import _dtype

__all__ = ["tril_indices", "triu_indices"]


def _indices(name, row, col, offset, dtype, device):
    dtype = _dtype.as_dtype(dtype) or _dtype.int64
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

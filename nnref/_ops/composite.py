"""Ops that PyTorch itself builds from others (``CompositeImplicitAutograd`` in
``native_functions.yaml``): ``meshgrid``, ``take_along_dim``, ``argwhere``,
``repeat_interleave`` and ``diag`` (``diag_embed`` or ``diagonal_copy``).

Built here from the same pieces, so their results record PyTorch's nodes
(``ExpandBackward0``, ``GatherBackward0``, ``ViewBackward0``, ``IndexSelectBackward0``).
Mirrors ``aten/src/ATen/native/TensorShape.cpp``, ``TensorAdvancedIndexing.cpp`` and
``Repeat.cpp``.
"""
import warnings

from ..core._device import array_module
from ..core._tensor import Tensor, _wrap_dim
from ..core.autograd.graph import Node
from ._common import needs_grad, record, wrap
from .indexing import nonzero
from .reorder import index_select
from .scatter import gather

__all__ = ["meshgrid", "take_along_dim", "argwhere", "repeat_interleave", "diag"]


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-d tensors, as expanded views (``indexing='ij'`` or ``'xy'``)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    bad = next((i for i, t in enumerate(tensors) if not isinstance(t, Tensor)), None)
    if bad is not None:  # meshgrid(x, "ij"): PyTorch's indexing is keyword-only
        raise TypeError(f"expected Tensor as element {bad} in argument 0, but got {type(tensors[bad]).__name__}")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                      "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    vectors = list(tensors)  # (each is viewed straight to its grid shape, as in PyTorch: no reshape node)
    swap = indexing == "xy" and len(vectors) >= 2
    if swap:
        vectors[0], vectors[1] = vectors[1], vectors[0]
    shape = tuple(v.numel() for v in vectors)
    grids = []
    for k, v in enumerate(vectors):
        view = [1] * len(vectors)
        view[k] = -1
        grids.append(v.view(view).expand(shape))
    if swap:  # 'xy': the first two grids of the swapped inputs, swapped back
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def take_along_dim(input, indices, dim=None):
    """``gather`` along ``dim`` with ``indices`` broadcast to ``input`` (flattened if ``dim`` is None)."""
    if not isinstance(indices, Tensor) or indices._dtype.name != "int64":
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices._dtype if isinstance(indices, Tensor) else type(indices).__name__}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    dim = _wrap_dim(dim, input._data.ndim)
    if input._data.ndim != indices._data.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {input._data.ndim} dimensions for input, and "
                           f"{indices._data.ndim} dimensions for indices")
    shape = [max(a, b) for a, b in zip(input.shape, indices.shape)]
    input_shape, indices_shape = list(shape), list(shape)
    input_shape[dim], indices_shape[dim] = input.shape[dim], indices.shape[dim]
    return gather(input.expand(input_shape), dim, indices.expand(indices_shape))


def argwhere(input):
    """The indices of the nonzero elements, one row each (``nonzero()``)."""
    return nonzero(input)


def repeat_interleave(input=None, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along ``dim``) repeated ``repeats`` times in a row; ``output_size``,
    when given, must be the length of the result along that dim (PyTorch's check).

    ``repeat_interleave(counts)`` (or ``repeat_interleave(repeats=counts)``, PyTorch's overload
    with the tensor alone) with only an integer tensor gives the indices ``0, 0, 1, 2, 2, ...``
    that repeat each position ``counts[i]`` times.
    """
    result = _repeat_interleave(input, repeats, dim)
    if output_size is not None and result.shape[0 if dim is None else dim] != output_size:
        raise RuntimeError("allocated size does not match required size")
    return result


def _repeat_interleave(input, repeats, dim):
    from .._creation import arange
    if input is None or repeats is None:  # torch.repeat_interleave(counts)
        counts = repeats if input is None else input
        if counts._dtype.is_floating_point:
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                      f"'{counts._dtype._legacy_name[:-6]}'")
        if counts._data.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return index_select(arange(counts.shape[0] if counts._data.ndim else 1, device=counts.device), 0,
                            _positions(counts))
    if dim is None:
        input, dim = input.flatten(), 0
    dim = _wrap_dim(dim, max(input._data.ndim, 1))
    if isinstance(repeats, Tensor) and repeats._data.ndim:
        if repeats.shape[0] not in (1, input.shape[dim]):
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) "
                               f"= {repeats.shape[0]} and input.size({dim}) = {input.shape[dim]}")
        if repeats.shape[0] == input.shape[dim]:
            return index_select(input, dim, _positions(repeats))
        repeats = int(repeats.item())
    repeats = int(repeats.item()) if isinstance(repeats, Tensor) else int(repeats)
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    shape = list(input.shape)
    expanded = input.unsqueeze(dim + 1).expand(shape[:dim + 1] + [repeats] + shape[dim + 1:])
    shape[dim] *= repeats
    return expanded.contiguous().view(shape)


def _positions(counts):
    """``0`` repeated ``counts[0]`` times, then ``1`` ``counts[1]`` times, ... (int64)."""
    if counts._dtype.is_floating_point:
        raise RuntimeError("repeat_interleave: repeats has to be Long or Int tensor")
    data = counts._data.reshape(-1)
    if data.size and data.min() < 0:
        raise RuntimeError("repeats can not be negative")
    xp = array_module(counts._device)
    return wrap(xp.repeat(xp.arange(data.size), data.astype("int64")).astype("int64"), counts)


class DiagEmbedBackward0(Node):
    """The node of ``diag`` of a vector (PyTorch builds it with ``diag_embed``)."""

    def backward(self, grad):
        return (grad.diagonal(self.offset),)


class DiagonalBackward0_copy(Node):  # noqa: N801 - PyTorch's name for the node of diagonal_copy
    def backward(self, grad):
        from .._creation import zeros
        rows, columns = self.self_sizes
        flat = zeros(rows * columns, dtype=grad.dtype, device=grad.device)
        return (flat.scatter_add(0, self.positions, grad).view(rows, columns),)


def diag(input, diagonal=0):
    """A vector's square matrix with it on diagonal ``diagonal``, or a matrix's ``diagonal``-th diagonal
    (a copy)."""
    xp = array_module(input._device)
    if input._data.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input._data.ndim}D")
    if input._data.ndim == 1:
        out = wrap(xp.diag(input._data, diagonal), input)
        return record(out, DiagEmbedBackward0, (input,), offset=diagonal)
    rows, columns = input._data.shape
    data = xp.diagonal(input._data, diagonal).copy()
    out = wrap(data, input)
    if needs_grad(input):
        start_row, start_column = max(-diagonal, 0), max(diagonal, 0)
        positions = (xp.arange(data.shape[0]) + start_row) * columns + xp.arange(data.shape[0]) + start_column
        out.grad_fn = DiagonalBackward0_copy((input,), self_sizes=(rows, columns),
                                             positions=wrap(positions.astype("int64"), input))
    return out

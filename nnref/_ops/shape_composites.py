"""PyTorch's shape composites: ``tensor_split`` (``hsplit``, ``vsplit``, ``dsplit``), ``hstack``,
``vstack``, ``dstack``, ``column_stack``, ``atleast_1d/2d/3d``, ``broadcast_tensors``, ``fliplr``,
``flipud``, ``rot90`` and ``diff``.

Mirrors ``aten/src/ATen/native/TensorShape.cpp`` (``TensorTransformations.cpp`` for ``rot90``,
``fliplr``, ``flipud``; ``ReduceOps.cpp`` for ``diff``).  Except ``rot90``, which has its own node,
PyTorch builds each from other ops (slices, ``cat``, ``unsqueeze``, ``flip``, ``sub``), and so does
nnref: the autograd graph has the same nodes as PyTorch's.
"""
import builtins
from collections import namedtuple

import numpy as np

from ..core import _dtype
from ..core._device import array_module
from ..core._tensor import Tensor, _wrap_dim
from ..core.autograd.graph import Node
from ._common import broadcast_error, record, wrap
from .indexing import narrow
from .reorder import flip
from .shape import cat, expand, reshape, unsqueeze

__all__ = ["tensor_split", "hsplit", "vsplit", "dsplit", "hstack", "vstack", "dstack", "column_stack",
           "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_tensors", "fliplr", "flipud", "rot90", "diff",
           "cartesian_prod", "unique_consecutive", "narrow_copy"]


# -- splitting -------------------------------------------------------------------------------------
def _pieces(input, dim, bounds):
    """``input[start:end]`` along ``dim`` between consecutive bounds, as Python slices (clamped;
    empty where a bound is below the one before)."""
    size = input._data.shape[dim]
    edges = [0] + [builtins.min(builtins.max(b + size if b < 0 else b, 0), size) for b in bounds] + [size]
    return tuple(narrow(input, dim, start, builtins.max(end - start, 0)) for start, end in zip(edges, edges[1:]))


def _split_argument(name, positional, **keywords):
    """The one split argument of PyTorch's overloads ``(input, sections)``, ``(input, indices)``
    and ``(input, tensor_indices_or_sections)``, given by position or under its overload's name."""
    given = [value for value in (positional, *keywords.values()) if value is not None]
    if len(given) != 1:
        raise TypeError(f"{name}() takes one split argument: a number of sections or a list of "
                        f"indices, by position or as {' or '.join(f'{k}=' for k in keywords)}")
    return given[0]


def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """Views of ``input`` split along ``dim``: into ``n`` nearly equal parts (the first
    ``size % n`` one longer), or at the given indices (``torch.tensor_split``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    indices_or_sections = _split_argument("tensor_split", indices_or_sections, sections=sections,
                                          indices=indices,
                                          tensor_indices_or_sections=tensor_indices_or_sections)
    if not input._data.ndim:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = _wrap_dim(dim, input._data.ndim)
    split = indices_or_sections
    if isinstance(split, Tensor):
        if split._dtype.is_floating_point or split._dtype is _dtype.bool or split._data.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               "one-dimensional tensor, but got a tensor with "
                               f"{split._data.ndim} dims" if split._data.ndim > 1 else
                               "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               + split._dtype._legacy_name[:-6])
        split = split.item() if not split._data.ndim else [int(i) for i in split.tolist()]
    if isinstance(split, int):
        if split <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {split}")
        size = input._data.shape[dim]
        base, extra = divmod(size, split)
        bounds, end = [], 0
        for i in range(split - 1):
            end += base + (1 if i < extra else 0)
            bounds.append(end)
        return _pieces(input, dim, bounds)
    return _pieces(input, dim, [int(i) for i in split])


def _directional_split(name, input, split, dim, min_dims):
    if input._data.ndim < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
                           f"tensor with {input._data.ndim} dimensions!")
    if isinstance(split, int):
        size = input._data.shape[dim]
        if split == 0 or size % split:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {split}!")
    return tensor_split(input, split, dim)


def hsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 1 (dim 0 of a 1-d tensor); a number of sections must divide the
    size (``torch.hsplit``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    split = _split_argument("hsplit", indices_or_sections, sections=sections, indices=indices)
    return _directional_split("hsplit", input, split, 1 if input._data.ndim > 1 else 0, 1)


def vsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 0 of a tensor of 2 or more dims (``torch.vsplit``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    split = _split_argument("vsplit", indices_or_sections, sections=sections, indices=indices)
    return _directional_split("vsplit", input, split, 0, 2)


def dsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 2 of a tensor of 3 or more dims (``torch.dsplit``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    split = _split_argument("dsplit", indices_or_sections, sections=sections, indices=indices)
    return _directional_split("dsplit", input, split, 2, 3)


# -- at least n dims, and stacking ------------------------------------------------------------------
def _each(function, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return function(tensors[0])
    if len(tensors) == 1:
        tensors = tensors[0]
    return tuple(function(t) for t in tensors)


def _at_least_1d(t):
    return reshape(t, (1,)) if not t._data.ndim else t


def _at_least_2d(t):
    ndim = t._data.ndim
    return reshape(t, (1, 1)) if ndim == 0 else unsqueeze(t, 0) if ndim == 1 else t


def _at_least_3d(t):
    ndim = t._data.ndim
    if ndim == 0:
        return reshape(t, (1, 1, 1))
    if ndim == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if ndim == 2 else t


def atleast_1d(*tensors):
    """Each tensor with at least one dimension (a 0-d one becomes shape ``(1,)``); one tensor in,
    one out (``torch.atleast_1d``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    return _each(_at_least_1d, tensors)


def atleast_2d(*tensors):
    """Each tensor with at least two dimensions (a 1-d one becomes a row) (``torch.atleast_2d``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    return _each(_at_least_2d, tensors)


def atleast_3d(*tensors):
    """Each tensor with at least three dimensions (``(n,)`` becomes ``(1, n, 1)``, ``(m, n)``
    ``(m, n, 1)``) (``torch.atleast_3d``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    return _each(_at_least_3d, tensors)


def _tensor_list(name, tensors):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    """The tensors joined column-wise: along dim 1, or dim 0 for 1-d tensors (``torch.hstack``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    tensors = [_at_least_1d(t) for t in _tensor_list("hstack", tensors)]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    """The tensors joined row-wise (along dim 0, 1-d tensors as rows) (``torch.vstack``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    return cat([_at_least_2d(t) for t in _tensor_list("vstack", tensors)], 0)


def dstack(tensors):
    """The tensors joined depth-wise, along dim 2 of ``atleast_3d`` of each (``torch.dstack``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    return cat([_at_least_3d(t) for t in _tensor_list("dstack", tensors)], 2)


def column_stack(tensors):
    """1-d (and 0-d) tensors as columns beside the 2-d ones, joined along dim 1
    (``torch.column_stack``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    tensors = _tensor_list("column_stack", tensors)
    return hstack([reshape(t, (t.numel(), 1)) if t._data.ndim <= 1 else t for t in tensors])


def broadcast_tensors(*tensors):
    """The tensors expanded to their common broadcast shape (views; a tensor already of that
    shape comes back itself) (``torch.broadcast_tensors``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    if len(tensors) == 1 and not isinstance(tensors[0], Tensor):
        tensors = tuple(tensors[0])
    shape = ()
    for t in tensors:
        try:
            shape = np.broadcast_shapes(shape, t._data.shape)
        except ValueError:
            raise broadcast_error(_Shape(shape), t._data) from None
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


class _Shape(namedtuple("_Shape", "shape")):
    """A shape where ``broadcast_error`` expects an array."""


# -- turning -----------------------------------------------------------------------------------------
def fliplr(input):
    """The columns in reverse order (``flip(input, 1)``; at least 2-d) (``torch.fliplr``,
    ``aten/src/ATen/native/TensorTransformations.cpp``)."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input):
    """The rows in reverse order (``flip(input, 0)``; at least 1-d) (``torch.flipud``,
    ``aten/src/ATen/native/TensorTransformations.cpp``)."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class Rot90Backward0(Node):
    def backward(self, grad):
        return (rot90(grad, -self.k, self.dims),)


def rot90(input, k=1, dims=(0, 1)):
    """A copy turned by ``k`` quarter turns in the plane of ``dims``, from the first dim towards the
    second (``torch.rot90``, ``aten/src/ATen/native/TensorTransformations.cpp``)."""
    dims = list(dims)
    ndim = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    first, second = _wrap_dim(dims[0], ndim), _wrap_dim(dims[1], ndim)
    if first == second:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {first} and dim1 = {second}")
    xp = array_module(input._device)
    out = wrap(xp.ascontiguousarray(xp.rot90(input._data, k % 4, axes=(first, second))), input)
    return record(out, Rot90Backward0, (input,), k=k, dims=tuple(dims))


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim``, ``out[i] = input[i + 1] - input[i]`` (bool
    tensors: ``!=``), after joining ``prepend`` and ``append`` (``torch.diff``,
    ``aten/src/ATen/native/ReduceOps.cpp``)."""
    if not input._data.ndim:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = _wrap_dim(dim, input._data.ndim)
    if prepend is not None or append is not None:
        parts = []
        for extra in (prepend, input, append):
            if extra is None:
                continue
            if not isinstance(extra, Tensor):
                raise TypeError(f"diff(): argument 'prepend' must be Tensor, not {type(extra).__name__}")
            if extra._data.ndim != input._data.ndim:
                raise RuntimeError("diff expects prepend or append to be the same dimension as input")
            parts.append(extra)
        input = cat(parts, dim)
    from .arithmetic import sub
    from .logical import logical_xor
    if n == 0:  # a copy, made as PyTorch makes it (CopyBackwards)
        from .._creation import zeros_like
        return zeros_like(input).copy_(input)
    for _ in range(n):
        length = input._data.shape[dim]
        if length == 0:
            break
        later, earlier = narrow(input, dim, 1, length - 1), narrow(input, dim, 0, length - 1)
        input = logical_xor(later, earlier) if input._dtype is _dtype.bool else sub(later, earlier)
    return input


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-d tensor, one per row (one tensor comes back
    itself): ``meshgrid``, ``flatten``, ``stack`` as in PyTorch (``torch.cartesian_prod``,
    ``aten/src/ATen/native/Itertools.cpp``)."""
    from .composite import meshgrid
    from .shape import flatten, stack
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([flatten(g) for g in meshgrid(*tensors, indexing="ij")], 1)


class UniqueConsecutiveBackward0(Node):
    def backward(self, grad):
        raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive values (slices along ``dim``) kept once; with
    ``return_inverse``, the run each element belongs to, and with ``return_counts``, each run's
    length (``torch.unique_consecutive``, ``aten/src/ATen/native/Unique.cpp``)."""
    from ._common import needs_grad
    xp = array_module(input._device)
    data = input._data
    if dim is None:
        rows = data.reshape(-1, 1)
        shape = data.shape
    else:
        dim = _wrap_dim(dim, data.ndim)
        rows = xp.moveaxis(data, dim, 0).reshape(data.shape[dim], -1)
        shape = (data.shape[dim],)
    n = rows.shape[0]
    if n:
        starts = xp.concatenate([xp.ones(1, dtype=bool), xp.any(rows[1:] != rows[:-1], axis=1)])
    else:
        starts = xp.zeros(0, dtype=bool)
    kept = xp.nonzero(starts)[0]
    if dim is None:
        values = data.reshape(-1)[kept]
    else:
        values = xp.ascontiguousarray(xp.take(data, kept, axis=dim))
    out = wrap(values, input)
    if needs_grad(input):
        out.grad_fn = UniqueConsecutiveBackward0((input,))
    results = [out]
    if return_inverse:
        results.append(wrap((xp.cumsum(starts.astype(np.int64)) - 1).reshape(shape), input))
    if return_counts:
        results.append(wrap(xp.diff(xp.concatenate([kept, xp.asarray([n])])).astype(np.int64), input))
    return results[0] if len(results) == 1 else tuple(results)


class NarrowCopyBackward0(Node):
    def backward(self, grad):
        from .indexing import _place_into_zeros
        return (_place_into_zeros(grad, self.self_sizes, (slice(None),) * self.dim + (slice(self.start, self.end),)),)


def narrow_copy(input, dim, start, length):
    """A copy of ``length`` elements of ``dim`` from ``start`` (``narrow``, but never a view)
    (``torch.narrow_copy``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim]
    if start < 0:
        start += size
    if start + length > size or length < 0 or start < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    xp = array_module(input._device)
    out = wrap(xp.ascontiguousarray(input._data[(slice(None),) * dim + (slice(start, start + length),)]), input)
    return record(out, NarrowCopyBackward0, (input,), dim=dim, start=start, end=start + length,
                  self_sizes=input._data.shape)

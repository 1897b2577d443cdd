"""``flip``, ``roll``, ``index_select``, ``masked_select``, ``index_add`` and ``unique``: copies that
reorder, pick or gather elements.

Mirrors ``aten/src/ATen/native/TensorTransformations.cpp`` (flip, roll) and
``TensorAdvancedIndexing.cpp`` (index_select, masked_select); the gradients are those of
``derivatives.yaml``: flip and roll the gradient back, and put picked elements' gradients
back where they came from with ``scatter_add``, so the backward passes differentiate again.
"""
import builtins

from ..core import _dtype
from ..core._device import array_module
from .. import _meta
from ..core._tensor import Tensor, _wrap_dim
from ..core.autograd.graph import Node
from ._common import check_same_device, needs_grad, record, size_arguments, wrap
from .scatter import scatter_add

__all__ = ["flip", "roll", "index_select", "masked_select", "index_add", "unique"]


def _flip_dims(dims, ndim):
    dims = tuple(_wrap_dim(d, ndim) for d in ((dims,) if isinstance(dims, int) else dims))
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dims has duplicates, original flip dims size={len(dims)}, but unique "
                           f"flip dims size={len(set(dims))}")
    return dims


class FlipBackward0(Node):
    def backward(self, grad):
        return (flip(grad, self.dims),)


def flip(input, *args, dims=None):
    """A copy with the order of the elements reversed along ``dims`` (``flip(0, 1)``,
    ``flip((0, 1))`` or ``flip(dims=(0, 1))``)."""
    dims = _flip_dims(size_arguments("flip", "dims", args, dims), builtins.max(input._data.ndim, 1))
    xp = array_module(input._device)
    data = xp.flip(input._data, axis=dims).copy() if input._data.ndim else input._data.copy()
    out = wrap(data, input)
    return record(out, FlipBackward0, (input,), dims=dims)


class RollBackward0(Node):
    def backward(self, grad):
        return (roll(grad, tuple(-s for s in self.shifts), self.dims),)


def roll(input, shifts, dims=None):
    """A copy with the elements shifted cyclically by ``shifts`` along ``dims`` (flattened if None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"`shifts` required to be of size 1 when `dims` is not given, but got "
                               f"{len(shifts)}")
        dims_tuple = None
    else:
        dims_tuple = (dims,) if isinstance(dims, int) else tuple(dims)
        if len(shifts) != len(dims_tuple):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                               f"{len(dims_tuple)}")
        dims_tuple = tuple(_wrap_dim(d, builtins.max(input._data.ndim, 1)) for d in dims_tuple)
    xp = array_module(input._device)
    if dims_tuple is None:
        data = xp.roll(input._data.reshape(-1), shifts[0]).reshape(input._data.shape)
    else:
        data = xp.roll(input._data, shifts, axis=dims_tuple)
    out = wrap(data, input)
    return record(out, RollBackward0, (input,), shifts=shifts, dims=dims_tuple)


def _along(index, dim, shape):
    """``index`` (1-d) set along ``dim`` and expanded to ``shape``: a scatter index."""
    view = [1] * len(shape)
    view[dim] = -1
    return index.reshape(view).expand(shape)


class IndexSelectBackward0(Node):
    def backward(self, grad):
        from .._creation import zeros
        if not self.self_sizes:
            return (grad.reshape(()),)
        target = zeros(self.self_sizes, dtype=grad.dtype, device=grad.device)
        return (scatter_add(target, self.dim, _along(self.index, self.dim, grad.shape), grad),)


def index_select(input, dim, index):
    """The slices of ``input`` at positions ``index`` (a 1-d integer tensor) along ``dim``."""
    if not isinstance(index, Tensor) or index._dtype.name not in ("int64", "int32"):
        got = index._dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"index_select(): Expected dtype int32 or int64 for index, got {got}; "
                           "convert it with index.long()")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    check_same_device(input, index)
    ndim = input._data.ndim
    dim = _wrap_dim(dim, builtins.max(ndim, 1))
    size = input._data.shape[dim] if ndim else 1
    positions = index._data.reshape(-1).astype("int64")
    if positions.size and _meta.has_values(positions) and (positions.min() < 0 or positions.max() >= size):
        bad = int(positions.max()) if positions.max() >= size else int(positions.min())
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    xp = array_module(input._device)
    data = xp.take(input._data, positions, axis=dim) if ndim else input._data.reshape(-1)[positions].reshape(
        index._data.shape)
    out = wrap(data, input)
    if needs_grad(input):
        out.grad_fn = IndexSelectBackward0((input,), dim=dim, self_sizes=input._data.shape,
                                           index=wrap(positions, index))
    return out


class MaskedSelectBackward0(Node):
    def backward(self, grad):
        from .._creation import zeros
        flat = zeros(self.numel, dtype=grad.dtype, device=grad.device)
        placed = scatter_add(flat, 0, self.positions, grad).reshape(self.shape)
        return (placed.sum_to_size(self.self_sizes),)


def masked_select(input, mask):
    """The elements of ``input`` where ``mask`` (bool, broadcast with it) is True, as a 1-d tensor."""
    if not isinstance(mask, Tensor) or mask._dtype is not _dtype.bool:
        got = mask._dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {got}; compare to get "
                           "one, e.g. x > 0")
    check_same_device(input, mask)
    xp = array_module(input._device)
    try:
        data, chosen = xp.broadcast_arrays(input._data, mask._data)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({list(input.shape)}) must match the size of tensor b "
                           f"({list(mask.shape)}) for masked_select") from None
    flat_positions = xp.flatnonzero(chosen)
    out = wrap(data.reshape(-1)[flat_positions], input)
    if needs_grad(input):
        out.grad_fn = MaskedSelectBackward0((input,), numel=int(chosen.size), shape=chosen.shape,
                                            self_sizes=input._data.shape,
                                            positions=wrap(flat_positions.astype("int64"), input))
    return out


class IndexAddBackward0(Node):
    def backward(self, grad):
        if not self.needs_input_grad[1]:
            return (grad, None)
        source_grad = index_select(grad, self.dim, self.index) * self.alpha
        return (grad, source_grad if self.source_sizes else source_grad.reshape(()))


def index_add(input, dim, index, source, *, alpha=1):
    """A copy of ``input`` with ``alpha * source``'s slices added at positions ``index`` along ``dim``
    (repeated positions add up)."""
    if not isinstance(index, Tensor) or index._dtype.name not in ("int64", "int32"):
        got = index._dtype._legacy_name[:-6] if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {got}")
    check_same_device(input, index)
    check_same_device(input, source)
    ndim = input._data.ndim
    dim = _wrap_dim(dim, builtins.max(ndim, 1))
    size = input._data.shape[dim] if ndim else 1
    positions = index._data.reshape(-1).astype("int64")
    if positions.size and _meta.has_values(positions) and (positions.min() < 0 or positions.max() >= size):
        raise IndexError("index out of range in self")
    xp = array_module(input._device)
    data = input._data.copy()
    added = source._data.astype(data.dtype, copy=False) * data.dtype.type(alpha)
    if ndim:
        where = [slice(None)] * ndim
        where[dim] = positions
        target_shape = data.shape[:dim] + (positions.size,) + data.shape[dim + 1:]
        xp.add.at(data, tuple(where), added.reshape(target_shape))
    else:
        data = data + added.reshape(())
    out = wrap(data, input)
    if needs_grad(input, source):
        out.grad_fn = IndexAddBackward0((input, source), dim=dim, alpha=alpha,
                                        index=wrap(positions, index),
                                        source_sizes=source._data.shape)
    return out


class Unique2Backward0(Node):
    def backward(self, grad):
        raise NotImplementedError("the derivative for '_unique2' is not implemented.")


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values in ascending order (PyTorch's CPU kernel sorts even with ``sorted=False``);
    with ``return_inverse``, where each element went, and with ``return_counts``, how often each occurs."""
    xp = array_module(input._device)
    if dim is not None:
        dim = _wrap_dim(dim, input._data.ndim)
        values, inverse, counts = xp.unique(input._data, axis=dim, return_inverse=True, return_counts=True)
    else:
        values, inverse, counts = xp.unique(input._data.reshape(-1), return_inverse=True, return_counts=True)
        inverse = inverse.reshape(input._data.shape)
    out = wrap(values, input)
    if needs_grad(input):
        out.grad_fn = Unique2Backward0((input,))
    results = [out]
    if return_inverse:
        results.append(wrap(inverse.astype("int64"), input))
    if return_counts:
        results.append(wrap(counts.astype("int64"), input))
    return results[0] if len(results) == 1 else tuple(results)

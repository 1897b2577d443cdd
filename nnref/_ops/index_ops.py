"""Writing into picked places: ``index_copy``, ``index_fill``, ``masked_scatter``, ``select_scatter``,
``slice_scatter``, ``diagonal_scatter``; and ``take``, reading from the flattened tensor.

Mirrors ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` (``TensorShape.cpp`` for the two
``*_scatter`` ops); each returns a new tensor (the in-place forms write it back).  Gradients are
those of ``tools/autograd/derivatives.yaml``: the overwritten places get none, the written values
get the gradient read back from their places, all with nnref ops so that they differentiate again.
"""
import math

from ..core import _dtype
from .. import _meta
from ..core._device import array_module
from .._type_info import checked_scalar
from ..core._tensor import Tensor, _wrap_dim
from ..core.autograd.graph import Node
from ._common import check_same_device, record, wrap
from .inplace import apply_inplace_from_copies

__all__ = ["index_copy", "index_fill", "masked_scatter", "select_scatter", "slice_scatter", "diagonal_scatter", "take"]


def _long_index(name, index):
    if index._dtype is not _dtype.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {index._dtype._legacy_name[:-6]}")


def _region(dim, where):
    return (slice(None),) * dim + (where,)


class IndexCopyBackward0(Node):
    def backward(self, grad):
        from .reorder import index_select
        wants_self, wants_source = self.needs_input_grad
        return (index_fill(grad, self.dim, self.index, 0) if wants_self else None,
                index_select(grad, self.dim, self.index).reshape(self.source_sizes) if wants_source else None)


def index_copy(input, dim, index, source):
    """A copy of ``input`` with the slices ``index`` along ``dim`` replaced by ``source``'s
    (``torch.index_copy``, ``aten/src/ATen/native/TensorAdvancedIndexing.cpp``)."""
    _long_index("index_copy_", index)
    check_same_device(input, source)
    if input._dtype is not source._dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{input._dtype._legacy_name[:-6]} and (source) {source._dtype._legacy_name[:-6]}")
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim] if input._data.ndim else 1
    picks = index._data.reshape(-1)
    for i in picks.tolist():
        if not 0 <= i < size:
            raise IndexError(f"index_copy_(): index {i} is out of bounds for dimension {dim} with size {size}")
    data = input._data.copy()
    if input._data.ndim:
        expected = input._data.shape[:dim] + (picks.size,) + input._data.shape[dim + 1:]
        if source._data.size != math.prod(expected) or (source._data.ndim and source._data.shape != expected):
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               f"slice shape: {list(expected)} and source slice shape: {list(source._data.shape)}")
        data[_region(dim, picks)] = source._data.reshape(expected)
    else:
        data[...] = source._data.reshape(())
    out = wrap(data, input)
    return record(out, IndexCopyBackward0, (input, source), dim=dim, index=index, source_sizes=source._data.shape)


class IndexFillBackward0(Node):
    def backward(self, grad):
        return (index_fill(grad, self.dim, self.index, 0),)


class IndexFillBackward1(Node):
    def backward(self, grad):
        from .reorder import index_select
        wants_self, wants_value = self.needs_input_grad
        grad_value = None
        if wants_value:  # each filled slice once (``_unique(index)``); a negative index fails there, as in PyTorch
            from .reorder import unique
            grad_value = index_select(grad, self.dim, unique(self.index, sorted=False)).sum()
        return (index_fill(grad, self.dim, self.index, 0) if wants_self else None, grad_value)


def index_fill(input, dim, index, value):
    """A copy of ``input`` with the slices ``index`` along ``dim`` set to ``value`` (a number or a
    0-d tensor; negative indices count from the end) (``torch.index_fill``,
    ``aten/src/ATen/native/TensorAdvancedIndexing.cpp``)."""
    _long_index("index_fill_", index)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim] if input._data.ndim else 1
    picks = index._data.reshape(-1)
    for i in picks.tolist():
        if not -size <= i < size:
            raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
    data = input._data.copy()
    fill = (checked_scalar(value.item(), input._dtype) if isinstance(value, Tensor)
            else checked_scalar(value, input._dtype))
    if input._data.ndim:
        data[_region(dim, picks)] = fill
    elif picks.size:
        data[...] = fill
    out = wrap(data, input)
    if isinstance(value, Tensor):
        return record(out, IndexFillBackward1, (input, value), dim=dim, index=index)
    return record(out, IndexFillBackward0, (input,), dim=dim, index=index)


class MaskedScatterBackward0(Node):
    def backward(self, grad):
        from .._creation import zeros
        from .pointwise import masked_fill
        from .reorder import masked_select
        from .shape import cat
        wants_self, wants_source = self.needs_input_grad
        grad_source = None
        if wants_source:
            picked = masked_select(grad, self.mask)
            missing = math.prod(self.source_sizes) - picked._data.size
            if missing:
                picked = cat([picked, zeros(missing, dtype=grad.dtype, device=grad.device)])
            grad_source = picked.view(self.source_sizes)
        return (masked_fill(grad, self.mask, 0.0) if wants_self else None, grad_source)


def masked_scatter(input, mask, source):
    """A copy of ``input`` whose places where ``mask`` is True take ``source``'s elements in order
    (``torch.masked_scatter``, ``aten/src/ATen/native/TensorAdvancedIndexing.cpp``)."""
    if mask._dtype is not _dtype.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask._dtype._legacy_name[:-6]}")
    if input._dtype is not source._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{input._dtype._legacy_name[:-6]} and {source._dtype._legacy_name[:-6]}")
    check_same_device(input, source)
    xp = array_module(input._device)
    try:
        full_mask = xp.broadcast_to(mask._data, input._data.shape)
    except ValueError:
        from ._common import broadcast_error
        raise broadcast_error(input._data, mask._data) from None
    count = int(full_mask.sum())
    if count > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    data = input._data.copy()
    data[full_mask] = source._data.reshape(-1)[:count]
    out = wrap(data, input)
    mask = mask if mask._data.shape == input._data.shape else wrap(xp.ascontiguousarray(full_mask), mask)
    return record(out, MaskedScatterBackward0, (input, source), mask=mask, source_sizes=source._data.shape)


def apply_masked_scatter_(self, op, mask, source):
    """``masked_scatter_``: PyTorch checks no overlap and reads ``source`` while it writes, so a
    source sharing ``self``'s memory gives a result of its loop order, which nnref does not model."""
    if (type(self._data) is type(source._data) and source._data.size and _meta.has_values(source._data)
            and array_module(self._device).may_share_memory(self._data, source._data)):
        raise NotImplementedError("nnref cannot reproduce masked_scatter_ with a source that shares "
                                  "memory with the tensor written to: PyTorch's result depends on the "
                                  "order of its writes. Pass source.clone().")
    return apply_inplace_from_copies(self, op, mask, source)


class _ScatterIntoRegion(Node):
    def backward(self, grad):
        from .._creation import zeros
        wants_self, wants_src = self.needs_input_grad
        blank = zeros(self.src_sizes, dtype=grad.dtype, device=grad.device)
        return (self.scatter(grad, blank) if wants_self else None, self.read(grad) if wants_src else None)


class SelectScatterBackward0(_ScatterIntoRegion):
    def scatter(self, grad, blank):
        return select_scatter(grad, blank, self.dim, self.index)

    def read(self, grad):
        from .indexing import select
        return select(grad, self.dim, self.index)


class SliceScatterBackward0(_ScatterIntoRegion):
    def scatter(self, grad, blank):
        return slice_scatter(grad, blank, self.dim, self.start, self.end, self.step)

    def read(self, grad):
        return grad[_region(self.dim, slice(self.start, self.end, self.step))]


def _scatter_into(input, src, region, node_class, **fields):
    check_same_device(input, src)
    expected = input._data[region].shape
    if src._data.shape != expected:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(expected)}")
    data = input._data.copy()
    data[region] = src._data.astype(input._dtype.numpy, copy=False)
    out = wrap(data, input)
    return record(out, node_class, (input, src), src_sizes=src._data.shape, **fields)


def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``
    (``torch.select_scatter``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {dim}")
    index = index % size
    return _scatter_into(input, src, _region(dim, index), SelectScatterBackward0, dim=dim, index=index)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with the slice ``start:end:step`` of ``dim`` replaced by ``src``
    (``torch.slice_scatter``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    dim = _wrap_dim(dim, input._data.ndim)
    return _scatter_into(input, src, _region(dim, slice(start, end, step)), SliceScatterBackward0, dim=dim,
                         start=start, end=end, step=step)


class DiagonalScatterBackward0(_ScatterIntoRegion):
    def scatter(self, grad, blank):
        return diagonal_scatter(grad, blank, self.offset, self.dim1, self.dim2)

    def read(self, grad):
        from .tensor_shape import diagonal
        return diagonal(grad, self.offset, self.dim1, self.dim2)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``
    (``torch.diagonal_scatter``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    check_same_device(input, src)
    ndim = input._data.ndim
    first, second = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    xp = array_module(input._device)
    data = input._data.copy()
    planes = xp.moveaxis(data, (first, second), (-2, -1))  # a view of data
    rows, columns = planes.shape[-2], planes.shape[-1]
    n = max(0, min(rows - max(-offset, 0), columns - max(offset, 0)))
    expected = planes.shape[:-2] + (n,)
    if src._data.shape != expected:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(expected)}")
    steps = xp.arange(n)
    planes[..., steps + max(-offset, 0), steps + max(offset, 0)] = src._data.astype(data.dtype, copy=False)
    out = wrap(data, input)
    return record(out, DiagonalScatterBackward0, (input, src), src_sizes=src._data.shape, offset=offset,
                  dim1=first, dim2=second)


class TakeBackward0(Node):
    def backward(self, grad):
        from .._creation import zeros
        from .reorder import index_add
        flat = zeros(self.numel, dtype=grad.dtype, device=grad.device)
        return (index_add(flat, 0, self.index.reshape(-1), grad.reshape(-1)).view(self.self_sizes),)


def take(input, index):
    """The elements of the flattened ``input`` at ``index`` (negative counts from the end), in
    ``index``'s shape (``torch.take``, ``aten/src/ATen/native/TensorAdvancedIndexing.cpp``)."""
    _long_index("take", index)
    check_same_device(input, index)
    numel = input._data.size
    picks = index._data
    if picks.size:
        low, high = int(picks.min()), int(picks.max())
        for i in (low, high):
            if not -numel <= i < numel:
                raise IndexError(f"out of range: tried to access index {i} on a tensor of {numel} elements.")
    wrapped = picks % numel if numel else picks
    out = wrap(input._data.reshape(-1)[wrapped], input)
    return record(out, TakeBackward0, (input,), index=wrap(wrapped, index), numel=numel,
                  self_sizes=input._data.shape)

"""``t[...]``: basic indexing as a chain of views, integer-array/bool indexing as a gather.

Like PyTorch (``torch/csrc/autograd/python_variable_indexing.cpp``), each
integer in the index becomes a ``select`` (``SelectBackward0``), each slice
that is not ``:`` a ``slice`` (``SliceBackward0``), ``None`` an ``unsqueeze``;
tensors, lists and bool masks then go through one ``index``
(``IndexBackward0``), whose backward adds the gradient back into zeros.
"""
import numbers
import warnings

import numpy as np

from ..core import _dtype
from .._half import through_float32
from ..core._device import array_module, array_module_of
from ..core._tensor import Tensor, _wrap_dim
from ..core.autograd.graph import Node
from ._common import needs_grad, record, wrap
from .pointwise import masked_fill
from .shape import alias, unsqueeze
from ..core import _views
from ..core._seams import install
from ..core._views import check_inplace, make_view, rebase_history


class SelectBackward0(Node):
    def backward(self, grad):
        return (_place_into_zeros(grad.unsqueeze(self.dim), self.self_sizes, self._region()),)

    def _region(self):
        region = [slice(None)] * len(self.self_sizes)
        region[self.dim] = slice(self.index, self.index + 1)
        return tuple(region)


def select(input, dim, index):
    """The slice at ``index`` along ``dim``, with that dimension removed (a view)."""
    if input._data.ndim == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    index %= size
    # The trailing ... keeps a 0-d result a view (numpy would hand back a copied scalar).
    out = make_view(input, input._data[(slice(None),) * dim + (index, Ellipsis)])
    return record(out, SelectBackward0, (input,), dim=dim, index=index,
                  self_sizes=input._data.shape)


class SliceBackward0(Node):
    def backward(self, grad):
        region = [slice(None)] * len(self.self_sizes)
        region[self.dim] = self.slice
        return (_place_into_zeros(grad, self.self_sizes, tuple(region)),)


def slice_dim(input, dim, item):
    """``input[..., start:stop:step, ...]`` along one dimension (a view)."""
    if item.step is not None and item.step <= 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = item.indices(input._data.shape[dim])
    item = slice(start, max(start, stop), step)
    out = make_view(input, input._data[(slice(None),) * dim + (item,)])
    return record(out, SliceBackward0, (input,), dim=dim, slice=item, self_sizes=input._data.shape)


def narrow(input, dim, start, length):
    """``length`` elements of ``dim`` from ``start`` (a view)."""
    dim = _wrap_dim(dim, input._data.ndim)
    return slice_dim(input, dim, slice(start, start + length))  # a new view even when it is all of it


class PlaceIntoZerosBackward(Node):
    """Backward of writing a gradient into a zero tensor (double backward): read the region back."""

    def backward(self, grad):
        return (grad[self.region],)


def _place_into_zeros(grad, shape, region):
    """A zero tensor of ``shape`` with ``grad`` written at ``region`` (differentiable in grad)."""
    xp = array_module(grad._device)
    data = xp.zeros(shape, dtype=grad._data.dtype)
    data[region] = grad._data
    out = wrap(data, grad)
    return record(out, PlaceIntoZerosBackward, (grad,), region=region)


class IndexBackward0(Node):
    """Scatter-add the gradient back to the positions the index read (repeats accumulate)."""

    def backward(self, grad):
        return (_index_add_into_zeros(grad, self.self_sizes, self.index),)


class IndexPutBackward0(Node):
    """``self[index] = values`` (``index_put``): ``values`` gets the gradient of the written
    positions; ``self`` keeps the rest (it was overwritten there).  When the write accumulates
    into zeros (the backward of indexing), ``self`` is no input at all: its edge is ``None``.
    """

    def backward(self, grad):
        wants_self, wants_values = self.needs_input_grad
        return (masked_fill(grad, self.mask, 0.0) if wants_self else None,
                index_tensor(grad, self.index) if wants_values else None)


def _index_add_into_zeros(grad, shape, index):
    xp = array_module(grad._device)
    data = xp.zeros(shape, dtype=grad._data.dtype)
    xp.add.at(data, index, grad._data)
    out = wrap(data, grad)
    if needs_grad(grad):
        out.grad_fn = IndexPutBackward0((None, grad), index=index)
    return out


def index_tensor(input, index):
    """``input[index]`` where ``index`` holds integer arrays or bool masks (a copy)."""
    try:
        data = input._data[index]
    except IndexError as exc:
        raise IndexError(f"{exc}; tensor of shape {list(input.shape)}") from None
    xp = array_module(input._device)
    out = wrap(xp.array(data, copy=True), input)
    return record(out, IndexBackward0, (input,), index=index, self_sizes=input._data.shape)


def scatter_into_zeros(grad, shape, dim, indices):
    """Zeros of ``shape`` with ``grad`` put at ``indices`` along ``dim`` (max/min(dim) backward)."""
    # Each dimension's positions, shaped to broadcast against ``indices`` (np.indices(sparse=True)).
    xp = array_module_of(indices)
    ndim = indices.ndim
    grid = [xp.arange(size).reshape((1,) * k + (size,) + (1,) * (ndim - k - 1))
            for k, size in enumerate(indices.shape)]
    grid[dim] = indices
    return _index_add_into_zeros(grad, shape, tuple(grid))


def _sequence_index(index):
    """A ``range`` indexes as its list; a short list holding slices, lists or None is read as a
    tuple of indices, with PyTorch's deprecation warning (``treatSequenceAsTuple``)."""
    if isinstance(index, range):
        return list(index)
    if isinstance(index, list) and len(index) < 32 and any(
            item is None or item is Ellipsis or isinstance(item, (slice, list, tuple, range, Tensor))
            for item in index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and "
                      "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                      "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                      "which will result either in an error or a different result", UserWarning,
                      stacklevel=4)
        index = tuple(index)
    if isinstance(index, tuple):
        return tuple(list(item) if isinstance(item, range) else item for item in index)
    return index


def _index_plan(index, ndim, xp):
    """Split an index the way PyTorch's ``applySlicing`` does.

    Returns ``(steps, advanced)``: ``steps`` are ``("unsqueeze", dim)``,
    ``("select", dim, i)`` and ``("slice", dim, slice)`` applied in order as
    views; ``advanced`` is the tuple of integer/bool arrays (with ``:`` for
    the dimensions in between) for one gather or scatter afterwards, or None.
    Index arrays are made ``xp`` arrays (the indexed tensor's library).
    """
    index = _sequence_index(index)
    if not isinstance(index, tuple):
        index = (index,)
    # a bool index of 0 dimensions (True, tensor(False)) adds a dimension instead of taking one
    specified = sum(1 for i in index if i is not None and i is not Ellipsis and not isinstance(i, bool)
                    and not (isinstance(i, Tensor) and i._dtype.name == "bool" and i._data.ndim != 1))
    if any(i is Ellipsis for i in index):
        position = next(k for k, i in enumerate(index) if i is Ellipsis)
        fill = (slice(None),) * (ndim - specified)
        index = index[:position] + fill + index[position + 1:]
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    steps, dim, remaining = [], 0, []
    for item in index:
        if item is None:
            steps.append(("unsqueeze", dim))
            remaining.append(slice(None))
            dim += 1
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool) or (
                isinstance(item, Tensor) and item._data.ndim == 0 and not item._dtype.is_floating_point
                and item._dtype.name != "bool"):
            steps.append(("select", dim, int(item)))
        elif isinstance(item, slice):
            steps.append(("slice", dim, item))
            remaining.append(slice(None))
            dim += 1
        elif isinstance(item, (Tensor, list, np.ndarray, bool)):
            array = xp.asarray(item._data if isinstance(item, Tensor) else item)
            if array.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            remaining.append(array)
            dim += array.ndim if array.dtype == np.bool_ else 1
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             f"Variables are valid indices (got {type(item).__name__})")
    advanced = tuple(remaining) if any(not isinstance(r, slice) for r in remaining) else None
    return steps, advanced


def getitem(input, index):
    """``input[index]`` with PyTorch's split between views and gathers.

    As in ``THPVariable_getitem``: a lone slice is always recorded
    (``SliceBackward0``) and a lone ``...`` gives an alias; inside a tuple, a
    slice that keeps the whole dimension is skipped, and an index that changes
    nothing at all still returns a new alias (``AliasBackward0``), never
    ``input`` itself.
    """
    if index is Ellipsis:
        return alias(input)
    if isinstance(index, slice):
        if not input._data.ndim:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        return slice_dim(input, 0, index)
    steps, advanced = _index_plan(index, input._data.ndim, array_module(input._device))
    out = input
    for kind, dim, *arg in steps:
        if kind == "unsqueeze":
            out = unsqueeze(out, dim)
        elif kind == "select":
            out = select(out, dim, arg[0])
        elif not _keeps_whole_dim(arg[0], out._data.shape[dim]):
            out = slice_dim(out, dim, arg[0])
    if advanced is not None:
        return index_tensor(out, advanced)
    return alias(out) if out is input else out


def _keeps_whole_dim(item, size):
    """``start`` 0 (or None), step 1 (or None), ``stop`` past the end: PyTorch skips such a slice."""
    return (item.start in (None, 0) and item.step in (None, 1)
            and (item.stop is None or item.stop >= size))


class CopySlices(Node):
    """``base[index] = value`` through a view of ``base`` (PyTorch's ``CopySlices``).

    ``value`` gets the gradient of the written region (read back with the same
    index); ``base`` gets the rest, zero where it was overwritten.
    """

    def name(self):
        return "torch::autograd::CopySlices"

    def backward(self, grad):
        wants_self, wants_value = self.needs_input_grad
        return (masked_fill(grad, self.mask, 0.0) if wants_self else None,
                getitem(grad, self.index) if wants_value else None)


def _region(data, steps):
    """The view of ``data`` that ``steps`` (from :func:`_index_plan`) select, and whether
    any step actually made a view."""
    xp = array_module_of(data)
    viewed = False
    for kind, dim, *arg in steps:
        if kind == "unsqueeze":
            data = xp.expand_dims(data, dim)
        elif kind == "select":
            size = data.shape[dim]
            if not -size <= arg[0] < size:
                raise IndexError(f"index {arg[0]} is out of bounds for dimension {dim} with size {size}")
            data = data[(slice(None),) * dim + (arg[0], Ellipsis)]  # a view, even when 0-d
        elif not _keeps_whole_dim(arg[0], data.shape[dim]):
            data = data[(slice(None),) * dim + (arg[0],)]
        else:
            continue
        viewed = True
    return data, viewed


def _fit_value(value, region_shape):
    """Shape ``value`` for the write as PyTorch's ``copy_to``/``index_put_`` do (so the graph matches).

    Leading size-1 dimensions are viewed away; a copy into a region (``region_shape``
    given) then expands the value to the region's shape, unless it already has it or is 0-d.
    """
    shape = value._data.shape
    lead = next((i for i, size in enumerate(shape) if size != 1), len(shape))
    if region_shape is None:  # index_put_ broadcasts by itself
        return value.view(shape[lead:]) if lead else value
    if shape == region_shape or not shape:
        return value
    return value.view(shape[lead:]).expand(region_shape)


def setitem(tensor, index, value):
    """``tensor[index] = value``, in place, recorded the way PyTorch records it.

    Writing the whole tensor is a ``fill_``/``copy_``; otherwise a write through
    ints and slices is ``CopySlices``, and a write with index arrays straight
    into the tensor is ``index_put_`` (``IndexPutBackward0``).
    """
    from .inplace import (check_no_partial_overlap, check_not_inference, check_writable, copy_, fill_,
                          has_internal_overlap)
    if (isinstance(index, Tensor) and index._dtype is _dtype.bool and index.shape == tensor.shape
            and not (isinstance(value, Tensor) and value._data.ndim) and has_internal_overlap(tensor._data)):
        # One mask and one value: index_put_ passes it to masked_fill_, and both write into an
        # expanded tensor with a warning (every chosen position gets the same value).
        warnings.warn("Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
                      "performing this operation. This also applies to advanced indexing e.g. "
                      "tensor[indices] = tensor", UserWarning, stacklevel=2)
        tensor.masked_fill_(index, value)
        return
    check_not_inference(tensor)
    if isinstance(index, slice) and not tensor._data.ndim:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    xp = array_module(tensor._device)
    if index is Ellipsis or isinstance(index, slice) and _keeps_whole_dim(index, tensor.shape[0]):
        steps, advanced = [], None
    else:
        steps, advanced = _index_plan(index, tensor._data.ndim, xp)
    region, viewed = _region(tensor._data, steps)
    # A region is written with copy_, which refuses shared elements in it (an int picked from an
    # expanded dimension leaves none); index arrays write the whole tensor with index_put_.
    check_writable(tensor if advanced is not None else wrap(region, tensor))
    if isinstance(value, Tensor):
        if (advanced is not None and value._dtype is not tensor._dtype
                and not (isinstance(index, Tensor) and index._dtype is _dtype.bool and value.numel() == 1)):
            # index_put_ converts nothing (one value through a mask is a masked_fill_, which does)
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{tensor._dtype._legacy_name[:-6]} for the destination and "
                               f"{value._dtype._legacy_name[:-6]} for the source.")
        value = _fit_value(value, region.shape if advanced is None else None)
        # PyTorch fills a region, or the places of one boolean mask, from a 0-d value (reading it
        # first), copies a broadcast value into a region with copy_, and writes through index
        # arrays with index_put_, which refuses even a full overlap (``THPVariable_setitem``).
        mask_fill = isinstance(index, Tensor) and index._dtype is _dtype.bool
        if value._data.ndim or (advanced is not None and not mask_fill):
            check_no_partial_overlap(wrap(region, tensor), (value,), full_too=advanced is not None)
    if not viewed and advanced is None:  # the whole tensor
        if isinstance(value, Tensor) and value._data.ndim:
            return copy_(tensor, value)
        # A number is wrapped as a 0-d tensor of the tensor's dtype, so this is FillBackward3.
        return fill_(tensor, value if isinstance(value, Tensor) else
                     wrap(xp.asarray(through_float32(value, tensor._data.dtype), dtype=tensor._dtype.numpy), tensor))
    source = through_float32(value._data if isinstance(value, Tensor) else value, tensor._data.dtype)
    recording = needs_grad(tensor, value if isinstance(value, Tensor) else None)
    if recording and advanced is None and has_internal_overlap(tensor._data):
        # In an expanded tensor a region's elements also sit elsewhere: only a view of the region
        # itself gives PyTorch's graph (the written elements get no gradient, wherever they repeat).
        region_view = getitem(tensor, index)
        if isinstance(value, Tensor) and value._data.ndim:
            return copy_(region_view, value)
        return fill_(region_view, value if isinstance(value, Tensor) else
                     wrap(xp.asarray(through_float32(value, tensor._data.dtype), dtype=tensor._dtype.numpy), tensor))
    if recording:
        check_inplace(tensor, through_view=viewed)
        mask = xp.zeros(tensor._data.shape, dtype=bool)
        mask_region, _ = _region(mask, steps)
        mask_region[advanced if advanced is not None else ...] = True
        node_class = CopySlices if viewed else IndexPutBackward0
        node = node_class((tensor, value if isinstance(value, Tensor) else None),
                          mask=wrap(mask, tensor), index=index if viewed else advanced)
    try:
        region[advanced if advanced is not None else ...] = source
    except ValueError:
        target = region[advanced].shape if advanced is not None else region.shape
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(xp.shape(source))} cannot "
                           f"be broadcast to indexing result of shape {list(target)}") from None
    tensor._bump_version()
    if recording:
        rebase_history(tensor, node)


def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements: one row per element (``[n, ndim]`` int64), or with
    ``as_tuple`` one index tensor per dimension (what ``t[t.nonzero(as_tuple=True)]`` needs)."""
    data = input._data
    xp = array_module(input._device)
    if as_tuple:
        # PyTorch treats a 0-d tensor as 1-d here.
        return tuple(wrap(i.astype(np.int64, copy=False), input) for i in xp.nonzero(xp.atleast_1d(data)))
    return wrap(xp.argwhere(data).astype(np.int64, copy=False), input)


install(_views, "take", index_tensor)
install(_views, "put_into_zeros", _index_add_into_zeros)

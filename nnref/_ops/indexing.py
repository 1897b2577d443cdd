"""``t[...]``: basic indexing as a chain of views, integer-array/bool indexing as a gather.

Like PyTorch (``torch/csrc/autograd/python_variable_indexing.cpp``), each
integer in the index becomes a ``select`` (``SelectBackward0``), each slice
that is not ``:`` a ``slice`` (``SliceBackward0``), ``None`` an ``unsqueeze``;
tensors, lists and bool masks then go through one ``index``
(``IndexBackward0``), whose backward adds the gradient back into zeros.
"""
import numbers

import numpy as np

from .._tensor import Tensor, _wrap_dim
from ..autograd.graph import Node
from ._common import needs_grad, wrap
from .shape import alias, make_view, unsqueeze


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
    out = make_view(input, input._data[(slice(None),) * dim + (index,)])
    if needs_grad(input):
        node = SelectBackward0((input,))
        node.dim, node.index, node.self_sizes = dim, index, input._data.shape
        out.grad_fn = node
    return out


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
    if needs_grad(input):
        node = SliceBackward0((input,))
        node.dim, node.slice, node.self_sizes = dim, item, input._data.shape
        out.grad_fn = node
    return out


def narrow(input, dim, start, length):
    """``length`` elements of ``dim`` from ``start`` (a view)."""
    dim = _wrap_dim(dim, input._data.ndim)
    if start == 0 and length == input._data.shape[dim]:
        return input
    return slice_dim(input, dim, slice(start, start + length))


class PlaceIntoZerosBackward(Node):
    """Backward of writing a gradient into a zero tensor (double backward): read the region back."""

    def backward(self, grad):
        return (grad[self.region],)


def _place_into_zeros(grad, shape, region):
    """A zero tensor of ``shape`` with ``grad`` written at ``region`` (differentiable in grad)."""
    data = np.zeros(shape, dtype=grad._data.dtype)
    data[region] = grad._data
    out = wrap(data, grad)
    if needs_grad(grad):
        out.grad_fn = PlaceIntoZerosBackward((grad,))
        out.grad_fn.region = region
    return out


class IndexBackward0(Node):
    """Scatter-add the gradient back to the positions the index read (repeats accumulate)."""

    def backward(self, grad):
        return (_index_add_into_zeros(grad, self.self_sizes, self.index),)


class IndexPutBackward0(Node):
    def backward(self, grad):
        return (index_tensor(grad, self.index),)


def _index_add_into_zeros(grad, shape, index):
    data = np.zeros(shape, dtype=grad._data.dtype)
    np.add.at(data, index, grad._data)
    out = wrap(data, grad)
    if needs_grad(grad):
        out.grad_fn = IndexPutBackward0((grad,))
        out.grad_fn.index = index
    return out


def index_tensor(input, index):
    """``input[index]`` where ``index`` holds integer arrays or bool masks (a copy)."""
    try:
        data = input._data[index]
    except IndexError as exc:
        raise IndexError(f"{exc}; tensor of shape {list(input.shape)}") from None
    out = wrap(np.array(data, copy=True), input)
    if needs_grad(input):
        node = IndexBackward0((input,))
        node.index, node.self_sizes = index, input._data.shape
        out.grad_fn = node
    return out


def scatter_into_zeros(grad, shape, dim, indices):
    """Zeros of ``shape`` with ``grad`` put at ``indices`` along ``dim`` (max/min(dim) backward)."""
    grid = list(np.indices(indices.shape, sparse=True))
    grid[dim] = indices
    return _index_add_into_zeros(grad, shape, tuple(grid))


def getitem(input, index):
    """``input[index]`` with PyTorch's split between views and gathers.

    As in ``THPVariable_getitem``: a lone slice is always recorded
    (``SliceBackward0``) and a lone ``...`` gives an alias; inside a tuple, a
    slice that keeps the whole dimension is skipped, and an index that changes
    nothing at all still returns a new alias (``AliasBackward0``), never
    ``input`` itself.
    """
    if not isinstance(index, tuple):
        if index is Ellipsis:
            return alias(input)
        if isinstance(index, slice):
            return slice_dim(input, 0, index)
        index = (index,)
    specified = sum(1 for i in index if i is not None and i is not Ellipsis and not (
        isinstance(i, Tensor) and i._dtype.name == "bool" and i._data.ndim > 1))
    if any(i is Ellipsis for i in index):
        position = next(k for k, i in enumerate(index) if i is Ellipsis)
        fill = (slice(None),) * (input._data.ndim - specified)
        index = index[:position] + fill + index[position + 1:]
    if specified > input._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input._data.ndim}")
    out, dim, remaining = input, 0, []
    for item in index:
        if item is None:
            out = unsqueeze(out, dim)
            remaining.append(slice(None))
            dim += 1
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool) or (
                isinstance(item, Tensor) and item._data.ndim == 0 and not item._dtype.is_floating_point
                and item._dtype.name != "bool"):
            out = select(out, dim, int(item))
        elif isinstance(item, slice):
            if not _keeps_whole_dim(item, out._data.shape[dim]):
                out = slice_dim(out, dim, item)
            remaining.append(slice(None))
            dim += 1
        elif isinstance(item, (Tensor, list, np.ndarray)):
            array = item._data if isinstance(item, Tensor) else np.asarray(item)
            if array.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            remaining.append(array)
            dim += array.ndim if array.dtype == np.bool_ else 1
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             f"Variables are valid indices (got {type(item).__name__})")
    if any(isinstance(r, np.ndarray) for r in remaining):
        return index_tensor(out, tuple(remaining))
    return alias(out) if out is input else out


def _keeps_whole_dim(item, size):
    """``start`` 0 (or None), step 1 (or None), ``stop`` past the end: PyTorch skips such a slice."""
    return (item.start in (None, 0) and item.step in (None, 1)
            and (item.stop is None or item.stop >= size))

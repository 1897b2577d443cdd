"""``gather``, ``scatter`` and ``scatter_add``: reading and writing along one dimension by index.

Mirrors ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` and the formulas of
``derivatives.yaml``: gather's gradient is a scatter-add of the gradient into
zeros; scatter's are a gather (for ``src``) and the gradient with the
overwritten positions zeroed (for ``self``).  Backward passes are written with
these same ops, so they can be differentiated again.
"""
import numpy as np

from ..core._device import array_module
from .. import _meta
from .._type_info import checked_scalar
from ..core._tensor import Tensor, _wrap_dim
from ..core.autograd.graph import Node
from ._common import check_same_device, needs_grad, record, wrap

__all__ = ["gather", "scatter", "scatter_add"]


def _grid(index_data, dim, xp):
    """Open-mesh positions of every element of ``index``, with ``index`` itself along ``dim``."""
    ndim = index_data.ndim
    grid = [xp.arange(size).reshape((1,) * k + (size,) + (1,) * (ndim - k - 1))
            for k, size in enumerate(index_data.shape)]
    grid[dim] = index_data
    return tuple(grid)


def _check(name, input, dim, index, src=None):
    """PyTorch's ``gather_shape_check``/``scatter_shape_check``, with the fix spelled out."""
    if not isinstance(index, Tensor) or index._dtype.name != "int64":
        got = index._dtype.name if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{name}(): Expected dtype int64 for index, got {got}; convert it with "
                           "index.long()")
    check_same_device(input, index)
    dim = _wrap_dim(dim, input._data.ndim)
    if index._data.ndim != input._data.ndim and index.numel():
        raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor")
    for d in range(index._data.ndim if index._data.ndim else 0):
        if d != dim and index._data.shape[d] > input._data.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(index.shape)} to be no larger than self {list(input.shape)} "
                               f"apart from dimension {dim}")
        if src is not None and index._data.shape[d] > src._data.shape[d]:
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {dim} and to be no larger "
                               f"size than src {list(src.shape)}")
    size = input._data.shape[dim] if input._data.ndim else 1
    data = index._data
    if data.size and _meta.has_values(data) and (data.min() < -size or data.max() >= size):
        bad = int(data.max()) if data.max() >= size else int(data.min())
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    return dim


def _normalised(index_data, dim, input_data, xp):
    """Negative indices counted from the end, as PyTorch's kernels allow."""
    size = input_data.shape[dim] if input_data.ndim else 1
    return xp.where(index_data < 0, index_data + size, index_data)


class GatherBackward0(Node):
    def backward(self, grad):
        return (_scatter_add_into_zeros(grad, self.self_sizes, self.dim, self.index),)


class _ScatterAddIntoZeros(Node):
    """Double backward of gather: read the scattered positions back."""

    def name(self):
        return "ScatterAddBackward0"

    def backward(self, grad):
        return (gather(grad, self.dim, self.index),)


def _scatter_add_into_zeros(grad, shape, dim, index):
    xp = array_module(grad._device)
    data = xp.zeros(shape, dtype=grad._data.dtype)
    xp.add.at(data, _grid(index._data, dim, xp), grad._data)
    out = wrap(data, grad)
    return record(out, _ScatterAddIntoZeros, (grad,), dim=dim, index=index)


def gather(input, dim, index, *, sparse_grad=False):
    """``out[i][j][k] = input[i][index[i][j][k]][k]`` for ``dim=1``; ``out`` has ``index``'s shape."""
    dim = _check("gather", input, dim, index)
    xp = array_module(input._device)
    if not index._data.ndim or not input._data.ndim:
        data = input._data.reshape(-1)[index._data.reshape(-1)].reshape(index._data.shape)
    else:
        data = input._data[_grid(_normalised(index._data, dim, input._data, xp), dim, xp)]
    out = wrap(data, input)
    return record(out, GatherBackward0, (input,), dim=dim, index=index,
                  self_sizes=input._data.shape)


class ScatterBackward0(Node):
    """``scatter`` with a tensor ``src``: self keeps the gradient where it was not overwritten."""

    def backward(self, grad):
        wants_self, wants_src = self.needs_input_grad
        return (scatter(grad, self.dim, self.index, 0.0) if wants_self else None,
                gather(grad, self.dim, self.index) if wants_src else None)


class ScatterBackward1(Node):
    """``scatter`` with a number ``value``."""

    def backward(self, grad):
        return (scatter(grad, self.dim, self.index, 0.0),)


_REDUCE = {"add": "add", "multiply": "multiply"}


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """A copy of ``input`` with ``src`` (or the number ``value``) written at ``index`` along ``dim``.

    Where an index repeats, one of the writes wins (PyTorch leaves which unspecified).
    ``reduce='add'``/``'multiply'`` combines instead of overwriting (not differentiable).
    """
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing required argument 'src' (a tensor) or 'value' (a number)")
    tensor_src = isinstance(src, Tensor)
    dim = _check("scatter", input, dim, index, src if tensor_src else None)
    xp = array_module(input._device)
    if tensor_src:
        check_same_device(input, src)
        if src._dtype is not input._dtype:
            raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype; convert it "
                               f"first, e.g. src.to({input._dtype})")
    data = input._data.copy()
    grid = _grid(_normalised(index._data, dim, input._data, xp), dim, xp)
    values = src._data[tuple(slice(0, s) for s in index._data.shape)] if tensor_src \
        else checked_scalar(src, input._dtype)
    if reduce is not None:
        if reduce not in _REDUCE:
            raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce!r}")
        if needs_grad(input, src if tensor_src else None):
            raise RuntimeError("the derivative for 'scatter' with reduce is not implemented; use "
                               "scatter_add (or index arithmetic) when gradients are needed")
        getattr(xp, _REDUCE[reduce]).at(data, grid, values)
        return wrap(data, input)
    data[grid] = values
    out = wrap(data, input)
    if tensor_src:
        return record(out, ScatterBackward0, (input, src), dim=dim, index=index)
    return record(out, ScatterBackward1, (input,), dim=dim, index=index)


class ScatterAddBackward0(Node):
    def backward(self, grad):
        wants_self, wants_src = self.needs_input_grad
        return (grad if wants_self else None,
                gather(grad, self.dim, self.index) if wants_src else None)


def scatter_add(input, dim, index, src):
    """A copy of ``input`` with every ``src`` element added at its ``index`` along ``dim``
    (repeated indices accumulate)."""
    dim = _check("scatter_add", input, dim, index, src)
    check_same_device(input, src)
    if src._dtype is not input._dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype; convert it "
                           f"first, e.g. src.to({input._dtype})")
    xp = array_module(input._device)
    data = input._data.copy()
    grid = _grid(_normalised(index._data, dim, input._data, xp), dim, xp)
    values = src._data[tuple(slice(0, s) for s in index._data.shape)]
    target = data
    if xp is not np and data.dtype == np.int64:  # CuPy's add.at has no int64; as uint64 it adds the same bits
        target, values = data.view(np.uint64), values.view(np.uint64)
    xp.add.at(target, grid, values)
    out = wrap(data, input)
    return record(out, ScatterAddBackward0, (input, src), dim=dim, index=index)

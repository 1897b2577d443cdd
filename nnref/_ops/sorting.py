"""``sort``, ``argsort`` and ``topk`` (``aten/src/ATen/native/Sorting.cpp``, ``TopKImpl.h``).

Sorting is stable, NaN counts as the largest value (last ascending, first
descending), and equal values keep their original order in both directions,
as PyTorch's CPU sort does.  The gradient goes back to where each value came
from (a scatter of the gradient by the indices).
"""
import numpy as np

from ..core._device import array_module, array_module_of
from ..core._tensor import _wrap_dim
from ..core.autograd.graph import Node
from ._common import needs_grad, wrap
from .reduction import _return_type
from .scatter import _scatter_add_into_zeros

__all__ = ["sort", "argsort", "topk"]


def _order(data, dim, descending):
    """Stable argsort along ``dim``; descending keeps equal values in their original order."""
    xp = array_module_of(data)
    if not descending:
        return xp.argsort(data, axis=dim, kind="stable")
    # Sort the reversed array stably, then reverse: ties come out first-to-last again.
    flipped = xp.flip(data, axis=dim)
    order = xp.flip(xp.argsort(flipped, axis=dim, kind="stable"), axis=dim)
    return data.shape[dim] - 1 - order


class SortBackward0(Node):
    def backward(self, grad):
        return (_scatter_add_into_zeros(grad, self.self_sizes, self.dim, self.indices),)


class TopkBackward0(SortBackward0):
    pass


def _sorted(input, dim, descending, k, node_class, name):
    data = input._data
    if not data.ndim:
        values, indices = data.copy(), array_module(input._device).zeros((), dtype=np.int64)
        if k is not None and k > 1:
            raise RuntimeError("selected index k out of range")
    else:
        xp = array_module(input._device)
        order = _order(data, dim, descending)
        if k is not None:
            order = xp.take(order, xp.arange(k), axis=dim)
        indices = order.astype(np.int64, copy=False)
        values = xp.take_along_axis(data, indices, axis=dim)
    values, indices = wrap(values, input), wrap(indices, input)
    if needs_grad(input):
        values.grad_fn = node_class((input,), dim=dim, indices=indices, self_sizes=data.shape)
    return _return_type(name)(values, indices)


def sort(input, dim=-1, descending=False, stable=False):
    """``(values, indices)`` sorted along ``dim``."""
    return _sorted(input, _wrap_dim(dim, input._data.ndim), descending, None, SortBackward0, "sort")


def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort ``input`` along ``dim``."""
    dim = _wrap_dim(dim, input._data.ndim)
    if not input._data.ndim:
        return wrap(array_module(input._device).zeros((), dtype=np.int64), input)
    return wrap(_order(input._data, dim, descending).astype(np.int64, copy=False), input)


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices, largest first."""
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    return _sorted(input, dim, largest, k, TopkBackward0, "topk")

"""Reductions (``aten/src/ATen/native/ReduceOps.cpp``): ``sum``, ``mean`` and ``max``, whole or
over dimensions, and ``sum_to_size``, with which the engine undoes a broadcast."""
import math
from collections import namedtuple

from .. import _dtype
from .._device import array_module_of
from .._tensor import Tensor, _wrap_dim, bind
from ..autograd.graph import Node
from ._common import record

__all__ = ["sum", "mean", "max", "sum_to_size"]
__seams__ = ("evenly_distribute", "scatter_into_zeros")


# Seams: max's backward; the mirror puts exact ones (+0, NaN, recorded): nnref/_ops/reduction.py
def evenly_distribute(grad, input, result):
    winners = input._data == result._data
    share = array_module_of(winners).where(winners, grad._data / winners.sum(), 0)
    return Tensor._make(share.astype(grad._data.dtype), grad._device)


def scatter_into_zeros(grad, shape, dim, indices):
    xp = array_module_of(indices)
    data = xp.zeros(shape, dtype=grad._data.dtype)
    xp.put_along_axis(data, indices, grad._data, dim)
    return Tensor._make(data, grad._device)


def _dims(dim, ndim):
    """``dim`` (None, an int or a sequence) as a sorted tuple of axes; None means all of them."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    return tuple(sorted(_wrap_dim(d, ndim) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))))


def _expand_back(grad, shape, dims, keepdim):
    """A reduced gradient, its reduced dimensions put back as size 1, expanded to ``shape``."""
    if not keepdim and dims:
        kept = list(grad._data.shape)
        for d in dims:
            kept.insert(d, 1)
        grad = grad.reshape(kept) if shape else grad
    return grad.expand(shape)


class SumBackward0(Node):
    """d sum(a) = grad expanded to a's shape."""
    def backward(self, grad):
        return (grad.expand(self.self_sizes),)


class SumBackward1(Node):
    """d sum(a, dims) = grad, the summed dimensions put back, expanded to a's shape."""
    def backward(self, grad):
        return (_expand_back(grad, self.self_sizes, self.dims, self.keepdim),)


def sum(input, dim=None, keepdim=False):
    """The sum of all elements, or over ``dim`` (integers sum to int64).  ``import nnref`` binds
    ``nnref/_ops/reduction.py:sum`` here (PyTorch's summation order, ``dtype=``)."""
    dtype, dims = input._dtype if input._dtype.is_floating_point else _dtype.int64, _dims(dim, input._data.ndim)
    out = Tensor._make(input._data.sum(axis=dims, keepdims=keepdim, dtype=dtype.numpy), input._device)
    return record(out, SumBackward0 if dim is None else SumBackward1, (input,),
                  self_sizes=input._data.shape, dims=dims, keepdim=keepdim)


class MeanBackward0(Node):
    """d mean(a) = grad / n, expanded to a's shape."""
    def backward(self, grad):
        return (grad.expand(self.self_sizes) / self.count,)


class MeanBackward1(Node):
    """d mean(a, dims) = grad / n, the averaged dimensions put back, expanded to a's shape."""
    def backward(self, grad):
        return (_expand_back(grad, self.self_sizes, self.dims, self.keepdim) / self.count,)


def mean(input, dim=None, keepdim=False):
    """The average of all elements, or over ``dim``.  ``import nnref`` binds ``nnref/_ops/reduction.py:mean`` here."""
    dims = _dims(dim, input._data.ndim)
    out = Tensor._make(input._data.mean(axis=dims, keepdims=keepdim), input._device)
    return record(out, MeanBackward0 if dim is None else MeanBackward1, (input,), self_sizes=input._data.shape,
                  dims=dims, keepdim=keepdim, count=math.prod(input._data.shape[d] for d in dims))


class MaxBackward1(Node):
    """d max(a) = grad shared evenly by the elements equal to the maximum, 0 elsewhere."""
    def backward(self, grad):
        self_, result = self.saved_tensors
        return (evenly_distribute(grad, self_, result),)


class MaxBackward0(Node):
    """d max(a, dim).values = grad at the index each slice picked, 0 elsewhere."""
    def backward(self, grad):
        indices = self.indices._data
        if not self.keepdim:
            grad = grad.unsqueeze(self.dim)
            indices = array_module_of(indices).expand_dims(indices, self.dim)
        return (scatter_into_zeros(grad, self.self_sizes, self.dim, indices),)


_max = namedtuple("max", ["values", "indices"])


def max(input, dim=None, keepdim=False):
    """The largest element; with ``dim``, ``(values, indices)`` along it.  ``import nnref`` binds
    ``nnref/_ops/reduction.py:max`` here (``max(a, b)``, PyTorch's return type)."""
    if dim is None:
        return record(Tensor._make(input._data.max(), input._device), MaxBackward1, (input,), (input,),
                      save_result=True)
    dim, xp = _wrap_dim(dim, input._data.ndim), array_module_of(input._data)
    indices = input._data.argmax(axis=dim, keepdims=True)
    values = xp.take_along_axis(input._data, indices, dim)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    indices = Tensor._make(indices.astype(_dtype.int64.numpy), input._device)
    values = record(Tensor._make(values, input._device), MaxBackward0, (input,), dim=dim,
                    keepdim=keepdim, indices=indices, self_sizes=input._data.shape)
    return _max(values, indices)


def sum_to_size(input, *size):
    """``input`` summed down to ``size``, which it was broadcast from.  ``import nnref`` binds
    ``nnref/_ops/reduction.py:sum_to_size`` here."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    extra = input._data.ndim - len(shape)
    dims = tuple(range(extra)) + tuple(
        extra + i for i, s in enumerate(shape) if s == 1 and input._data.shape[extra + i] != 1)
    out = input.sum(dims, keepdim=True) if dims else input
    return out.reshape(shape) if extra else out


bind(sum=sum, mean=mean, max=max, sum_to_size=sum_to_size)

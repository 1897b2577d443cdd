"""Reductions that give two results at once (``var_mean``, ``std_mean``, ``aminmax``) or skip NaNs
(``nansum``, ``nanmean``).

Mirrors ``aten/src/ATen/native/ReduceOps.cpp`` (``TensorCompare.cpp`` for ``aminmax``).  A pair
comes from one node with two outputs, as in PyTorch (``VarMeanBackward0``, ``AminmaxBackward0``):
its backward adds the two gradients' contributions (``var_mean_backward``, ``aminmax_backward``
in ``FunctionsManual.cpp``), written with nnref ops so that they differentiate again.
``nanmean`` is PyTorch's composite ``nansum(x) / count of non-NaN``, so its node is ``DivBackward0``.
``renorm`` (``Normalization.cpp``) rescales the slices whose p-norm exceeds ``maxnorm``.
"""
import builtins
from collections import namedtuple

import numpy as np

from .. import _type_info
from ..core import _dtype
from ..core._device import array_module, array_module_of
from ..core._tensor import _wrap_dim
from ..core.autograd.graph import Node
from ._common import from_accumulator, needs_grad, record, wrap
from .cascade_sum import follows_aten_sum
from .reduction import _dims, _expand_back, _float_sum, _var_backward, _variance

__all__ = ["var_mean", "std_mean", "aminmax", "nansum", "nanmean", "renorm"]


class _PairBackward(Node):
    """A node with two outputs of one shape; an output that got no gradient contributes zeros."""

    num_outputs = 2

    def _zeros_for_output(self, index):
        from .._creation import zeros
        return zeros(self.result_shape, dtype=self.dtype, device=self.device)


class VarMeanBackward0(_PairBackward):
    def backward(self, grad_var, grad_mean):
        (self_,) = self.saved_tensors
        return (_var_backward(self, grad_var, self_)
                + _expand_back(grad_mean, self.self_sizes, self.dims, self.keepdim) / self.count,)


class StdMeanBackward0(_PairBackward):
    def backward(self, grad_std, grad_mean):
        self_, std = self.saved_tensors
        grad_var = (grad_std / (2 * std)).masked_fill(std == 0, 0.0)
        return (_var_backward(self, grad_var, self_)
                + _expand_back(grad_mean, self.self_sizes, self.dims, self.keepdim) / self.count,)


def _moments(name, node_class, input, dim, unbiased, keepdim, correction, root):
    variance, node = _variance(name, node_class, input, dim, unbiased, keepdim, correction)
    xp = array_module(input._device)
    dims = _dims(dim if not isinstance(dim, bool) else None, input._data.ndim)
    mean = xp.mean(input._data, axis=dims, keepdims=keepdim, dtype=input._dtype._accumulate)
    first = wrap(from_accumulator(xp.sqrt(variance) if root else variance, input._dtype), input)
    second = wrap(from_accumulator(xp.asarray(mean), input._dtype), input)
    if node is not None:
        node.result_shape, node.dtype, node.device = first._data.shape, input._dtype, input._device
        if root:
            node.save_result(first)
        first.grad_fn, second.grad_fn = node, node
        first._output_nr, second._output_nr = 0, 1
    return first, second


def var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """``(var(input, ...), mean(input, ...))`` over the same dims, from one node
    (``torch.var_mean``, ``aten/src/ATen/native/ReduceOps.cpp``)."""
    return _moments("var_mean", VarMeanBackward0, input, dim, unbiased, keepdim, correction, root=False)


def std_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """``(std(input, ...), mean(input, ...))`` over the same dims, from one node
    (``torch.std_mean``, ``aten/src/ATen/native/ReduceOps.cpp``)."""
    return _moments("std_mean", StdMeanBackward0, input, dim, unbiased, keepdim, correction, root=True)


_aminmax = namedtuple("aminmax", ["min", "max"])
_aminmax.__repr__ = lambda self: f"torch.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"


class AminmaxBackward0(_PairBackward):
    """Each gradient is shared evenly by the elements equal to its result (ties included)."""

    def backward(self, grad_min, grad_max):
        self_, low, high = self.saved_tensors
        total = None
        for grad, result in ((grad_min, low), (grad_max, high)):
            winners = self_ == _expand_back(result, self.self_sizes, self.dims, self.keepdim)
            share = _expand_back(grad, self.self_sizes, self.dims, self.keepdim) * winners / winners.sum(
                self.dims, keepdim=True)
            total = share if total is None else total + share
        return (total,)


def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` over ``dim`` (every element by default) in one call (``torch.aminmax``,
    ``aten/src/ATen/native/TensorCompare.cpp``)."""
    data = input._data
    dims = tuple(range(data.ndim)) if dim is None else ((_wrap_dim(dim, data.ndim),) if data.ndim else ())
    if not data.size or builtins.any(data.shape[d] == 0 for d in dims):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                           "has no identity.")
    xp = array_module(input._device)
    keep = keepdim
    low = wrap(xp.asarray(xp.min(data, axis=dims, keepdims=keep)), input)
    high = wrap(xp.asarray(xp.max(data, axis=dims, keepdims=keep)), input)
    if needs_grad(input):
        node = AminmaxBackward0((input,), (input,), dims=dims, keepdim=keep, self_sizes=data.shape,
                                result_shape=low._data.shape, dtype=input._dtype, device=input._device)
        node.save_result(low)
        high._output_nr = 1
        node.save_result(high)
        low.grad_fn, high.grad_fn = node, node
        low._output_nr = 0
    return _aminmax(low, high)


class NansumBackward0(Node):
    def backward(self, grad):
        from .predicates import isnan
        (self_,) = self.saved_tensors
        return (_expand_back(grad, self.self_sizes, self.dims, self.keepdim) * isnan(self_).logical_not(),)


def _same_layout(data):
    """A copy of ``data`` with its strides, so that a sum of it adds in the order a sum of ``data``
    would (ATen's loops follow the strides; a compacted copy may coalesce differently)."""
    xp = array_module_of(data)
    if min(data.strides, default=0) < 0 or data.flags.c_contiguous:
        return xp.array(data, order="C")  # a sum copies negative strides to this order anyway
    span = 1 + builtins.sum((size - 1) * stride for size, stride in zip(data.shape, data.strides)) // data.itemsize
    copy = xp.lib.stride_tricks.as_strided(xp.empty(span, data.dtype), data.shape, data.strides)
    copy[...] = data
    return copy


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """``sum`` counting NaN as zero (``torch.nansum``, ``aten/src/ATen/native/ReduceOps.cpp``)."""
    dtype = _type_info.as_dtype(dtype)
    if dtype is None:
        dtype = input._dtype if input._dtype.is_floating_point else _dtype.int64
    dims = _dims(dim, input._data.ndim)
    xp = array_module(input._device)
    data = input._data
    if input._dtype.is_floating_point and follows_aten_sum(data):
        data = _same_layout(data)  # NaN read as 0, as the kernel's NanSumLoadPolicy does
        data[data != data] = 0
    elif input._dtype.is_floating_point:
        data = xp.where(data != data, data.dtype.type(0), data)
    if dtype.is_floating_point:
        total = _float_sum(data, dims, keepdim, dtype)
    else:
        total = from_accumulator(xp.sum(data, axis=dims, keepdims=keepdim, dtype=dtype._accumulate), dtype)
    out = wrap(xp.asarray(total), input)
    return record(out, NansumBackward0, (input,), saved=(input,), self_sizes=input._data.shape, dims=dims,
                  keepdim=keepdim)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """``mean`` of the non-NaN elements: ``nansum(x) / (number of non-NaN)``, NaN where there is
    none (``torch.nanmean``, ``aten/src/ATen/native/ReduceOps.cpp``)."""
    from .predicates import isnan
    from .reduction import sum
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input._dtype._legacy_name[:-6]}")
    count = sum(isnan(input).logical_not(), dim, keepdim)
    with np.errstate(invalid="ignore", divide="ignore"):
        return nansum(input, dim, keepdim, dtype=dtype) / count


class RenormBackward0(Node):
    """PyTorch's ``renorm_backward`` (``FunctionsManual.cpp``), with nnref ops."""

    def backward(self, grad):
        from .reduction import norm, norm_backward
        from .pointwise import where
        (self_,) = self.saved_tensors
        dims = self.reduce_dims
        size = norm(self_, self.p, dims, keepdim=True)
        grad_output = (self_ * grad).sum(dims, keepdim=True)
        nb = norm_backward(grad_output, self_, size, self.p, dims, True)
        invnorm = (size + 1e-7).reciprocal()
        scaled = self.maxnorm * invnorm * (grad - invnorm * nb)
        return (where(size > self.maxnorm, scaled, grad),)


def renorm(input, p, dim, maxnorm):
    """``input`` with each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to norm
    ``maxnorm`` (``torch.renorm``, ``aten/src/ATen/native/Normalization.cpp``)."""
    from .reduction import _vector_norm
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{input._dtype._legacy_name[:-6]}")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    ndim = input._data.ndim
    if ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {ndim} dimensions")
    dim = _wrap_dim(dim, ndim)
    reduce_dims = tuple(d for d in range(ndim) if d != dim)
    xp = array_module(input._device)
    data = input._data.astype(input._dtype._accumulate, copy=False)
    size = _vector_norm(data, p, reduce_dims, True)
    one = data.dtype.type(1)
    scale = xp.where(size > maxnorm, data.dtype.type(maxnorm) / (size + data.dtype.type(1e-7)), one)
    out = wrap(from_accumulator(xp.asarray(data * scale), input._dtype), input)
    return record(out, RenormBackward0, (input,), saved=(input,), p=p, maxnorm=maxnorm, reduce_dims=reduce_dims)

"""Reductions: sum, mean, var, max/min, amax, argmax, and ``sum_to_size``.

A reduction's backward spreads the gradient back over the reduced
dimensions: by broadcasting (sum, mean), or onto the positions that won
(max, min, amax), sharing it evenly between ties as PyTorch does.
"""
import warnings
from collections import namedtuple

import numpy as np

from .. import _dtype
from .._tensor import _wrap_dim
from ..autograd.graph import Node
from ._common import from_accumulator, needs_grad, wrap


def _dims(dim, ndim):
    """Normalise ``dim`` (None, int, or sequence) to a sorted tuple of non-negative axes.

    An empty sequence means every dimension, as ``dim=None`` does (PyTorch's rule).
    """
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        return tuple(sorted(_wrap_dim(d, ndim) for d in dim))
    return (_wrap_dim(dim, ndim),)


def _expand_back(grad, shape, dims, keepdim):
    """Reshape a reduced gradient so it broadcasts against the input again."""
    if not keepdim and dims:
        kept = list(grad._data.shape)
        for d in dims:
            kept.insert(d, 1)
        grad = grad.reshape(kept) if shape else grad
    return grad.expand(shape)


class SumBackward0(Node):
    def backward(self, grad):
        return (grad.expand(self.self_sizes),)


class SumBackward1(Node):
    def backward(self, grad):
        return (_expand_back(grad, self.self_sizes, self.dims, self.keepdim),)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of all elements, or over ``dim``; bool and integer inputs sum to int64."""
    if dtype is None:
        dtype = input._dtype if input._dtype.is_floating_point else _dtype.int64
    dims = _dims(dim, input._data.ndim)
    data = np.sum(input._data, axis=dims, keepdims=keepdim, dtype=dtype._accumulate)
    out = wrap(from_accumulator(data, dtype), input)
    if needs_grad(input):
        node = (SumBackward0 if dim is None else SumBackward1)((input,))
        node.self_sizes, node.dims, node.keepdim = input._data.shape, dims, keepdim
        out.grad_fn = node
    return out


class MeanBackward0(Node):
    def backward(self, grad):
        return (grad.expand(self.self_sizes) / self.count,)


class MeanBackward1(Node):
    def backward(self, grad):
        return (_expand_back(grad, self.self_sizes, self.dims, self.keepdim) / self.count,)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Average of all elements, or over ``dim`` (floating point tensors only, as in PyTorch)."""
    dtype = dtype or input._dtype
    if not dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {input._dtype._legacy_name[:-6]}. Convert first, e.g. t.float().mean()")
    dims = _dims(dim, input._data.ndim)
    data = np.mean(input._data, axis=dims, keepdims=keepdim, dtype=dtype._accumulate)
    out = wrap(from_accumulator(data, dtype), input)
    if needs_grad(input):
        node = (MeanBackward0 if dim is None else MeanBackward1)((input,))
        node.self_sizes, node.dims, node.keepdim = input._data.shape, dims, keepdim
        node.count = int(np.prod([input._data.shape[d] for d in dims], dtype=np.int64))
        out.grad_fn = node
    return out


class VarBackward0(Node):
    """d var = grad * 2 (x - mean) / (N - correction)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        centred = self_ - self_.mean(self.dims, keepdim=True)
        # N <= correction: PyTorch takes 2 / (N - correction) to be +inf.
        scale = 2.0 / (self.count - self.correction) if self.count > self.correction else np.inf
        return (_expand_back(grad, self.self_sizes, self.dims, self.keepdim) * centred * scale,)


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """Variance; Bessel-corrected (``correction=1``) unless told otherwise."""
    if isinstance(dim, bool):  # var(False): PyTorch's older (input, unbiased) signature
        dim, unbiased = None, dim
    if not input._dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes; convert "
                           "first, e.g. t.float().var()")
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = _dims(dim, input._data.ndim)
    count = int(np.prod([input._data.shape[d] for d in dims], dtype=np.int64))
    if count <= correction:
        warnings.warn("var(): degrees of freedom is <= 0. Correction should be strictly less than "
                      "the reduction factor (input numel divided by output numel).", UserWarning,
                      stacklevel=2)
        # Like PyTorch: sum of squares / max(0, N - correction), so inf (or nan for 0/0).
        centred = input._data - np.mean(input._data, axis=dims, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            data = np.sum(centred * centred, axis=dims, keepdims=keepdim) / 0.0
    else:
        data = np.var(input._data, axis=dims, keepdims=keepdim, ddof=correction,
                      dtype=input._dtype._accumulate)
    out = wrap(from_accumulator(np.asarray(data, dtype=input._dtype._accumulate), input._dtype), input)
    if needs_grad(input):
        node = VarBackward0((input,), saved=(input,))
        node.self_sizes, node.dims, node.keepdim = input._data.shape, dims, keepdim
        node.count, node.correction = count, correction
        out.grad_fn = node
    return out


class _EvenlyDistributed(Node):
    """All positions equal to the result share the gradient (max()/min()/amax)."""

    def backward(self, grad):
        self_, result = self.saved_tensors
        dims, keepdim = self.dims, self.keepdim
        winners = (self_ == _expand_back(result, self_._data.shape, dims, keepdim))
        count = winners.sum(dims, keepdim=True)
        return (_expand_back(grad, self_._data.shape, dims, keepdim) * winners / count,)


class MaxBackward1(_EvenlyDistributed):
    pass


class MinBackward1(_EvenlyDistributed):
    pass


class AmaxBackward0(_EvenlyDistributed):
    pass


class AminBackward0(_EvenlyDistributed):
    pass


class _IndexSelected(Node):
    """``max(dim)``/``min(dim)``: the gradient goes to the index each slice picked."""

    def backward(self, grad):
        from .indexing import scatter_into_zeros
        indices = self.indices._data
        if not self.keepdim:
            grad = grad.unsqueeze(self.dim)
            indices = np.expand_dims(indices, self.dim)
        return (scatter_into_zeros(grad, self.self_sizes, self.dim, indices),)


class MaxBackward0(_IndexSelected):
    pass


class MinBackward0(_IndexSelected):
    pass


_return_types = {}


def _return_type(name):
    if name not in _return_types:
        cls = namedtuple(name, ["values", "indices"])
        cls.__repr__ = lambda self: (f"nnref.return_types.{name}(\nvalues={self.values!r},\n"
                                     f"indices={self.indices!r})")
        _return_types[name] = cls
    return _return_types[name]


def _extreme(np_reduce, np_arg, full_node, dim_node, name, input, dim, keepdim):
    if input._data.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    if dim is None:
        out = wrap(np_reduce(input._data), input)
        if needs_grad(input):
            node = full_node((input,), saved=(input,))
            node.dims, node.keepdim = tuple(range(input._data.ndim)), False
            node.save_result(out)
            out.grad_fn = node
        return out
    axis = _wrap_dim(dim, input._data.ndim)
    indices = np_arg(input._data, axis=axis, keepdims=keepdim) if input._data.ndim else np.array(0)
    values = np.take_along_axis(input._data, indices if keepdim else np.expand_dims(indices, axis),
                                axis) if input._data.ndim else input._data
    if not keepdim and input._data.ndim:
        values = np.squeeze(values, axis)
    values, indices = wrap(values, input), wrap(indices.astype(np.int64), input)
    if needs_grad(input):
        node = dim_node((input,))
        node.dim, node.keepdim, node.indices = axis, keepdim, indices
        node.self_sizes = input._data.shape
        values.grad_fn = node
    return _return_type(name)(values, indices)


def max(input, dim=None, keepdim=False):
    """Largest element; with ``dim``, ``(values, indices)`` along it.  ``max(a, b)`` is ``maximum``."""
    if not isinstance(dim, (int, type(None))):
        from .pointwise import maximum
        return maximum(input, dim)
    return _extreme(np.max, np.argmax, MaxBackward1, MaxBackward0, "max", input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    """Smallest element; with ``dim``, ``(values, indices)`` along it."""
    if not isinstance(dim, (int, type(None))):
        from .pointwise import minimum
        return minimum(input, dim)
    return _extreme(np.min, np.argmin, MinBackward1, MinBackward0, "min", input, dim, keepdim)


def _amax_amin(np_reduce, node_class, input, dim, keepdim):
    dims = _dims(dim if dim != () else None, input._data.ndim)
    out = wrap(np_reduce(input._data, axis=dims, keepdims=keepdim), input)
    if needs_grad(input):
        node = node_class((input,), saved=(input,))
        node.dims, node.keepdim = dims, keepdim
        node.save_result(out)
        out.grad_fn = node
    return out


def amax(input, dim=(), keepdim=False):
    """Largest values over ``dim`` (all dims by default); ties share the gradient."""
    return _amax_amin(np.max, AmaxBackward0, input, dim, keepdim)


def amin(input, dim=(), keepdim=False):
    return _amax_amin(np.min, AminBackward0, input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    """Index of the largest element (of the flattened tensor when ``dim`` is None)."""
    if dim is None:
        index = np.argmax(input._data)
        return wrap(np.asarray(index, dtype=np.int64).reshape((1,) * input._data.ndim if keepdim else ()), input)
    return wrap(np.argmax(input._data, axis=_wrap_dim(dim, input._data.ndim),
                          keepdims=keepdim).astype(np.int64), input)


def argmin(input, dim=None, keepdim=False):
    if dim is None:
        return wrap(np.asarray(np.argmin(input._data), dtype=np.int64), input)
    return wrap(np.argmin(input._data, axis=_wrap_dim(dim, input._data.ndim),
                          keepdims=keepdim).astype(np.int64), input)


def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (which it must broadcast from): undoes broadcasting."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    extra = input._data.ndim - len(shape)
    if extra < 0:
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(input.shape)}")
    dims = tuple(range(extra)) + tuple(
        extra + i for i, s in enumerate(shape) if s == 1 and input._data.shape[extra + i] != 1)
    if not dims:
        return input
    out = input.sum(dims, keepdim=True)
    return out.reshape(shape) if extra else out


def all(input):
    return wrap(np.all(input._data), input)


def any(input):
    return wrap(np.any(input._data), input)


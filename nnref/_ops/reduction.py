"""Reductions: sum, mean, var, max/min, amax, argmax, and ``sum_to_size``.

Mirrors ``aten/src/ATen/native/ReduceOps.cpp`` (``max``/``min`` along a dim:
``TensorCompare.cpp``; ``norm``: ``LinearAlgebra.cpp``; ``bincount``: ``SummaryOps.cpp``).

A reduction's backward spreads the gradient back over the reduced
dimensions: by broadcasting (sum, mean), or onto the positions that won
(max, min, amax), sharing it evenly between ties as PyTorch does.
"""
import builtins
import math
import warnings
from collections import namedtuple

import numpy as np

from .. import _type_info
from .._half import through_float32
from ..core import _dtype
from ..core._device import array_module, array_module_of
from .. import _meta
from ..core._tensor import _wrap_dim
from ..core.autograd.graph import Node
from ._common import NotImplemented  # noqa: A004 - PyTorch's name
from ._common import from_accumulator, needs_grad, record, size_arguments, wrap
from .cascade_sum import follows_aten_sum, loop_slabs, sum_in_aten_order
from .norm_order import follows_aten_order, ordered_vector_norm
from ..core._ops import reduction as _core_reduction
from ..core._seams import install
from ..core._ops.reduction import (MaxBackward0, MaxBackward1, MeanBackward0, MeanBackward1, SumBackward0,
                                   SumBackward1, _expand_back)

_ATEN_ORDER_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _dims(dim, ndim):
    """Normalise ``dim`` (None, int, or sequence) to a sorted tuple of non-negative axes.

    An empty sequence means every dimension, as ``dim=None`` does (PyTorch's rule).
    A 0-d tensor accepts dim 0 or -1 and has no axis to reduce.
    """
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        dims = tuple(sorted(_wrap_dim(d, ndim) for d in dim))
        repeated = [d for d in dims if dims.count(d) > 1]
        if repeated:
            raise RuntimeError(f"dim {repeated[0]} appears multiple times in the list of dims")
    else:
        dims = (_wrap_dim(dim, ndim),)
    return dims if ndim else ()


def _float_sum(data, dims, keepdim, dtype):
    """``data`` summed over ``dims`` as the float ``dtype``.

    PyTorch casts the input to a float32 or float64 sum's dtype, then adds in the order of its CPU
    kernel, which nnref follows (``cascade_sum.py``) so that sums round to PyTorch's last bit;
    into a 16-bit float it casts too, then accumulates in float32 through other loads, left to numpy.
    """
    xp = array_module_of(data)
    if dtype.numpy in _ATEN_ORDER_DTYPES and (data.dtype in _ATEN_ORDER_DTYPES or data.dtype.kind in "biu"):
        data = data.astype(dtype.numpy, copy=False)
        if follows_aten_sum(data):
            total = sum_in_aten_order(data, dims)
            return xp.expand_dims(total, dims) if keepdim else total
    with np.errstate(over="ignore", invalid="ignore"):  # (beyond the 16-bit range: inf, then nan, as in PyTorch)
        data = through_float32(data, dtype.numpy).astype(dtype.numpy, copy=False)
        return from_accumulator(xp.sum(data, axis=dims, keepdims=keepdim, dtype=dtype._accumulate), dtype)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of all elements, or over ``dim``; bool and integer inputs sum to int64."""
    dtype = _type_info.as_dtype(dtype)
    if dtype is None:
        dtype = input._dtype if input._dtype.is_floating_point else _dtype.int64
    dims = _dims(dim, input._data.ndim)
    if dtype.is_floating_point:
        data = _float_sum(input._data, dims, keepdim, dtype)
    else:
        xp = array_module(input._device)
        data = from_accumulator(xp.sum(input._data, axis=dims, keepdims=keepdim, dtype=dtype._accumulate), dtype)
    out = wrap(data, input)
    return record(out, SumBackward0 if dim is None else SumBackward1, (input,),
                  self_sizes=input._data.shape, dims=dims, keepdim=keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Average of all elements, or over ``dim`` (floating point tensors only, as in PyTorch)."""
    dtype = _type_info.as_dtype(dtype) or input._dtype
    if not dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {input._dtype._legacy_name[:-6]}. Convert first, e.g. t.float().mean()")
    dims = _dims(dim, input._data.ndim)
    count = math.prod(input._data.shape[d] for d in dims)
    if dtype.numpy in _ATEN_ORDER_DTYPES:
        # PyTorch's CPU mean is its sum divided by the count (ReduceOps.cpp, mean_out).
        with np.errstate(invalid="ignore", divide="ignore"):
            data = _float_sum(input._data, dims, keepdim, dtype) / dtype.numpy.type(count)
    else:
        xp = array_module(input._device)
        data = from_accumulator(xp.mean(input._data, axis=dims, keepdims=keepdim, dtype=dtype._accumulate),
                                dtype)
    out = wrap(data, input)
    if needs_grad(input):
        out.grad_fn = (MeanBackward0 if dim is None else MeanBackward1)(
            (input,), self_sizes=input._data.shape, dims=dims, keepdim=keepdim, count=count)
    return out


def _var_backward(node, grad, self_):
    """d var = grad * 2 (x - mean) / (N - correction)."""
    centred = self_ - self_.mean(node.dims, keepdim=True)
    # N <= correction: PyTorch takes 2 / (N - correction) to be +inf.
    scale = 2.0 / (node.count - node.correction) if node.count > node.correction else np.inf
    return _expand_back(grad, node.self_sizes, node.dims, node.keepdim) * centred * scale


class VarBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (_var_backward(self, grad, self_),)


class StdBackward0(Node):
    """d std = d var / (2 std), and 0 where std is 0 (``std_backward`` in FunctionsManual.cpp)."""

    def backward(self, grad):
        self_, result = self.saved_tensors
        return (_var_backward(self, (grad / (2 * result)).masked_fill(result == 0, 0.0), self_),)


def _variance_of_all(data, correction, take_sqrt):
    """``std_var_all_cpu`` (``aten/src/ATen/native/ReduceOps.cpp``), PyTorch's CPU variance whenever
    it has one value to give: the float mean (``self.mean()``, ATen's sum order) as a double, the
    squared deviations added one by one in double in the iterator's order, divided by ``N - correction``
    (0 or less: inf or nan), the square root taken in double too; the caller rounds to the dtype."""
    xp = array_module_of(data)
    mean = float(sum_in_aten_order(data, tuple(range(data.ndim))) / data.dtype.type(data.size))
    deviations = loop_slabs(data).astype(np.float64) - mean
    # Each call of the 2-D loop adds its squares one by one, then adds that into the total.
    total = xp.cumsum(xp.cumsum(deviations * deviations, axis=1)[:, -1])[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = total / np.float64(builtins.max(0, data.size - correction))
    return xp.sqrt(variance) if take_sqrt else variance


def _variance(name, node_class, input, dim, unbiased, keepdim, correction, take_sqrt=False):
    """The variance (or its square root) in the accumulation dtype, and the node of ``var`` or
    ``std`` (unfinished)."""
    if isinstance(dim, bool):  # var(False): PyTorch's older (input, unbiased) signature
        dim, unbiased = None, dim
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"std and var only support floating point and complex dtypes; convert "
                           f"first, e.g. t.float().{name}()")
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = _dims(dim, input._data.ndim)
    count = math.prod(input._data.shape[d] for d in dims)
    xp = array_module(input._device)
    if count <= correction:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    kept = [size for d, size in enumerate(input._data.shape) if d not in dims]
    if follows_aten_sum(input._data) and math.prod(kept) <= 1 and input._data.size:
        value = _variance_of_all(input._data, correction, take_sqrt)
        shape = [1 if d in dims else size for d, size in enumerate(input._data.shape)] if keepdim else kept
        data = xp.asarray(value, dtype=input._dtype._accumulate).reshape(shape)
    else:
        if count <= correction:
            # Like PyTorch: sum of squares / max(0, N - correction), so inf (or nan for 0/0).
            centred = input._data - xp.mean(input._data, axis=dims, keepdims=True)
            with np.errstate(divide="ignore", invalid="ignore"):
                data = xp.sum(centred * centred, axis=dims, keepdims=keepdim) / 0.0
        else:
            data = xp.var(input._data, axis=dims, keepdims=keepdim, ddof=correction,
                          dtype=input._dtype._accumulate)
        data = xp.sqrt(data) if take_sqrt else data
    node = None
    if needs_grad(input):
        node = node_class((input,), (input,), self_sizes=input._data.shape, dims=dims,
                          keepdim=keepdim, count=count, correction=correction)
    return xp.asarray(data, dtype=input._dtype._accumulate), node


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """Variance; Bessel-corrected (``correction=1``) unless told otherwise."""
    data, node = _variance("var", VarBackward0, input, dim, unbiased, keepdim, correction)
    out = wrap(from_accumulator(data, input._dtype), input)
    if node is not None:
        out.grad_fn = node
    return out


def std(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """Standard deviation, the square root of :func:`var` (same arguments)."""
    data, node = _variance("std", StdBackward0, input, dim, unbiased, keepdim, correction, take_sqrt=True)
    out = wrap(from_accumulator(data, input._dtype), input)
    if node is not None:
        node.save_result(out)
        out.grad_fn = node
    return out


class LinalgVectorNormBackward0(Node):
    """The gradient of ``(sum |x|**p) ** (1/p)``, case by case as ``norm_backward`` (FunctionsManual.cpp)."""

    def backward(self, grad):
        self_, result = self.saved_tensors
        return (norm_backward(grad, self_, result, self.ord, self.dims, self.keepdim),)


def norm_backward(grad, self_, result, p, dims, keepdim):
    """PyTorch's ``norm_backward`` (``FunctionsManual.cpp``): the gradient of the p-norm ``result``
    of ``self_`` over ``dims``, or None for p = 0 (a count: no gradient at all)."""
    shape = self_._data.shape
    grad = _expand_back(grad, shape, dims, keepdim)
    result = _expand_back(result, shape, dims, keepdim)
    if p == 0:
        return None
    if p == 1:
        return self_.sign() * grad
    if p == 2:
        return grad * (self_ / result).masked_fill(result == 0, 0.0)
    if math.isinf(p):
        # Every position where |x| reaches the norm (or is nan) shares the gradient.
        magnitude = self_.abs()
        mask = (magnitude == result) | (magnitude != magnitude)
        return self_.sign() * (grad / mask.sum(dims, keepdim=True)) * mask
    if p < 1:
        scaled = self_.sign() * self_.abs().pow(p - 1).masked_fill(self_ == 0, 0.0)
        return scaled * grad * result.pow(1 - p)
    scaled = self_.sign() * self_.abs().pow(p - 1) if p < 2 else self_ * self_.abs().pow(p - 2)
    return scaled * (grad / result.pow(p - 1)).masked_fill(result == 0, 0.0)


class NormBackward1(LinalgVectorNormBackward0):
    """The node of ATen's ``at::norm(x, p, dim)``, which ``pairwise_distance`` calls: the same derivative
    as ``linalg.vector_norm``'s, under the name PyTorch records there."""


def _vector_norm(data, p, dims, keepdim):
    xp = array_module_of(data)
    if len(dims) == data.ndim and follows_aten_order(data):  # the whole tensor: ATen's summation order
        result = ordered_vector_norm(data, p)
        return xp.reshape(result, (1,) * data.ndim) if keepdim else result
    magnitude = xp.abs(data)
    if p == 2:
        return xp.sqrt(xp.sum(magnitude * magnitude, axis=dims, keepdims=keepdim))
    if p == np.inf:
        return xp.max(magnitude, axis=dims, keepdims=keepdim)
    if p == -np.inf:
        return xp.min(magnitude, axis=dims, keepdims=keepdim)
    if p == 0:
        return xp.sum(magnitude != 0, axis=dims, keepdims=keepdim).astype(data.dtype)
    if p == 1:
        return xp.sum(magnitude, axis=dims, keepdims=keepdim)
    with np.errstate(divide="ignore"):  # p < 0 with a zero entry: inf ** (1/p) = 0, quietly
        return xp.sum(magnitude ** p, axis=dims, keepdims=keepdim) ** (1.0 / p)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The vector p-norm over ``dim`` (all elements by default); ``'fro'`` is p = 2.

    Mirrors ``torch.norm``, which hands vector norms to ``linalg.vector_norm``;
    matrix norms (``'nuc'``) are not implemented.
    """
    if p == "fro":
        p = 2
    elif isinstance(p, str):
        raise NotImplementedError(f"norm(p={p!r}): nnref has only vector norms (p a number, or 'fro')")
    dtype = _type_info.as_dtype(dtype) or input._dtype
    if not (input._dtype.is_floating_point and dtype.is_floating_point):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input._dtype._legacy_name[:-6]}")
    dims = _dims(dim, input._data.ndim)
    data = _vector_norm(input._data.astype(dtype._accumulate, copy=False), p, dims, keepdim)
    xp = array_module(input._device)
    out = wrap(from_accumulator(xp.asarray(data), dtype), input)
    return record(out, LinalgVectorNormBackward0, (input,), saved=(input,), save_result=True, ord=p,
                  dims=dims, keepdim=keepdim)


class _EvenlyDistributed(Node):
    """All positions equal to the result share the gradient (max()/min()/amax)."""

    def backward(self, grad):
        self_, result = self.saved_tensors
        dims, keepdim = self.dims, self.keepdim
        winners = (self_ == _expand_back(result, self_._data.shape, dims, keepdim))
        count = winners.sum(dims, keepdim=True)
        return (_expand_back(grad, self_._data.shape, dims, keepdim) * winners / count,)


def evenly_distribute(grad, self_, result):
    """``max()``/``min()`` of the whole tensor: ``evenly_distribute_backward``
    (``torch/csrc/autograd/FunctionsManual.cpp``) on the CPU: the elements equal to the result
    share the gradient, the NaNs when the result is NaN; every other element gets +0 (a
    select: not the -0 or NaN of a multiply by 0).  The core's ``MaxBackward1`` calls it."""
    from .pointwise import masked_grad
    x = self_._data
    xp = array_module_of(x)
    winners = xp.isnan(x) if _meta.has_values(x) and bool(xp.isnan(result._data)) else x == result._data
    count = int(winners.sum()) if _meta.has_values(x) else 1
    return masked_grad((grad / count).expand(self_.shape), winners)


def _scatter_into_zeros(grad, shape, dim, indices):
    """``max(dim)``/``min(dim)``'s backward as a recorded indexing op (the core's ``MaxBackward0``)."""
    from .indexing import scatter_into_zeros
    return scatter_into_zeros(grad, shape, dim, indices)


install(_core_reduction, "evenly_distribute", evenly_distribute)
install(_core_reduction, "scatter_into_zeros", _scatter_into_zeros)


class MinBackward1(MaxBackward1):
    pass


class AmaxBackward0(_EvenlyDistributed):
    pass


class AminBackward0(_EvenlyDistributed):
    pass


class _IndexSelected(Node):
    """``kthvalue``/``mode`` ...: the gradient goes to the index each slice picked."""

    def backward(self, grad):
        from .indexing import scatter_into_zeros
        indices = self.indices._data
        if not self.keepdim:
            xp = array_module_of(indices)
            grad = grad.unsqueeze(self.dim)
            indices = xp.expand_dims(indices, self.dim)
        return (scatter_into_zeros(grad, self.self_sizes, self.dim, indices),)


class MinBackward0(MaxBackward0):
    pass


_return_types = {}


def _return_type(name):
    if name not in _return_types:
        cls = namedtuple(name, ["values", "indices"])
        cls.__repr__ = lambda self: (f"torch.return_types.{name}(\nvalues={self.values!r},\n"
                                     f"indices={self.indices!r})")
        _return_types[name] = cls
    return _return_types[name]


def _extreme(reduce, arg, full_node, dim_node, name, input, dim, keepdim):
    if input._data.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    if dim is None:
        out = wrap(reduce(input._data), input)
        if needs_grad(input):
            node = full_node((input,), (input,), dims=tuple(range(input._data.ndim)), keepdim=False)
            node.save_result(out)
            out.grad_fn = node
        return out
    axis = _wrap_dim(dim, input._data.ndim)
    xp = array_module(input._device)
    indices = arg(input._data, axis=axis, keepdims=keepdim) if input._data.ndim else xp.array(0)
    values = xp.take_along_axis(input._data, indices if keepdim else xp.expand_dims(indices, axis),
                                axis) if input._data.ndim else input._data
    if not keepdim and input._data.ndim:
        values = xp.squeeze(values, axis)
    values, indices = wrap(values, input), wrap(indices.astype(np.int64), input)
    if needs_grad(input):
        values.grad_fn = dim_node((input,), dim=axis, keepdim=keepdim, indices=indices,
                                  self_sizes=input._data.shape)
    return _return_type(name)(values, indices)


def _pairwise(name, input, dim, keepdim, other):
    """PyTorch's ``max(input, other)``/``min(input, other)`` overload, the tensor ``other`` given
    by position (where ``dim`` sits) or by keyword; None for the reduction overloads."""
    if other is None and isinstance(dim, (int, type(None))):
        return None
    if other is not None and (dim is not None or keepdim):
        raise TypeError(f"{name}() received an invalid combination of arguments: other= goes with "
                        f"no dim or keepdim ({name}(input, other) or {name}(input, dim, keepdim))")
    from . import pointwise
    return getattr(pointwise, "maximum" if name == "max" else "minimum")(
        input, dim if other is None else other)


def max(input, dim=None, keepdim=False, *, other=None):
    """Largest element; with ``dim``, ``(values, indices)`` along it.  ``max(a, b)`` (or
    ``max(a, other=b)``) is ``maximum``."""
    pairwise = _pairwise("max", input, dim, keepdim, other)
    if pairwise is not None:
        return pairwise
    xp = array_module(input._device)
    return _extreme(xp.max, xp.argmax, MaxBackward1, MaxBackward0, "max", input, dim, keepdim)


def min(input, dim=None, keepdim=False, *, other=None):
    """Smallest element; with ``dim``, ``(values, indices)`` along it.  ``min(a, b)`` (or
    ``min(a, other=b)``) is ``minimum``."""
    pairwise = _pairwise("min", input, dim, keepdim, other)
    if pairwise is not None:
        return pairwise
    xp = array_module(input._device)
    return _extreme(xp.min, xp.argmin, MinBackward1, MinBackward0, "min", input, dim, keepdim)


def _amax_amin(reduce, node_class, input, dim, keepdim):
    dims = _dims(dim if dim != () else None, input._data.ndim)
    out = wrap(reduce(input._data, axis=dims, keepdims=keepdim), input)
    return record(out, node_class, (input,), saved=(input,), save_result=True, dims=dims,
                  keepdim=keepdim)


def amax(input, dim=(), keepdim=False):
    """Largest values over ``dim`` (all dims by default); ties share the gradient."""
    xp = array_module(input._device)
    return _amax_amin(xp.max, AmaxBackward0, input, dim, keepdim)


def amin(input, dim=(), keepdim=False):
    """The smallest values over ``dim`` (all dims by default), without indices; ties share the
    gradient evenly (``torch.amin``, ``aten/src/ATen/native/ReduceOps.cpp``)."""
    xp = array_module(input._device)
    return _amax_amin(xp.min, AminBackward0, input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    """Index of the largest element (of the flattened tensor when ``dim`` is None)."""
    xp = array_module(input._device)
    if dim is None:
        index = xp.argmax(input._data)
        return wrap(xp.asarray(index, dtype=np.int64).reshape((1,) * input._data.ndim if keepdim else ()), input)
    return wrap(xp.argmax(input._data, axis=_wrap_dim(dim, input._data.ndim),
                          keepdims=keepdim).astype(np.int64), input)


def argmin(input, dim=None, keepdim=False):
    """The index of the smallest value, over the flattened tensor or along ``dim`` (int64, the
    first one on ties): ``torch.argmin``, ``aten/src/ATen/native/ReduceOps.cpp``."""
    xp = array_module(input._device)
    if dim is None:
        index = xp.argmin(input._data)
        return wrap(xp.asarray(index, dtype=np.int64).reshape((1,) * input._data.ndim if keepdim else ()), input)
    return wrap(xp.argmin(input._data, axis=_wrap_dim(dim, input._data.ndim),
                          keepdims=keepdim).astype(np.int64), input)


def sum_to_size(input, *args, size=None):
    """Sum ``input`` down to ``size`` (which it must broadcast from): undoes broadcasting."""
    shape = size_arguments("sum_to_size", "size", args, size)
    extra = input._data.ndim - len(shape)
    if extra < 0:
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(input.shape)}")
    dims = tuple(range(extra)) + tuple(
        [extra + i for i, s in enumerate(shape) if s == 1 and input._data.shape[extra + i] != 1])
    if not dims:
        return input
    if not needs_grad(input) and input._dtype._accumulate is input._dtype.numpy:
        # The engine reduces every broadcast gradient (each bias, every batch) this way; when
        # nothing is recorded one numpy call does it, without building sum and view nodes.
        data = input._data
        total = sum_in_aten_order(data, dims) if follows_aten_sum(data) else data.sum(axis=dims)
        return wrap(total.reshape(shape), input)
    out = input.sum(dims, keepdim=True)
    return out.reshape(shape) if extra else out


def _all_any(reduce, input, dim, keepdim):
    """``all``/``any`` over every element, over ``dim``, or over nothing for ``dim=()`` (the one
    reduction where PyTorch reads an empty tuple as "no dimension"); uint8 stays uint8."""
    xp = array_module(input._device)
    dims = () if isinstance(dim, (list, tuple)) and not dim else _dims(dim, input._data.ndim)
    out = reduce(input._data != 0, axis=dims, keepdims=keepdim and input._data.ndim > 0)
    if input._dtype is _dtype.uint8:
        out = out.astype(np.uint8)
    return wrap(xp.asarray(out), input)


def all(input, dim=None, keepdim=False):
    """True where every element is nonzero: over the whole tensor, or along ``dim`` (an int or a
    tuple), a bool tensor (uint8 for uint8 input) (``torch.all``,
    ``aten/src/ATen/native/ReduceOps.cpp``)."""
    return _all_any(array_module(input._device).all, input, dim, keepdim)


def any(input, dim=None, keepdim=False):
    """True where some element is nonzero: over the whole tensor, or along ``dim`` (an int or a
    tuple), a bool tensor (uint8 for uint8 input) (``torch.any``,
    ``aten/src/ATen/native/ReduceOps.cpp``)."""
    return _all_any(array_module(input._device).any, input, dim, keepdim)


def bincount(input, weights=None, minlength=0):
    """How often each value occurs in a 1-d tensor of non-negative integers (or the sum of its ``weights``).

    As PyTorch's ``_bincount_cpu``, weighted counts are float32 for float32 weights, else float64.
    """
    data = input._data
    if input._dtype.is_floating_point or input._dtype is _dtype.bool:
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{input._dtype._legacy_name[:-6]}\'')
    if data.ndim != 1 or (data.size and _meta.has_values(data) and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = array_module(input._device)
    if weights is None:
        return wrap(xp.bincount(data, minlength=minlength).astype(np.int64, copy=False), input)
    if weights._data.shape != data.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = weights._dtype if weights._dtype is _dtype.float32 else _dtype.float64
    counts = xp.zeros(builtins.max(minlength, int(data.max()) + 1 if data.size else 0), dtype.numpy)
    xp.add.at(counts, data, weights._data.astype(dtype.numpy))  # in order, in dtype: PyTorch's loop
    out = wrap(counts, input)
    if needs_grad(weights):
        out.grad_fn = NotImplemented("_bincount", (weights,))
    return out

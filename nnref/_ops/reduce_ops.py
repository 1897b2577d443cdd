"""``prod``, ``cumsum`` and ``logsumexp``: the reductions of ``ReduceOps.cpp`` beside sum and mean.

Mirrors ``aten/src/ATen/native/ReduceOps.cpp``.

``logsumexp`` and ``cumsum`` write their backward with nnref ops (so it can be
differentiated again); ``prod``'s backward uses exclusive cumulative products, which
stay exact when the input holds zeros, and under ``create_graph=True`` PyTorch's
``grad * result / x`` in nnref ops (with zeros that second derivative is refused
rather than wrong).
"""
import numpy as np

from ..core import _dtype
from .._half import through_float32
from ..core._device import array_module, array_module_of
from .. import _meta
from ..core._tensor import _wrap_dim
from ..core.autograd.grad_mode import _GradState
from ..core.autograd.graph import Node
from ._common import float_data, from_accumulator, needs_grad, record, running, wrap
from .reduction import _dims, _expand_back

__all__ = ["prod", "cumsum", "logsumexp"]


def _integer_result(input, dtype):
    """Bool and integer inputs accumulate in int64, as PyTorch's sum, prod and cumsum do."""
    if dtype is not None:
        return dtype
    return input._dtype if input._dtype.is_floating_point else _dtype.int64


def _product_of_others(data, axis):
    """Product of every element but the one at each position, along ``axis`` (zeros handled exactly)."""
    xp = array_module_of(data)
    ones = xp.ones_like(xp.take(data, [0], axis=axis))
    before = xp.cumprod(xp.concatenate([ones, xp.take(data, xp.arange(data.shape[axis] - 1), axis=axis)],
                                       axis=axis), axis=axis)
    flipped = xp.flip(data, axis=axis)
    after = xp.flip(xp.cumprod(xp.concatenate(
        [ones, xp.take(flipped, xp.arange(data.shape[axis] - 1), axis=axis)], axis=axis), axis=axis),
        axis=axis)
    return before * after


def _prod_backward(grad, x, result, axis):
    """``prod_backward`` (``torch/csrc/autograd/FunctionsManual.cpp``): ``grad * result / x``
    while no element is 0; otherwise the product of the others (exclusive running products
    from both ends, ``prod_safe_zeros_backward``), and for a whole-tensor product with several
    zeros, zeros.  ``grad`` and ``result`` broadcast against ``x``."""
    xp = array_module_of(x)
    if not x.ndim:
        return xp.broadcast_to(grad, x.shape).copy()
    zeros = int(xp.count_nonzero(x == 0)) if _meta.has_values(x) else 0
    if zeros == 0:
        with np.errstate(divide="ignore", invalid="ignore"):  # inf / inf is NaN, as in PyTorch
            return grad * (result / x)
    if axis is None and zeros > 1:
        return xp.zeros_like(x)
    if axis is None:
        return grad * _product_of_others(x.reshape(-1), 0).reshape(x.shape)
    return grad * _product_of_others(x, axis)


def _prod_backward_recorded(grad, x, result):
    """``prod_backward`` under ``create_graph=True``, in recorded ops so that it can be
    differentiated again: ``grad * (result / x)``, PyTorch's formula while no element is 0 (its
    gradient's node is ``MulBackward0``, as there).  With zeros PyTorch differentiates exclusive
    ``cumprod``s, whose own gradient nnref does not give for zeros: refused."""
    if _meta.has_values(x._data) and array_module_of(x._data).count_nonzero(x._data == 0):
        raise NotImplementedError(
            "nnref cannot differentiate prod's gradient again (create_graph=True) when the input "
            "holds zeros; PyTorch can. Without zeros it can, and without create_graph=True the "
            "first derivative is exact.")
    return grad * (result / x)


class ProdBackward0(Node):
    def backward(self, grad):
        self_, result = self.saved_tensors
        if _GradState.enabled:
            return (grad if not self_._data.ndim else _prod_backward_recorded(grad, self_, result),)
        return (wrap(_prod_backward(grad._data, self_._data, result._data, None), grad),)


class ProdBackward1(Node):
    def backward(self, grad):
        self_, result = self.saved_tensors
        if _GradState.enabled:
            if not self_._data.ndim:
                return (grad,)
            if not self.keepdim:
                grad, result = grad.unsqueeze(self.dim), result.unsqueeze(self.dim)
            return (_prod_backward_recorded(grad, self_, result),)
        g, r = grad._data, result._data
        if not self.keepdim and self_._data.ndim:
            xp = array_module_of(g)
            g, r = xp.expand_dims(g, self.dim), xp.expand_dims(r, self.dim)
        return (wrap(_prod_backward(g, self_._data, r, self.dim), grad),)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product of all elements, or along ``dim``; bool and integer inputs multiply in int64."""
    dtype = _integer_result(input, dtype)
    data = input._data.astype(dtype._accumulate, copy=False)
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 is NaN, PyTorch does not warn
        return _prod(input, data, dtype, dim, keepdim)


def _in_dtype(result, dtype):
    """A product back in ``dtype``: numpy multiplies bools as integers (a bool product is their ``all``)."""
    return from_accumulator(result, dtype) if result.dtype != bool and dtype is not _dtype.bool else \
        result.astype(bool)


def _prod(input, data, dtype, dim, keepdim):
    xp = array_module(input._device)
    if dim is None:
        out = wrap(_in_dtype(xp.asarray(xp.prod(data)), dtype), input)
        node = ProdBackward0((input,), saved=(input,)) if needs_grad(input) else None
        if node is not None:
            node.save_result(out)
    else:
        axis = _wrap_dim(dim, input._data.ndim)
        result = xp.prod(data, axis=axis, keepdims=keepdim) if data.ndim else data
        out = wrap(_in_dtype(xp.asarray(result), dtype), input)
        node = None
        if needs_grad(input):
            node = ProdBackward1((input,), (input,), dim=axis, keepdim=keepdim)
            node.save_result(out)
    if node is not None:
        out.grad_fn = node
    return out


class CumsumBackward0(Node):
    """The gradient of a running sum is the running sum of the gradient taken from the end."""

    def backward(self, grad):
        return (_cumsum(grad, self.dim, not self.reverse, None),)


def _cumsum(input, dim, reverse, dtype):
    dtype = _integer_result(input, dtype)
    xp = array_module(input._device)
    data = input._data
    if not data.ndim:
        result = through_float32(data, dtype.numpy).astype(dtype.numpy)
    else:
        source = xp.flip(data, axis=dim) if reverse else data
        result = running(xp.cumsum, source, dim, dtype, input._device)
        result = xp.flip(result, axis=dim) if reverse else result
    out = wrap(xp.ascontiguousarray(result) if result.ndim else result, input)  # (ascontiguousarray makes 0-d 1-d)
    return record(out, CumsumBackward0, (input,), dim=dim, reverse=reverse)


def cumsum(input, dim, *, dtype=None):
    """Running sums along ``dim``: ``out[i] = input[0] + ... + input[i]``."""
    return _cumsum(input, _wrap_dim(dim, input._data.ndim), False, dtype)


class LogsumexpBackward0(Node):
    """d logsumexp = grad * exp(x - result): the softmax of ``x``."""

    def backward(self, grad):
        self_, result = self.saved_tensors
        shape = self_._data.shape
        return (_expand_back(grad, shape, self.dims, self.keepdim)
                * (self_ - _expand_back(result, shape, self.dims, self.keepdim)).exp(),)


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(x)))`` over ``dim``, computed stably (the maximum is taken out first)."""
    if input._dtype.is_floating_point:
        data, dtype = input._data.astype(input._dtype._accumulate, copy=False), input._dtype
    else:
        data, dtype = float_data(input), _dtype.get_default_dtype()
    dims = _dims(dim, data.ndim)
    xp = array_module(input._device)
    if data.size:
        peak = xp.max(data, axis=dims, keepdims=True)
        peak = xp.where(xp.isinf(peak), 0, peak)  # all -inf (or +inf): no shift
    else:
        peak = xp.zeros((1,) * data.ndim, dtype=data.dtype)
    with np.errstate(divide="ignore"):
        result = xp.log(xp.sum(xp.exp(data - peak), axis=dims, keepdims=True)) + peak
    if not keepdim:
        result = xp.squeeze(result, axis=dims) if dims else result
    out = wrap(from_accumulator(xp.asarray(result), dtype), input)
    return record(out, LogsumexpBackward0, (input,), saved=(input,), save_result=True, dims=dims,
                  keepdim=keepdim)

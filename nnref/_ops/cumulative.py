"""Running (cumulative) ops beside ``cumsum``: ``cumprod``, ``logcumsumexp``, ``cummax`` and ``cummin``.

Mirrors ``aten/src/ATen/native/ReduceOps.cpp`` (the kernels: ``ReduceOpsKernel.cpp``); the
gradients are those of ``tools/autograd/derivatives.yaml`` (``cumprod_backward``,
``logcumsumexp_backward``, ``cummaxmin_backward`` in ``FunctionsManual.cpp``), written with
nnref ops so that they differentiate again.

``logcumsumexp``, ``cummax`` and ``cummin`` are scans of an associative combination; they run
as a Hillis-Steele scan (log2(n) whole-array steps, each combining every element with the one
``2**k`` before it), which needs only elementwise array functions, the same on a GPU.
"""
import numpy as np

from .. import _type_info
from ..core import _dtype
from ..core._device import array_module, array_module_of
from .. import _meta
from ..core._tensor import _wrap_dim
from ..core.autograd.graph import Node
from ._common import from_accumulator, needs_grad, record, running, wrap
from .reduction import _return_type

__all__ = ["cumprod", "logcumsumexp", "cummax", "cummin"]


def _scan(combine, *arrays):
    """The inclusive scan of ``combine`` (associative, earlier operand first) along the last axis."""
    xp = array_module_of(arrays[0])
    n, shift = arrays[0].shape[-1], 1
    while shift < n:
        combined = combine(*(a[..., :-shift] for a in arrays), *(a[..., shift:] for a in arrays))
        arrays = tuple(xp.concatenate([a[..., :shift], c], axis=-1) for a, c in zip(arrays, combined))
        shift *= 2
    return arrays


def _along_last(function, data, dim):
    """``function`` of arrays whose scanned dim is last, its results moved back to ``dim``."""
    xp = array_module_of(data)
    results = function(xp.moveaxis(data, dim, -1))
    return tuple(xp.ascontiguousarray(xp.moveaxis(r, -1, dim)) for r in results)


# -- cumprod ---------------------------------------------------------------------------------------
def _reversed_cumsum(t, dim):
    from .reduce_ops import cumsum
    from .reorder import flip
    return flip(cumsum(flip(t, dim), dim), dim)


class CumprodBackward0(Node):
    """``sum over i >= k of grad[i] * prod(x[j] for j <= i, j != k)``.

    Without zeros this is ``reversed_cumsum(grad * result) / x``, as in PyTorch; with a zero it
    is formed for each ``k`` from the running product with ``x[k]`` replaced by 1 (exact, in
    n times the memory).
    """

    def backward(self, grad):
        (self_,) = self.saved_tensors
        dim = self.dim
        if not self_._data.ndim:
            return (grad,)
        if _meta.has_values(self_._data) and bool(array_module_of(self_._data).all(self_._data != 0)):
            return (_reversed_cumsum(grad * cumprod(self_, dim), dim) / self_,)
        from .._creation import ones
        from .pointwise import where
        from .tensor_shape import triu
        n = self_._data.shape[dim]
        # rows[k] is x with x[k] set to 1, the new leading axis k; dims of x move up by one.
        shape = [n] + [1] * self_._data.ndim
        shape[dim + 1] = n
        upper = triu(ones(n, n, dtype=self_.dtype, device=self_.device))
        picked = (upper - triu(upper, 1) > 0).reshape(shape)  # the diagonal: i == k
        after = (upper > 0).reshape(shape)  # i >= k
        rows = where(picked, 1.0, self_.unsqueeze(0))
        terms = where(after, cumprod(rows, dim + 1) * grad.unsqueeze(0), 0.0)
        return (terms.sum(dim + 1).movedim(0, dim),)


def cumprod(input, dim, *, dtype=None):
    """Running products along ``dim``: ``out[i] = input[0] * ... * input[i]``; bool and integer
    inputs multiply in int64 (``torch.cumprod``, ``aten/src/ATen/native/ReduceOps.cpp``)."""
    dim = _wrap_dim(dim, input._data.ndim)
    dtype = _type_info.as_dtype(dtype) or (input._dtype if input._dtype.is_floating_point else _dtype.int64)
    xp = array_module(input._device)
    data = input._data
    if not data.ndim:
        result = data.astype(dtype.numpy)
    else:
        result = running(xp.cumprod, data, dim, dtype, input._device)
    out = wrap(result, input)
    return record(out, CumprodBackward0, (input,), saved=(input,), dim=dim)


# -- logcumsumexp ----------------------------------------------------------------------------------
class LogcumsumexpBackward0(Node):
    """PyTorch's ``logcumsumexp_backward``: the positive and negative parts of ``grad`` each
    through a reversed ``logcumsumexp``, so nothing overflows."""

    def backward(self, grad):
        from .pointwise import log, where
        from .reorder import flip
        self_, result = self.saved_tensors
        dim = self.dim
        if not self_._data.ndim:
            return (grad,)
        lowest = float(np.finfo(grad._dtype.numpy).min)
        log_abs_grad = log(grad.abs())
        positive = where(grad > 0, log_abs_grad, lowest)
        negative = where(grad < 0, log_abs_grad, lowest)

        def reversed_logcumsumexp(t):
            return flip(logcumsumexp(flip(t, dim), dim), dim)

        return ((reversed_logcumsumexp(positive - result) + self_).exp()
                - (reversed_logcumsumexp(negative - result) + self_).exp(),)


def _logaddexp(xp):
    def combine(earlier, later):
        with np.errstate(invalid="ignore"):  # -inf with -inf: -inf, quietly
            return (xp.logaddexp(earlier, later),)
    return combine


def logcumsumexp(input, dim):
    """``log(cumsum(exp(input)))`` along ``dim``, computed without overflow (floating point
    tensors only, as in PyTorch) (``torch.logcumsumexp``, ``aten/src/ATen/native/ReduceOps.cpp``)."""
    dim = _wrap_dim(dim, input._data.ndim)
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for '
                                  f"'{input._dtype._legacy_name[:-6]}'")
    xp = array_module(input._device)
    data = input._data.astype(input._dtype._accumulate, copy=False)
    if data.ndim and data.size:
        (data,) = _along_last(lambda d: _scan(_logaddexp(xp), d), data, dim)
    out = wrap(from_accumulator(data.copy() if data is input._data else data, input._dtype), input)
    return record(out, LogcumsumexpBackward0, (input,), saved=(input,), save_result=True, dim=dim)


# -- cummax, cummin --------------------------------------------------------------------------------
class CummaxBackward0(Node):
    """The gradient of each running extremum goes to the position it came from (a scatter-add)."""

    def backward(self, grad):
        from .scatter import _scatter_add_into_zeros
        if not grad._data.ndim:
            return (grad,)
        return (_scatter_add_into_zeros(grad, self.self_sizes, self.dim, self.indices),)


class CumminBackward0(CummaxBackward0):
    pass


def _later_wins(xp, better):
    """PyTorch's update rule: a NaN always takes over, then nothing but a later NaN does; otherwise
    a value at least as good (``>=`` or ``<=``) replaces the running one, so ties pick the later index."""
    def combine(earlier_values, earlier_indices, later_values, later_indices):
        later_nan = later_values != later_values
        take = later_nan | ((earlier_values == earlier_values) & better(later_values, earlier_values))
        return xp.where(take, later_values, earlier_values), xp.where(take, later_indices, earlier_indices)
    return combine


def _cumulative_extreme(name, better, node_class, input, dim):
    dim = _wrap_dim(dim, input._data.ndim)
    xp = array_module(input._device)
    data = input._data
    if not data.ndim or not data.size:
        values, indices = data.copy(), xp.zeros(data.shape, dtype=np.int64)
    else:
        def scan(last):
            positions = xp.broadcast_to(xp.arange(last.shape[-1], dtype=np.int64), last.shape)
            return _scan(_later_wins(xp, better), last, positions)
        values, indices = _along_last(scan, data, dim)
    values, indices = wrap(values, input), wrap(indices, input)
    if needs_grad(input):
        values.grad_fn = node_class((input,), dim=dim, indices=indices, self_sizes=data.shape)
    return _return_type(name)(values, indices)


def cummax(input, dim):
    """``(values, indices)``: the running maximum along ``dim`` and where it was found (the later
    index on ties; a NaN stays once seen) (``torch.cummax``, ``aten/src/ATen/native/ReduceOps.cpp``)."""
    return _cumulative_extreme("cummax", lambda a, b: a >= b, CummaxBackward0, input, dim)


def cummin(input, dim):
    """``(values, indices)``: the running minimum along ``dim`` and where it was found (the later
    index on ties; a NaN stays once seen) (``torch.cummin``, ``aten/src/ATen/native/ReduceOps.cpp``)."""
    return _cumulative_extreme("cummin", lambda a, b: a <= b, CumminBackward0, input, dim)

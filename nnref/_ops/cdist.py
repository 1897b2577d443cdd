"""``cdist``: the ``p``-norm distance between each row of ``x1`` and each row of ``x2``, batched.

Mirrors ``aten/src/ATen/native/Distance.cpp`` (``cdist``, ``cdist_impl``, ``_euclidean_dist``,
``_euclidean_dist_backward``) and the CPU kernels of ``aten/src/ATen/native/cpu/DistanceOpsKernel.cpp``
(``run_parallel_cdist``: one scalar loop over the columns per pair; ``run_backward_parallel_cdist``:
per column, a sum over the other rows in order).

For ``p = 2`` with more than 25 rows on either side (or ``compute_mode='use_mm_for_euclid_dist'``)
PyTorch takes the matrix-product form ``|a|^2 - 2 a.b + |b|^2`` (``_euclidean_dist``), which rounds
differently from the direct sum; that form is built here from the same ops, so its values and its
graph (``ViewBackward0`` over ``EuclideanDistBackward0``) are PyTorch's.
"""
import math

import numpy as np

from ..core._device import array_module_of
from ..core.autograd.graph import Node
from ._common import needs_grad, record, wrap
from .fused import fma

__all__ = ["cdist"]

_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}


# The kernel's scalar loop over columns, as compiled: unrolled by 4 (float32) or 2 (float64) with the
# squares of an unrolled group taken together (their adds not fused), the leftover columns each
# ``agg = fma(diff, diff, agg)`` (measured: every other pattern fails for 2 to 9 columns).
_UNROLL = {np.dtype(np.float32): 4, np.dtype(np.float64): 2}


def _sequential(values):
    """``agg = 0; agg += v`` over the last axis, in order, in the dtype."""
    xp = array_module_of(values)
    return xp.cumsum(values, axis=-1, dtype=values.dtype)[..., -1]


def _pow(x, p):
    """``std::pow(x, p)`` in ``x``'s dtype: float32 through float64 (then rounded once, as a correctly
    rounded ``powf``; numpy's own float32 power may take a faster, less exact SIMD path)."""
    if x.dtype == np.float32:
        return (x.astype(np.float64) ** float(p)).astype(np.float32)
    return x ** float(p)


def _direct(a, b, p):
    """``run_parallel_cdist`` on arrays ``(B, r1, m)`` and ``(B, r2, m)``: per pair, ``agg = red(agg,
    map(|a - b|))`` over the columns in order, then ``finish`` (``m >= 1``)."""
    xp = array_module_of(a)
    f = a.dtype.type
    with np.errstate(invalid="ignore", over="ignore"):
        diff = xp.abs(a[:, :, None, :] - b[:, None, :, :])  # (B, r1, r2, m)
        if p == 0:
            return _sequential(xp.minimum(xp.ceil(diff), f(1)))
        if p == 1:
            return _sequential(diff)
        if math.isinf(p):
            return xp.max(xp.where(xp.isnan(diff), f(0), diff), axis=-1)  # std::max(agg, nan) keeps agg
        if p == 2:
            m = diff.shape[-1]
            grouped = m - m % _UNROLL[np.dtype(a.dtype)]
            agg = _sequential(diff[..., :grouped] ** 2) if grouped else xp.zeros(diff.shape[:-1], a.dtype)
            for col in range(grouped, m):  # at most 3 leftover columns
                agg = fma(diff[..., col], diff[..., col], agg)
            return xp.sqrt(agg)
        # std::pow(agg, 1.0 / p): the float agg promoted to double, the result rounded back.
        agg = _sequential(_pow(diff, p))
        return (agg.astype(np.float64) ** (1.0 / p)).astype(a.dtype)


def _direct_backward(grad, a, b, dist, p):
    """``run_backward_parallel_cdist``: ``grad_a[i, l] = sum_j backward(a[i, l] - b[j, l], grad[i, j],
    dist[i, j])``, the sum over ``j`` in order from 0, each column on its own (``p > 0``)."""
    xp = array_module_of(a)
    f = a.dtype.type
    diff = a[:, :, None, :] - b[:, None, :, :]  # (B, r1, r2, m)
    g = grad[..., None]
    d = dist[..., None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p == 1:
            term = g * xp.sign(diff)
        elif p == 2:
            term = xp.where(d == 0, f(0), g * diff / d)
        elif math.isinf(p):
            term = g * xp.sign(diff) * (f(1) - xp.minimum(f(1), xp.ceil(xp.abs(xp.abs(diff) - d))))
        elif p < 2:  # lttdist_calc
            term = xp.where(d == 0, f(0), xp.sign(diff) * _pow(xp.abs(diff), p - 1) * g / _pow(d, p - 1))
            term = xp.where((diff == 0) & (p < 1), f(0), term)
        else:
            term = xp.where(d == 0, f(0), diff * _pow(xp.abs(diff), p - 2) * g / _pow(d, p - 1))
    return xp.cumsum(term, axis=2, dtype=a.dtype)[:, :, -1, :]


class CdistBackwardBackward0(Node):
    """The node PyTorch gives ``_cdist_backward``'s result under ``create_graph=True``; nnref does not
    differentiate it, so going through it raises instead of treating the gradient as a constant."""

    def backward(self, *grads):
        raise NotImplementedError("nnref cannot differentiate cdist's backward (CdistBackwardBackward0): double "
                                  "backward through torch.cdist's direct path is not implemented (p = 2 with "
                                  "compute_mode='use_mm_for_euclid_dist' is differentiable twice)")


class CdistBackward0(Node):
    """``_cdist_backward`` for each input (``x2``'s by the same kernel on the transposed problem)."""

    def backward(self, grad):
        x1, x2 = self.saved_tensors
        need1, need2 = self.needs_input_grad
        g = grad._data.reshape(self.batched_result)
        dist = self.result._data.reshape(self.batched_result)
        a = _batched(x1._data, self.batch, self.xp)
        b = _batched(x2._data, self.batch, self.xp)
        out1 = out2 = None
        if self.p == 0:  # the zero "norm" is piecewise constant: PyTorch's backward fills zeros
            return (wrap(self.xp.zeros(x1.shape, x1._data.dtype), grad) if need1 else None,
                    wrap(self.xp.zeros(x2.shape, x2._data.dtype), grad) if need2 else None)
        if need1:
            out1 = wrap(_direct_backward(g, a, b, dist, self.p).reshape(self.batch + x1.shape[-2:]), grad)
        if need2:
            gt, dt = g.transpose(0, 2, 1), dist.transpose(0, 2, 1)
            out2 = wrap(_direct_backward(gt, b, a, dt, self.p).reshape(self.batch + x2.shape[-2:]), grad)
        for out, x in ((out1, x1), (out2, x2)):
            if out is not None and needs_grad(grad, x1, x2):
                out.grad_fn = CdistBackwardBackward0((grad, x1, x2))
        return out1, out2


def _batched(data, batch, xp):
    """``x.expand(batch + (r, c)).contiguous().view(-1, r, c)``."""
    return xp.ascontiguousarray(xp.broadcast_to(data, tuple(batch) + data.shape[-2:])).reshape(
        -1, *data.shape[-2:])


def _broadcast_batch(x1, x2):
    a, b = tuple(x1.shape[:-2]), tuple(x2.shape[:-2])
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for i, (s, t) in enumerate(zip(a, b)):
        if s != t and s != 1 and t != 1:
            raise RuntimeError(f"The size of tensor a ({s}) must match the size of tensor b ({t}) at "
                               f"non-singleton dimension {i}")
        out.append(t if s == 1 else s)
    return tuple(out)


def _euclidean_dist(x1, x2):
    """``_euclidean_dist``: ``sqrt(clamp_min([-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T, 0))``, its node
    ``EuclideanDistBackward0``; the forward is PyTorch's own op sequence on arrays."""
    from .linalg import matmul
    from ..core.autograd.grad_mode import no_grad
    with no_grad():
        a, b = x1.detach(), x2.detach()
        a_norm = a.pow(2).sum(-1, keepdim=True)
        b_norm = b.pow(2).sum(-1, keepdim=True)
        from .shape import cat
        left = cat([a.mul(-2), a_norm, a_norm.new_ones(a_norm.shape)], -1)
        right = cat([b, b_norm.new_ones(b_norm.shape), b_norm], -1)
        result = matmul(left, right.mT).clamp_min_(0).sqrt_()
    out = wrap(result._data, x1)
    return record(out, EuclideanDistBackward0, (x1, x2), saved=(x1, x2), result=out.detach())


class EuclideanDistBackward0(Node):
    """``_euclidean_dist_backward``: ``ratio = grad / res`` (0 where ``res`` is 0), then
    ``x1 * ratio.sum(-1) - ratio @ x2`` and ``x2 * ratio.sum(-2) - ratio^T @ x1``."""

    def backward(self, grad):
        from .linalg import matmul
        from .pointwise import where
        x1, x2 = self.saved_tensors
        res = self.result
        ratio = where(res == 0, 0.0, grad / res)
        return (x1 * ratio.sum(-1, keepdim=True) - matmul(ratio, x2),
                x2 * ratio.sum(-2).unsqueeze(-1) - matmul(ratio.mT, x1))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distances between the rows of ``x1`` (``(*, r1, m)``) and of ``x2``
    (``(*, r2, m)``), shaped ``(*, r1, r2)`` (``torch.cdist``, ``torch/functional.py`` and
    ``aten/src/ATen/native/Distance.cpp``)."""
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _MODES[compute_mode]
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
                           f"X2: {x2.shape[-1]}")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t._dtype.is_floating_point or t._dtype.is_complex:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{t._dtype._legacy_name[:-6]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    batch = _broadcast_batch(x1, x2)
    output_shape = batch + (r1, r2)
    empty = x1.numel() == 0 or x2.numel() == 0
    if not empty and p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        if math.prod(batch) == 1:
            a, b = x1, x2
        else:
            a = x1.expand(*batch, r1, c).contiguous().view(-1, r1, c)
            b = x2.expand(*batch, r2, c).contiguous().view(-1, r2, c)
        if x1._dtype != x2._dtype:  # the matmul's check
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{x1._dtype._legacy_name[:-6].lower()} != {x2._dtype._legacy_name[:-6].lower()}")
        return _euclidean_dist(a, b).view(output_shape)
    if x1._dtype != x2._dtype:
        raise RuntimeError(f"expected scalar type {x1._dtype._legacy_name[:-6]} but found "
                           f"{x2._dtype._legacy_name[:-6]}")
    if x1._dtype.numpy not in (np.float32, np.float64):
        raise NotImplementedError(f'"cdist" not implemented for \'{x1._dtype._legacy_name[:-6]}\'')
    xp = array_module_of(x1._data)
    if 0 in output_shape:
        data = xp.empty(output_shape, dtype=x1._data.dtype)
    elif c == 0:
        data = xp.zeros(output_shape, dtype=x1._data.dtype)
    else:
        data = _direct(_batched(x1._data, batch, xp), _batched(x2._data, batch, xp), float(p)).reshape(output_shape)
    out = wrap(data, x1)
    return record(out, CdistBackward0, (x1, x2), saved=(x1, x2), p=float(p), batch=batch,
                  batched_result=(-1, r1, r2), result=out.detach(), xp=xp)

"""The loss kernels ``smooth_l1_loss``, ``huber_loss`` and ``binary_cross_entropy`` with their
backward nodes (``aten/src/ATen/native/Loss.cpp``, ``loss.h``; ``derivatives.yaml``).

Elementwise numpy, reduced with ``'none'``/``'mean'``/``'sum'``.  The backward is
plain numpy, so these nodes are first-order only (a second derivative raises).
"""
import numpy as np

from ..core._device import array_module_of
from .. import _meta
from ._common import record, wrap
from ._first_order import FirstOrderBackward
from .native import _as, _opmath, _reduce, _wants

__all__ = ["smooth_l1_loss", "huber_loss", "binary_cross_entropy"]


def _upstream(grad, reduction, count, shape):
    """The gradient of each element's loss: a broadcast scalar for 'mean'/'sum'."""
    g = _opmath(grad._data)
    if reduction == "mean":
        g = g / count
    return g if reduction == "none" else array_module_of(g).broadcast_to(g, shape)


def _input_and_target_grads(node, grad, d_input):
    """(grad_input, grad_target) for losses of ``input - target`` (the target's is the negative)."""
    wants_input, wants_target = _wants(node)
    grad_input = wrap(_as(d_input, grad._data), grad) if wants_input else None
    grad_target = wrap(_as(-d_input, grad._data), grad) if wants_target else None
    return grad_input, grad_target


class SmoothL1LossBackward0(FirstOrderBackward):
    """``d / beta`` inside ``|d| < beta``, ``sign(d)`` outside, with ``d = input - target``."""

    def backward(self, grad):
        input, target = self.saved_tensors
        d = _opmath(input._data) - _opmath(target._data)
        xp = array_module_of(d)
        g = _upstream(grad, self.reduction, d.size, d.shape)
        local = xp.where(xp.abs(d) < self.beta, d / d.dtype.type(self.beta), xp.sign(d))
        return _input_and_target_grads(self, grad, g * local)


def smooth_l1_loss(input, target, reduction, beta):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``."""
    d = _opmath(input._data) - _opmath(target._data)
    xp = array_module_of(d)
    magnitude = xp.abs(d)
    beta_ = d.dtype.type(beta)
    loss = xp.where(magnitude < beta_, d.dtype.type(0.5) * d * d / beta_ if beta else d,
                    magnitude - d.dtype.type(0.5) * beta_)
    out = wrap(_as(xp.asarray(_reduce(loss, reduction)), input._data), input)
    return record(out, SmoothL1LossBackward0, (input, target), saved=(input, target),
                  reduction=reduction, beta=beta)


class HuberLossBackward0(FirstOrderBackward):
    """``d`` inside ``|d| < delta``, ``delta * sign(d)`` outside."""

    def backward(self, grad):
        input, target = self.saved_tensors
        d = _opmath(input._data) - _opmath(target._data)
        xp = array_module_of(d)
        g = _upstream(grad, self.reduction, d.size, d.shape)
        delta = d.dtype.type(self.delta)
        local = xp.where(xp.abs(d) < delta, d, delta * xp.sign(d))
        return _input_and_target_grads(self, grad, g * local)


def huber_loss(input, target, reduction, delta):
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``."""
    d = _opmath(input._data) - _opmath(target._data)
    xp = array_module_of(d)
    magnitude = xp.abs(d)
    delta_ = d.dtype.type(delta)
    loss = xp.where(magnitude < delta_, d.dtype.type(0.5) * d * d,
                    delta_ * (magnitude - d.dtype.type(0.5) * delta_))
    out = wrap(_as(xp.asarray(_reduce(loss, reduction)), input._data), input)
    return record(out, HuberLossBackward0, (input, target), saved=(input, target),
                  reduction=reduction, delta=delta)


_EPSILON = 1e-12


class BinaryCrossEntropyBackward0(FirstOrderBackward):
    """``w (x - y) / max(x (1 - x), 1e-12)`` for the input; ``w (log(1 - x) - log(x))`` for the target."""

    def backward(self, grad):
        input, target = self.saved_tensors
        x, y = _opmath(input._data), _opmath(target._data)
        xp = array_module_of(x)
        g = _upstream(grad, self.reduction, x.size, x.shape)
        if self.weight is not None:
            g = g * _opmath(self.weight._data)
        wants_input, wants_target = _wants(self)
        grad_input = grad_target = None
        if wants_input:
            grad_input = wrap(_as(g * (x - y) / xp.maximum((1 - x) * x, x.dtype.type(_EPSILON)),
                                  grad._data), grad)
        if wants_target:
            with np.errstate(divide="ignore"):
                grad_target = wrap(_as(g * (xp.log(1 - x) - xp.log(x)), grad._data), grad)
        return grad_input, grad_target


def binary_cross_entropy(input, target, weight, reduction):
    """``-w (y log x + (1 - y) log(1 - x))``, each log clamped at -100 as in PyTorch."""
    x, y = _opmath(input._data), _opmath(target._data)
    xp = array_module_of(x)
    if x.size and _meta.has_values(x) and not bool(((x >= 0) & (x <= 1)).all()):
        raise RuntimeError("all elements of input should be between 0 and 1 (pass probabilities, "
                           "e.g. torch.sigmoid(logits), or use binary_cross_entropy_with_logits on "
                           "the logits)")
    with np.errstate(divide="ignore"):
        log_x = xp.maximum(xp.log(x), x.dtype.type(-100))
        log_1mx = xp.maximum(xp.log(1 - x), x.dtype.type(-100))
    loss = -((y * log_x) + (1 - y) * log_1mx)
    if weight is not None:
        loss = loss * _opmath(weight._data)
    out = wrap(_as(xp.asarray(_reduce(loss, reduction)), input._data), input)
    return record(out, BinaryCrossEntropyBackward0, (input, target), saved=(input, target),
                  reduction=reduction, weight=weight)

"""The elementwise functions of a network: exp, log, sqrt, tanh, sigmoid and relu
(``aten/src/ATen/native/UnaryOps.cpp``, ``Activation.cpp``)."""
import numpy as np

from .. import _dtype
from .._device import array_module_of
from .._tensor import Tensor, bind
from ..autograd.graph import Node
from ._common import record

__all__ = ["exp", "log", "sqrt", "tanh", "sigmoid", "relu", "conj"]
__seams__ = ("threshold_backward",)


# Seam: relu's backward; the mirror puts a recorded op (+0 where dropped): nnref/_ops/pointwise.py
def threshold_backward(grad_output, input, threshold):
    kept = array_module_of(input._data).where(input._data > threshold, grad_output._data, 0)
    return Tensor._make(kept.astype(grad_output._data.dtype), grad_output._device)


def _unary(function, input, node_class, **saved):
    """``function`` of ``input``'s values (integers as the default float dtype), recorded."""
    data = input._data if input._dtype.is_floating_point else input._data.astype(_dtype.get_default_dtype().numpy)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # log(0) = -inf, quietly
        out = Tensor._make(function(array_module_of(data), data), input._device)
    return record(out, node_class, (input,), **saved)


class ExpBackward0(Node):
    """d exp(a) = grad * exp(a), the result."""
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * result,)


def exp(input):
    """``e ** x``.  ``import nnref`` binds ``nnref/_ops/pointwise.py:exp`` here."""
    return _unary(lambda xp, x: xp.exp(x), input, ExpBackward0, save_result=True)


class LogBackward0(Node):
    """d log(a) = grad / a."""
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad / self_,)


def log(input):
    """The natural logarithm.  ``import nnref`` binds ``nnref/_ops/pointwise.py:log`` here."""
    return _unary(lambda xp, x: xp.log(x), input, LogBackward0, saved=(input,))


class SqrtBackward0(Node):
    """d sqrt(a) = grad / (2 * sqrt(a)), from the result."""
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad / (2 * result),)


def sqrt(input):
    """The square root.  ``import nnref`` binds ``nnref/_ops/pointwise.py:sqrt`` here."""
    return _unary(lambda xp, x: xp.sqrt(x), input, SqrtBackward0, save_result=True)


class TanhBackward0(Node):
    """d tanh(a) = grad * (1 - tanh(a)**2), from the result."""
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * (1 - result * result),)


def tanh(input):
    """The hyperbolic tangent.  ``import nnref`` binds ``nnref/_ops/pointwise.py:tanh`` here."""
    return _unary(lambda xp, x: xp.tanh(x), input, TanhBackward0, save_result=True)


class SigmoidBackward0(Node):
    """d sigmoid(a) = grad * s * (1 - s), s the result."""
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * result * (1 - result),)


def sigmoid(input):
    """``1 / (1 + exp(-x))``.  ``import nnref`` binds ``nnref/_ops/pointwise.py:sigmoid`` here."""
    return _unary(lambda xp, x: (1 / (1 + xp.exp(-x))).astype(x.dtype), input, SigmoidBackward0,
                  save_result=True)


class ReluBackward0(Node):
    """d relu(a) = grad where the result is positive, 0 elsewhere."""
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (threshold_backward(grad, result, 0),)


def relu(input):
    """``max(x, 0)``.  ``import nnref`` binds ``nnref/_ops/pointwise.py:relu`` here."""
    out = Tensor._make(array_module_of(input._data).maximum(input._data, 0), input._device)  # ints stay ints
    return record(out, ReluBackward0, (input,), save_result=True)


def conj(input):
    """The complex conjugate: nnref has no complex dtypes, so every tensor is its own."""
    return input


bind(exp=exp, log=log, sqrt=sqrt, tanh=tanh, sigmoid=sigmoid, relu=relu, conj=conj)

"""``softmax`` and ``log_softmax`` along a dimension, computed stably (max subtracted first).

Mirrors ``aten/src/ATen/native/SoftMax.cpp``.
"""
import numpy as np

from .._device import array_module_of
from .._tensor import _wrap_dim
from ..autograd.graph import Node
from ._common import from_accumulator, record, wrap


def _floating_data(input, dtype, name):
    """The values to work on, in the precision to compute in (16-bit floats in float32).

    Converted to ``dtype`` if given; otherwise the input must be floating point.
    """
    if dtype is not None:
        input = input.to(dtype)
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"{name}" not implemented for \'{input._dtype._legacy_name[:-6]}\'; '
                                  "convert first, e.g. t.float(), or pass dtype=")
    return input._data.astype(input._dtype._accumulate, copy=False), input._dtype


class SoftmaxBackward0(Node):
    """d softmax = y * (grad - sum(grad * y))."""

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (result * (grad - (grad * result).sum(self.dim, keepdim=True)),)


def softmax(input, dim, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    data, result_dtype = _floating_data(input, dtype, "softmax")
    dim = _wrap_dim(dim, data.ndim)
    xp = array_module_of(data)
    with np.errstate(invalid="ignore"):  # inf - inf is nan, quietly (PyTorch)
        shifted = xp.exp(data - xp.max(data, axis=dim, keepdims=True))
        result = shifted / xp.sum(shifted, axis=dim, keepdims=True)
    out = wrap(from_accumulator(result, result_dtype), input)
    return record(out, SoftmaxBackward0, (input,), save_result=True, dim=dim)


class LogSoftmaxBackward0(Node):
    """d log_softmax = grad - exp(y) * sum(grad)."""

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad - result.exp() * grad.sum(self.dim, keepdim=True),)


def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x)`` along ``dim``: the log-probabilities cross-entropy uses."""
    data, result_dtype = _floating_data(input, dtype, "log_softmax")
    dim = _wrap_dim(dim, data.ndim)
    xp = array_module_of(data)
    with np.errstate(invalid="ignore", divide="ignore"):
        shifted = data - xp.max(data, axis=dim, keepdims=True)
        result = shifted - xp.log(xp.sum(xp.exp(shifted), axis=dim, keepdims=True))
    out = wrap(from_accumulator(result, result_dtype), input)
    return record(out, LogSoftmaxBackward0, (input,), save_result=True, dim=dim)

"""``softmax`` and ``log_softmax`` along a dimension, computed stably (max subtracted first).

Mirrors ``aten/src/ATen/native/SoftMax.cpp``.
"""
import numpy as np

from ..core._device import array_module_of
from ..core._tensor import _wrap_dim
from ..core.autograd.graph import Node
from ._common import from_accumulator, record, wrap
from ..core._ops import softmax as _core_softmax
from ..core._ops.softmax import LogSoftmaxBackward0, SoftmaxBackward0
from ..core._seams import install


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


class SoftmaxBackwardDataBackward0(Node):
    """``_softmax_backward_data`` is linear in ``grad_output``; in ``output`` it is PyTorch's
    ``softmax_double_backward`` (``torch/csrc/autograd/FunctionsManual.cpp``)."""

    def backward(self, grad):
        grad_output, output = self.saved_tensors
        wants_grad_output, wants_output = self.needs_input_grad
        dim = self.dim
        return (_softmax_backward_data(grad, output, dim) if wants_grad_output else None,
                grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad
                - grad_output * (output * grad).sum(dim, keepdim=True) if wants_output else None)


def _softmax_backward_data(grad_output, output, dim):
    """``y * (g - sum(g * y))`` along ``dim``: softmax's gradient as one recorded op."""
    g, y, dtype = _backward_operands(grad_output, output)
    data = g * y
    data -= y * data.sum(axis=dim, keepdims=True)
    out = wrap(from_accumulator(data, dtype), grad_output)
    return record(out, SoftmaxBackwardDataBackward0, (grad_output, output),
                  saved=(grad_output, output), dim=dim)


def _backward_operands(grad_output, output):
    """Both arrays in the precision to compute in (16-bit floats in float32), and the result's dtype."""
    accumulate = output._dtype._accumulate
    return (grad_output._data.astype(accumulate, copy=False), output._data.astype(accumulate, copy=False),
            output._dtype)


def softmax(input, dim, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    data, result_dtype = _floating_data(input, dtype, "softmax")
    dim = _wrap_dim(dim, data.ndim)
    xp = array_module_of(data)
    with np.errstate(invalid="ignore"):  # inf - inf is nan, quietly (PyTorch)
        shifted = xp.exp(data - data.max(axis=dim, keepdims=True))
        result = shifted / shifted.sum(axis=dim, keepdims=True)
    out = wrap(from_accumulator(result, result_dtype), input)
    return record(out, SoftmaxBackward0, (input,), save_result=True, dim=dim)


class LogSoftmaxBackwardDataBackward0(Node):
    """derivatives.yaml: for ``grad_output``, ``grad - (grad * exp(output)).sum(dim)``; for
    ``output``, ``-grad_output.sum(dim) * exp(output) * grad``."""

    def backward(self, grad):
        grad_output, output = self.saved_tensors
        wants_grad_output, wants_output = self.needs_input_grad
        dim = self.dim
        return (grad - (grad * output.exp()).sum(dim, keepdim=True) if wants_grad_output else None,
                -grad_output.sum(dim, keepdim=True) * output.exp() * grad if wants_output else None)


def _log_softmax_backward_data(grad_output, output, dim):
    """``g - exp(y) * sum(g)`` along ``dim``: log_softmax's gradient as one recorded op."""
    g, y, dtype = _backward_operands(grad_output, output)
    data = array_module_of(y).exp(y)
    data *= g.sum(axis=dim, keepdims=True)
    out = wrap(from_accumulator(g - data, dtype), grad_output)
    return record(out, LogSoftmaxBackwardDataBackward0, (grad_output, output),
                  saved=(grad_output, output), dim=dim)


# The core's SoftmaxBackward0 and LogSoftmaxBackward0 call these.
install(_core_softmax, "softmax_backward_data", _softmax_backward_data)
install(_core_softmax, "log_softmax_backward_data", _log_softmax_backward_data)


def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x)`` along ``dim``: the log-probabilities cross-entropy uses."""
    data, result_dtype = _floating_data(input, dtype, "log_softmax")
    dim = _wrap_dim(dim, data.ndim)
    xp = array_module_of(data)
    with np.errstate(invalid="ignore", divide="ignore"):
        shifted = data - data.max(axis=dim, keepdims=True)
        result = shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))
    out = wrap(from_accumulator(result, result_dtype), input)
    return record(out, LogSoftmaxBackward0, (input,), save_result=True, dim=dim)

"""``softmax`` and ``log_softmax`` along a dimension, computed stably: the maximum is subtracted
first (``aten/src/ATen/native/SoftMax.cpp``)."""
from .._device import array_module_of
from .._tensor import Tensor, _wrap_dim, bind
from ..autograd.graph import Node
from ._common import record

__all__ = ["softmax", "log_softmax"]
__seams__ = ("softmax_backward_data", "log_softmax_backward_data")


# Seams: the gradients; nnref/_ops/softmax.py puts recorded ops (for a second derivative)
def softmax_backward_data(grad_output, output, dim):
    g, y = grad_output._data, output._data
    return Tensor._make(y * (g - (g * y).sum(axis=dim, keepdims=True)), grad_output._device)


def log_softmax_backward_data(grad_output, output, dim):
    g, y = grad_output._data, output._data
    return Tensor._make(g - array_module_of(y).exp(y) * g.sum(axis=dim, keepdims=True), grad_output._device)


class SoftmaxBackward0(Node):
    """d softmax = y * (grad - sum(grad * y)) along dim, y the result."""
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (softmax_backward_data(grad, result, self.dim),)


def softmax(input, dim):
    """``exp(x) / sum(exp(x))`` along ``dim``.  ``import nnref`` binds
    ``nnref/_ops/softmax.py:softmax`` here (``dtype=``, 16-bit floats)."""
    dim, x = _wrap_dim(dim, input._data.ndim), input._data
    e = array_module_of(x).exp(x - x.max(axis=dim, keepdims=True))
    return record(Tensor._make(e / e.sum(axis=dim, keepdims=True), input._device), SoftmaxBackward0,
                  (input,), save_result=True, dim=dim)


class LogSoftmaxBackward0(Node):
    """d log_softmax = grad - exp(y) * sum(grad) along dim, y the result."""
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (log_softmax_backward_data(grad, result, self.dim),)


def log_softmax(input, dim):
    """``x - log(sum(exp(x)))`` along ``dim``.  ``import nnref`` binds ``nnref/_ops/softmax.py:log_softmax`` here."""
    dim, x, xp = _wrap_dim(dim, input._data.ndim), input._data, array_module_of(input._data)
    shifted = x - x.max(axis=dim, keepdims=True)
    out = Tensor._make(shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True)), input._device)
    return record(out, LogSoftmaxBackward0, (input,), save_result=True, dim=dim)


bind(softmax=softmax, log_softmax=log_softmax)

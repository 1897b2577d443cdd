"""``to``: copy a tensor to another dtype and/or device (``ToCopyBackward0`` converts grads back)."""
import numpy as np

from .._device import array_module, check_dtype_on_device, to_host
from .._tensor import Tensor
from ..autograd.graph import Node
from ._common import needs_grad


class ToCopyBackward0(Node):
    def backward(self, grad):
        return (grad.to(self.self_device, self.self_dtype),)


def _move(data, dev):
    if dev.type == "cpu":
        return to_host(data)
    xp = array_module(dev)
    if dev.type == "meta":
        return xp.asarray(data)  # only the shape and dtype go to meta
    with xp.cuda.Device(dev.index):
        return xp.asarray(data)


def to_copy(input, dtype, dev, contiguous=False):
    """A copy of ``input`` in ``dtype`` on ``dev`` (row-major if ``contiguous``, else in
    ``input``'s order); gradients flow back in the original dtype."""
    check_dtype_on_device(dtype, dev)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow gives inf silently, as in PyTorch
        data = _move(input._data, dev).astype(dtype.numpy, order="C" if contiguous else "K", copy=True)
    out = Tensor._make(data, dev)
    if needs_grad(input):
        if not dtype.is_floating_point:
            return out  # integer copies leave the graph, as in PyTorch
        out.grad_fn = ToCopyBackward0((input,), self_dtype=input._dtype, self_device=input._device)
    return out

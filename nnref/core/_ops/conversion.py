"""``to``: copy a tensor to another dtype and/or device (``ToCopyBackward0`` converts grads back).

Mirrors ``Tensor.to`` (``torch/csrc/autograd/python_variable_methods.cpp``) and ``_to_copy``
(``aten/src/ATen/native/TensorConversions.cpp``).
"""
import numpy as np

from .. import _dtype
from .._device import canonical_device, device as Device
from .._tensor import Tensor, bind
from ..autograd.graph import Node
from ._common import needs_grad

__seams__ = ("move",)


class ToCopyBackward0(Node):
    def backward(self, grad):
        return (grad.to(self.self_device, self.self_dtype),)


# Seam: the mirror's copies to and from 'cuda' and 'meta' (nnref/_cupy.py); a no-op on the CPU.
def move(data, dtype, dev):
    """``data`` on ``dev``, before its conversion to ``dtype``."""
    return data


def to_copy(input, dtype, dev, contiguous=False):
    """A copy of ``input`` in ``dtype`` on ``dev`` (row-major if ``contiguous``, else in
    ``input``'s order); gradients flow back in the original dtype."""
    with np.errstate(over="ignore", invalid="ignore"):  # overflow gives inf silently, as in PyTorch
        data = move(input._data, dtype, dev).astype(dtype.numpy, order="C" if contiguous else "K", copy=True)
    out = Tensor._make(data, dev)
    if needs_grad(input):
        if not dtype.is_floating_point:
            return out  # integer copies leave the graph, as in PyTorch
        out.grad_fn = ToCopyBackward0((input,), self_dtype=input._dtype, self_device=input._device)
    return out


def to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``: a copy only when needed
    (``torch/csrc/autograd/python_variable_methods.cpp``); the mirror adds the other forms."""
    dtype, dev, copy = _parse_to(self, args, kwargs)
    if dtype is self._dtype and dev == self._device and not copy:
        return self
    return to_copy(self, dtype, dev)


def _parse_to(tensor, args, kwargs):
    """Sort ``to``'s arguments into (dtype, device, copy), as ``torch._C._nn._parse_to`` does."""
    dtype, dev = kwargs.pop("dtype", None), kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for arg in args:
        if isinstance(arg, _dtype.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            dtype, dev = arg._dtype, arg._device
        elif isinstance(arg, (str, Device)):
            dev = arg
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {arg!r}; expected "
                            "a dtype, a device (or 'cpu'/'cuda' string) or a Tensor")
    dev = tensor._device if dev is None else canonical_device(dev)
    return (dtype or tensor._dtype), dev, copy


bind(to=to)

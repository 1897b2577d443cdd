"""``to``: copy a tensor to another dtype and/or device (``ToCopyBackward0`` converts grads back).

Mirrors ``Tensor.to`` (``torch/csrc/autograd/python_variable_methods.cpp``) and ``_to_copy``
(``aten/src/ATen/native/TensorConversions.cpp``).
"""
import builtins
import numbers

import numpy as np

from .. import _dtype
from .._device import array_module, canonical_device, check_dtype_on_device, device as Device, to_host
from .._layout import check_memory_format, contiguous_format
from .._tensor import Tensor, bind
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


def to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``: a copy only when needed
    (or when ``memory_format=torch.contiguous_format`` asks for a row-major one): ``Tensor.to``
    of ``torch/csrc/autograd/python_variable_methods.cpp``."""
    contiguous = check_memory_format("to", kwargs.pop("memory_format", None)) is contiguous_format
    dtype, dev, copy = _parse_to(self, args, kwargs)
    if contiguous and not self._data.flags.c_contiguous:
        copy = True
    if dtype is self._dtype and dev == self._device and not copy:
        return self
    return to_copy(self, dtype, dev, contiguous)


_PYTHON_DTYPES = (builtins.float, builtins.int, builtins.bool, builtins.complex)


def _parse_to(tensor, args, kwargs):
    """Sort ``to``'s arguments into (dtype, device, copy), as ``torch._C._nn._parse_to`` does."""
    dtype, dev = kwargs.pop("dtype", None), kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    dtype = _dtype.as_dtype(dtype)
    for arg in args:
        if isinstance(arg, _dtype.dtype) or (isinstance(arg, type) and arg in _PYTHON_DTYPES):
            dtype = _dtype.as_dtype(arg)
        elif isinstance(arg, Tensor):
            dtype, dev = arg._dtype, arg._device
        elif isinstance(arg, (str, Device, numbers.Integral)) and not isinstance(arg, builtins.bool):
            dev = arg
        elif isinstance(arg, builtins.bool):
            continue  # non_blocking / copy passed positionally
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {arg!r}; expected "
                            "a dtype, a device (or 'cpu'/'cuda' string) or a Tensor")
    dev = tensor._device if dev is None else canonical_device(dev)
    return (dtype or tensor._dtype), dev, copy


bind(to=to)

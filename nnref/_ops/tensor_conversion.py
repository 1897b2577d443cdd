"""Tensor methods that convert to one dtype or device, beyond the teaching core's ``to`` and plain
``float`` (``nnref/core/_tensor.py``, ``nnref/core/_ops/conversion.py``): ``float`` with
``memory_format=``, ``half``, ``double``, ``bfloat16``, ``long``, ``int``, ``bool``, ``cpu``
and ``cuda``, each ``self.to(...)``.  Bound onto
the core's ``Tensor`` with ``bind``; here, in ``nnref._ops``, so that the profiler records them
as ops (``aten::long``), as it did when they were written in the class.
"""
import numbers

from ..core import _dtype
from ..core._device import CPU, device as Device
from ..core._tensor import bind

__all__ = []


def float(self, *, memory_format=None):
    """``self.to(nnref.float32)`` (``torch.Tensor.float``,
    ``torch/csrc/autograd/python_variable_methods.cpp``)."""
    return self.to(_dtype.float32, memory_format=memory_format)


def double(self, *, memory_format=None):
    """``self.to(nnref.float64)`` (``torch.Tensor.double``,
    ``torch/csrc/autograd/python_variable_methods.cpp``)."""
    return self.to(_dtype.float64, memory_format=memory_format)


def half(self, *, memory_format=None):
    """``self.to(nnref.float16)`` (``torch.Tensor.half``,
    ``torch/csrc/autograd/python_variable_methods.cpp``)."""
    return self.to(_dtype.float16, memory_format=memory_format)


def bfloat16(self, *, memory_format=None):
    """``self.to(nnref.bfloat16)`` (``torch.Tensor.bfloat16``,
    ``torch/csrc/autograd/python_variable_methods.cpp``)."""
    return self.to(_dtype.bfloat16, memory_format=memory_format)


def long(self, *, memory_format=None):
    """``self.to(nnref.int64)`` (``torch.Tensor.long``,
    ``torch/csrc/autograd/python_variable_methods.cpp``)."""
    return self.to(_dtype.int64, memory_format=memory_format)


def int(self, *, memory_format=None):
    """``self.to(nnref.int32)`` (``torch.Tensor.int``,
    ``torch/csrc/autograd/python_variable_methods.cpp``)."""
    return self.to(_dtype.int32, memory_format=memory_format)


def bool(self, *, memory_format=None):
    """``self.to(nnref.bool)`` (``torch.Tensor.bool``,
    ``torch/csrc/autograd/python_variable_methods.cpp``)."""
    return self.to(_dtype.bool, memory_format=memory_format)


def cpu(self):
    """This tensor on the CPU (itself if already there): ``torch.Tensor.cpu`` of
    ``torch/csrc/autograd/python_variable_methods.cpp``."""
    return self.to(CPU)


def cuda(self, device=None, non_blocking=False):
    """This tensor on a ``cuda`` device (``device``: an index or a device, default the
    current one); ``torch.Tensor.cuda`` of
    ``torch/csrc/autograd/python_variable_methods.cpp``."""
    return self.to(Device("cuda", device) if isinstance(device, numbers.Integral)
                   else device or "cuda")


bind(float=float, double=double, half=half, bfloat16=bfloat16, long=long, int=int, bool=bool, cpu=cpu,
     cuda=cuda)

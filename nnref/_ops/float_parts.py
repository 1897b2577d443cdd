"""A float's mantissa and exponent: ``frexp`` splits, ``ldexp`` joins.

Mirrors ``aten/src/ATen/native/UnaryOps.cpp`` (``frexp``) and ``BinaryOps.cpp`` (``ldexp``,
``input * 2 ** other``); gradients from ``tools/autograd/derivatives.yaml``, written with nnref ops.
"""
import math
from collections import namedtuple

import numpy as np

from ..core import _dtype
from ..core._device import array_module
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import broadcast_error, check_same_device, needs_grad, operand_data, record, result_type, wrap

__all__ = ["frexp", "ldexp"]

_frexp = namedtuple("frexp", ["mantissa", "exponent"])
_frexp.__repr__ = lambda self: (f"torch.return_types.frexp(\nmantissa={self.mantissa!r},\n"
                                f"exponent={self.exponent!r})")


class FrexpBackward0(Node):
    def backward(self, grad):
        return (grad / self.exponent.to(grad.dtype).exp2(),)


def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent`` and ``|mantissa|`` in
    ``[0.5, 1)`` (``exponent`` int32) (``torch.frexp``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    if not input._dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    xp = array_module(input._device)
    with np.errstate(invalid="ignore"):
        mantissa, exponent = xp.frexp(input._data)
    mantissa, exponent = wrap(mantissa, input), wrap(exponent.astype(np.int32), input)
    if needs_grad(input):
        mantissa.grad_fn = FrexpBackward0((input,), exponent=exponent)
    return _frexp(mantissa, exponent)


class LdexpBackward0(Node):
    def backward(self, grad):
        self_, other = self.saved_tensors
        wants_self, wants_other = self.needs_input_grad
        scale = other.to(grad.dtype).exp2()
        return (grad * scale if wants_self else None,
                grad * self_ * math.log(2.0) * scale if wants_other else None)


def ldexp(input, other):
    """``input * 2 ** other`` (integers give the default float dtype) (``torch.ldexp``,
    ``aten/src/ATen/native/BinaryOps.cpp``)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"ldexp(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    check_same_device(input, other)
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        dtype = _dtype.get_default_dtype()
    xp = array_module(input._device)
    a, b = operand_data(input, dtype), operand_data(other, dtype)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            data = a * xp.power(dtype.numpy.type(2), b)
    except ValueError:
        raise broadcast_error(a, b) from None
    out = wrap(xp.asarray(data, dtype=dtype.numpy), input)
    return record(out, LdexpBackward0, (input, other), saved=(input, other))

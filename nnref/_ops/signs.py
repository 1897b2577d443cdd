"""Signs: ``sgn``, ``signbit``, ``copysign`` and ``heaviside``.

Mirrors ``aten/src/ATen/native/UnaryOps.cpp`` (``sgn``, ``signbit``) and ``BinaryOps.cpp``
(``copysign``, ``heaviside``); the gradients are those of ``tools/autograd/derivatives.yaml``:
``sgn`` is flat (for real tensors), ``copysign``'s flows to ``input`` only, and PyTorch defines
none for ``heaviside`` (its result's ``grad_fn`` is ``NotImplemented``, as here).
"""
import numpy as np

from ..core import _dtype
from ..core._device import array_module
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import NotImplemented  # noqa: A004 - PyTorch's name
from ._common import (broadcast_error, check_same_device, needs_grad, operand_data, record,
                      result_type, wrap)
from .pointwise import ZeroGradient, sign_data

__all__ = ["sgn", "signbit", "copysign", "heaviside"]


class SgnBackward0(ZeroGradient):
    pass


def sgn(input):
    """The sign of each element, -1, 0 or 1 (for real tensors, ``sign``); its gradient is zero
    (``torch.sgn``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return record(wrap(sign_data(input._data), input), SgnBackward0, (input,))


def signbit(input):
    """True where the sign bit is set: negative numbers, ``-0.0`` and ``-nan`` (``torch.signbit``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    xp = array_module(input._device)
    if input._dtype is _dtype.bool:
        return wrap(xp.zeros(input._data.shape, dtype=bool), input)
    return wrap(xp.signbit(input._data), input)


class CopysignBackward0(Node):
    """``other`` a tensor: ``grad * result / input`` (0 where ``input`` is 0); ``other`` gets zeros."""

    def backward(self, grad):
        self_, result = self.saved_tensors
        from .._creation import zeros_like
        ratio = (result / self_).masked_fill(self_ == 0, 0.0)
        return grad * ratio, zeros_like(grad)


class CopysignBackward1(Node):
    """``other`` a number."""

    def backward(self, grad):
        self_, result = self.saved_tensors
        return (grad * (result / self_).masked_fill(self_ == 0, 0.0),)


def copysign(input, other):
    """``|input|`` with the sign (bit) of ``other``; integers give the default float dtype
    (``torch.copysign``, ``aten/src/ATen/native/BinaryOps.cpp``)."""
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        dtype = _dtype.get_default_dtype()
    xp = array_module(input._device)
    a, b = operand_data(input, dtype), operand_data(other, dtype)
    if isinstance(other, Tensor):
        check_same_device(input, other)
    try:
        out = wrap(xp.copysign(a, b), input)
    except ValueError:
        raise broadcast_error(a, b) from None
    if isinstance(other, Tensor):
        return record(out, CopysignBackward0, (input, other), saved=(input,), save_result=True)
    return record(out, CopysignBackward1, (input,), saved=(input,), save_result=True)


def heaviside(input, values):
    """The step function: 0 below zero, 1 above, ``values`` at zero; both tensors of one dtype.
    PyTorch defines no derivative (``torch.heaviside``, ``aten/src/ATen/native/BinaryOps.cpp``)."""
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    if input._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    check_same_device(input, values)
    xp = array_module(input._device)
    a, b = input._data, operand_data(values, input._dtype)
    try:
        with np.errstate(invalid="ignore"):
            data = xp.where(a == 0, b, (a > 0).astype(a.dtype))
    except ValueError:
        raise broadcast_error(a, b) from None
    out = wrap(xp.asarray(data, dtype=a.dtype), input)
    if needs_grad(input, values):
        out.grad_fn = NotImplemented("heaviside", (input, values))
    return out

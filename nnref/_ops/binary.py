"""More binary ops of ``aten/src/ATen/native/BinaryOps.cpp``: ``fmod``, ``fmax``, ``fmin``,
``float_power`` (``Pow.cpp``), ``gcd`` and ``lcm``.

``fmod`` is C's remainder (the sign of the dividend), beside ``remainder`` (Python's ``%``);
``fmax``/``fmin`` ignore a NaN where the other operand is a number; ``float_power`` is ``pow``
in float64, built as PyTorch builds it (``to(float64)`` then ``pow``, so its nodes are
``PowBackward*`` after ``ToCopyBackward0``).  Gradients as in ``tools/autograd/derivatives.yaml``.
"""

from ..core import _dtype
from ..core._device import array_module
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import broadcast_error, check_same_device, operand_data, record, result_type, wrap
from .arithmetic import _binary, _integer_division_dtype, _like, div, pow

__all__ = ["fmod", "fmax", "fmin", "float_power", "gcd", "lcm"]


class FmodBackward0(Node):
    """``other`` a number: d fmod(a, c) / da = 1."""

    def backward(self, grad):
        return (grad,)


class FmodBackward1(Node):
    """``fmod(a, b) = a - b * trunc(a / b)``: ``(grad, -grad * trunc(a / b))``."""

    def backward(self, grad):
        self_, other = self.saved_tensors
        wants_other = self.needs_input_grad[1]
        return grad, (-grad * div(self_, other, rounding_mode="trunc") if wants_other else None)


def fmod(input, other):
    """C's ``fmod``: the remainder of ``input / other`` with the sign of ``input`` (``torch.fmod``,
    ``aten/src/ATen/native/BinaryOps.cpp``)."""
    dtype = _integer_division_dtype("fmod", input, other)
    out = wrap(_binary("fmod", input, other, dtype, quiet=True), _like(input, other))
    if isinstance(other, Tensor):
        return record(out, FmodBackward1, (input, other), saved=(input, other))
    return record(out, FmodBackward0, (input,))


class FmaxBackward0(Node):
    """The gradient goes to ``input`` where it won (ties included) or ``other`` is NaN."""

    def backward(self, grad):
        self_, other = self.saved_tensors
        to_self = (self_ >= other) | (other != other)
        return grad.masked_fill(~to_self, 0.0), grad.masked_fill(to_self, 0.0)


class FminBackward0(Node):
    def backward(self, grad):
        self_, other = self.saved_tensors
        to_self = (self_ <= other) | (other != other)
        return grad.masked_fill(~to_self, 0.0), grad.masked_fill(to_self, 0.0)


def _nan_ignoring(name, node_class, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    check_same_device(input, other)
    dtype = result_type(input, other)
    a, b = operand_data(input, dtype), operand_data(other, dtype)
    try:
        out = wrap(getattr(array_module(input._device), name)(a, b), input)
    except ValueError:
        raise broadcast_error(a, b) from None
    return record(out, node_class, (input, other), saved=(input, other))


def fmax(input, other):
    """The elementwise maximum, where a NaN loses to a number (``maximum`` propagates it)
    (``torch.fmax``, ``aten/src/ATen/native/BinaryOps.cpp``)."""
    return _nan_ignoring("fmax", FmaxBackward0, input, other)


def fmin(input, other):
    """The elementwise minimum, where a NaN loses to a number (``minimum`` propagates it)
    (``torch.fmin``, ``aten/src/ATen/native/BinaryOps.cpp``)."""
    return _nan_ignoring("fmin", FminBackward0, input, other)


def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (``torch.float_power``,
    ``aten/src/ATen/native/Pow.cpp``)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): at least one of 'input' and 'exponent' must be a Tensor")
    base = input.to(_dtype.float64) if isinstance(input, Tensor) else float(input)
    power = exponent.to(_dtype.float64) if isinstance(exponent, Tensor) else float(exponent)
    return pow(base, power)


def float_power_(self, exponent):
    """``float_power`` in place: only a float64 tensor can hold its result
    (``torch.Tensor.float_power_``, ``aten/src/ATen/native/Pow.cpp``)."""
    if self._dtype is not _dtype.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self._dtype._legacy_name[:-6]} but "
                           "the operation's result requires dtype Double")
    from .inplace import apply_inplace
    return apply_inplace(self, float_power, exponent)




def _integers_only(name, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    dtype = result_type(input, other)
    if dtype.is_floating_point or dtype is _dtype.bool:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dtype._legacy_name[:-6]}\'')
    return dtype


def gcd(input, other):
    """The greatest common divisor, elementwise, of integer tensors (``gcd(0, 0) = 0``)
    (``torch.gcd``, ``aten/src/ATen/native/BinaryOps.cpp``)."""
    dtype = _integers_only("gcd", input, other)
    return wrap(_binary("gcd", input, other, dtype), _like(input, other))


def lcm(input, other):
    """The least common multiple, elementwise, of integer tensors (``torch.lcm``,
    ``aten/src/ATen/native/BinaryOps.cpp``)."""
    dtype = _integers_only("lcm", input, other)
    return wrap(_binary("lcm", input, other, dtype), _like(input, other))

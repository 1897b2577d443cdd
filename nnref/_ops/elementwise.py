"""More elementwise math (``log1p``, ``expm1``, ``rsqrt``, ``tan``, ``asin``, ``floor``, ``erf``, ...),
each forward next to its backward.

Mirrors the unary ops of ``aten/src/ATen/native/UnaryOps.cpp``; the gradients are the
formulas of ``tools/autograd/derivatives.yaml``, written with differentiable tensor ops so
that they differentiate again (``create_graph=True``).  Integer inputs become the default
float dtype, as in PyTorch, except for ``floor``/``ceil``/``trunc``, which copy them.
"""
import functools
import math

import numpy as np

from .._type_info import checked_scalar
from ..core._device import array_module, array_module_of
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import check_same_device, operand_data, record, result_type, special_function, wrap
from .arithmetic import pow
from .pointwise import ZeroGradient, _unary, clip_floats, exp, masked_grad, refuse_bool_bounds


class Log1PBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad / (self_ + 1),)


def log1p(input):
    """``log(1 + x)``, accurate for small ``x``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _unary(array_module(input._device).log1p, Log1PBackward0, input, save_input=True)


class Expm1Backward0(Node):
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * (result + 1),)


def expm1(input):
    """``exp(x) - 1``, accurate for small ``x``."""
    with np.errstate(over="ignore"):
        return _unary(array_module(input._device).expm1, Expm1Backward0, input, save_result=True)


class Log2Backward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad / (self_ * math.log(2.0)),)


def log2(input):
    """The base-2 logarithm."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _unary(array_module(input._device).log2, Log2Backward0, input, save_input=True)


class Log10Backward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad / (self_ * math.log(10.0)),)


def log10(input):
    """The base-10 logarithm."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _unary(array_module(input._device).log10, Log10Backward0, input, save_input=True)


class RsqrtBackward0(Node):
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (-0.5 * grad * result.pow(3),)


def _rsqrt(x):
    xp = array_module_of(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.reciprocal(xp.sqrt(x))


def rsqrt(input):
    """``1 / sqrt(x)``."""
    return _unary(_rsqrt, RsqrtBackward0, input, save_result=True)


def square(input):
    """``x ** 2``: PyTorch implements it as ``pow(x, 2)``, so its node is ``PowBackward0``."""
    return pow(input, 2)


class TanBackward0(Node):
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * (1 + result.pow(2)),)


def tan(input):
    """The tangent (radians)."""
    return _unary(array_module(input._device).tan, TanBackward0, input, save_result=True)


class SinhBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * cosh(self_),)


def sinh(input):
    """The hyperbolic sine."""
    with np.errstate(over="ignore"):
        return _unary(array_module(input._device).sinh, SinhBackward0, input, save_input=True)


class CoshBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * sinh(self_),)


def cosh(input):
    """The hyperbolic cosine."""
    with np.errstate(over="ignore"):
        return _unary(array_module(input._device).cosh, CoshBackward0, input, save_input=True)


class AsinBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * rsqrt(1 - self_ * self_),)


def asin(input):
    """The inverse sine (``arcsin``); NaN outside [-1, 1]."""
    with np.errstate(invalid="ignore"):
        return _unary(array_module(input._device).arcsin, AsinBackward0, input, save_input=True)


class AcosBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (-grad * rsqrt(1 - self_ * self_),)


def acos(input):
    """The inverse cosine (``arccos``); NaN outside [-1, 1]."""
    with np.errstate(invalid="ignore"):
        return _unary(array_module(input._device).arccos, AcosBackward0, input, save_input=True)


class AtanBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad / (self_ * self_ + 1),)


def atan(input):
    """The inverse tangent (``arctan``)."""
    return _unary(array_module(input._device).arctan, AtanBackward0, input, save_input=True)


class ErfBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * (2.0 / math.sqrt(math.pi)) * exp(-(self_ * self_)),)


def erf(input):
    """The error function, ``2 / sqrt(pi)`` times the integral of ``exp(-t**2)`` from 0 to ``x``."""
    return _unary(functools.partial(special_function, "erf"), ErfBackward0, input, save_input=True)


class AcoshBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * rsqrt(self_ * self_ - 1),)


def acosh(input):
    """The inverse hyperbolic cosine (``arccosh``); NaN below 1 (``torch.acosh``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    with np.errstate(invalid="ignore"):
        return _unary(array_module(input._device).arccosh, AcoshBackward0, input, save_input=True)


class AsinhBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * rsqrt(self_ * self_ + 1),)


def asinh(input):
    """The inverse hyperbolic sine (``arcsinh``) (``torch.asinh``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _unary(array_module(input._device).arcsinh, AsinhBackward0, input, save_input=True)


class AtanhBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad / (1 - self_ * self_),)


def atanh(input):
    """The inverse hyperbolic tangent (``arctanh``); ``±inf`` at ``±1``, NaN beyond (``torch.atanh``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _unary(array_module(input._device).arctanh, AtanhBackward0, input, save_input=True)


def _scale(x, factor):
    """``x * factor``; 16-bit floats multiply in float32 and round once, as PyTorch's opmath does."""
    if x.dtype.itemsize == 2:
        return (x.astype(np.float32) * np.float32(factor)).astype(x.dtype)
    return x * x.dtype.type(factor)


class Deg2RadBackward0(Node):
    def backward(self, grad):
        return (grad * (math.pi / 180),)


def deg2rad(input):
    """Degrees to radians, ``x * pi / 180`` (``torch.deg2rad``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _unary(lambda x: _scale(x, math.pi / 180), Deg2RadBackward0, input)


class Rad2DegBackward0(Node):
    def backward(self, grad):
        return (grad * (180 / math.pi),)


def rad2deg(input):
    """Radians to degrees, ``x * 180 / pi`` (``torch.rad2deg``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _unary(lambda x: _scale(x, 180 / math.pi), Rad2DegBackward0, input)


# -- rounding towards an integer: flat almost everywhere --------------------------------------------
class FloorBackward0(ZeroGradient):
    pass


class CeilBackward0(ZeroGradient):
    pass


class TruncBackward0(ZeroGradient):
    pass


def _rounding(name, node_class, input):
    if input._dtype.name == "bool":
        raise NotImplementedError(f'"{name}_vml_cpu" not implemented for \'Bool\'')
    xp = array_module(input._device)
    if not input._dtype.is_floating_point:
        return wrap(input._data.copy(), input)  # integers are their own floor (a copy, as PyTorch)
    out = wrap(getattr(xp, name)(input._data), input)
    return record(out, node_class, (input,))


def floor(input):
    """The largest integer not above ``x``; integer tensors are copied."""
    return _rounding("floor", FloorBackward0, input)


def ceil(input):
    """The smallest integer not below ``x``; integer tensors are copied."""
    return _rounding("ceil", CeilBackward0, input)


def trunc(input):
    """Round towards zero (``fix`` is the same)."""
    return _rounding("trunc", TruncBackward0, input)


class FracBackward0(Node):
    def backward(self, grad):
        return (grad,)


def frac(input):
    """``x - trunc(x)``: the fractional part, with the sign of ``x``."""
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"frac_cpu" not implemented for \'{input._dtype._legacy_name[:-6]}\'')
    xp = array_module(input._device)
    return _unary(lambda x: x - xp.trunc(x), FracBackward0, input)


# -- one-sided clamps: their own ops in PyTorch, with their own nodes ------------------------------
class ClampMinBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (masked_grad(grad, self_._data >= self.bound),)


class ClampMinBackward1(Node):
    def backward(self, grad):
        self_, bound = self.saved_tensors
        return (masked_grad(grad, self_._data >= bound._data).sum_to_size(self_.shape),
                masked_grad(grad, self_._data < bound._data).sum_to_size(bound.shape))


class ClampMaxBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (masked_grad(grad, self_._data <= self.bound),)


class ClampMaxBackward1(Node):
    def backward(self, grad):
        self_, bound = self.saved_tensors
        return (masked_grad(grad, self_._data <= bound._data).sum_to_size(self_.shape),
                masked_grad(grad, self_._data > bound._data).sum_to_size(bound.shape))


def _one_sided(input, bound, pick, nodes):
    xp = array_module(input._device)
    dtype = result_type(input, bound)  # an int tensor and a float bound give floats, as clamp does
    data = operand_data(input, dtype)
    if isinstance(bound, Tensor):
        check_same_device(input, bound)
        out = wrap(getattr(xp, pick)(data, operand_data(bound, dtype)), input)
        return record(out, nodes[1], (input, bound), saved=(input, bound))
    refuse_bool_bounds(dtype, "clamp_min" if pick == "maximum" else "clamp_max")
    bound_value = checked_scalar(bound, dtype)
    if dtype.is_floating_point:
        data = clip_floats(data, *((bound_value, None) if pick == "maximum" else (None, bound_value)))
    else:
        data = getattr(xp, pick)(data, bound_value)
    out = wrap(data, input)
    return record(out, nodes[0], (input,), saved=(input,), bound=bound)


def clamp_min(input, min):
    """``max(x, min)`` elementwise: ``clamp`` with a lower bound only (a number or a tensor)."""
    return _one_sided(input, min, "maximum", (ClampMinBackward0, ClampMinBackward1))


def clamp_max(input, max):
    """``min(x, max)`` elementwise: ``clamp`` with an upper bound only (a number or a tensor)."""
    return _one_sided(input, max, "minimum", (ClampMaxBackward0, ClampMaxBackward1))


__all__ = ["clamp_min", "clamp_max", "log1p", "expm1", "log2", "log10", "rsqrt", "square", "tan", "sinh", "cosh", "asin", "acos",
           "atan", "erf", "floor", "ceil", "trunc", "frac", "acosh", "asinh", "atanh", "deg2rad", "rad2deg"]

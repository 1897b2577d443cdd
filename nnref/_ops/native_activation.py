"""The activation kernels behind ``F.gelu``, ``leaky_relu``, ``silu``, ``elu``, ``softplus`` and
``hardtanh``, each with its backward node.

Mirrors ``aten/src/ATen/native/Activation.cpp`` and the CPU kernels of
``native/cpu/Activation.cpp``; the gradient formulas are those of
``tools/autograd/derivatives.yaml`` (``gelu_backward``, ``leaky_relu_backward``, ...).
Forward and backward are one vectorised numpy expression each, computed in float32
for 16-bit floats as PyTorch's CPU kernels do.  The backward passes are plain numpy,
so these nodes are first-order only: ``create_graph=True`` through them raises
(PyTorch supports it) instead of silently dropping the second-derivative term.
"""
import math

import numpy as np

from .._device import array_module_of
from ._common import float_input, record, special_function, wrap
from ._first_order import FirstOrderBackward
from .native import _as, _opmath

__all__ = ["gelu", "leaky_relu", "silu", "elu", "softplus", "hardtanh"]


def _float_input(name, input):
    return _opmath(float_input(name, input))


def _erf(x):
    """The error function: GELU's exact form needs it (see :func:`special_function`)."""
    return special_function("erf", x)


def _unary(input, data, node_class, **attributes):
    """Wrap ``data`` as the op's output and record ``node_class`` (which saves the input).

    ``attributes`` may hold arrays the forward pass computed anyway (a CDF, an
    exponential) so that the backward pass does not compute them again.
    """
    return record(wrap(_as(data, input._data), input), node_class, (input,), saved=(input,),
                  **attributes)


# --------------------------------------------------------------------------------------------
# GELU: x * Phi(x), exactly (erf) or with the tanh approximation
# --------------------------------------------------------------------------------------------

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_KAPPA = 0.044715


class GeluBackward0(FirstOrderBackward):
    """d gelu = Phi(x) + x * phi(x)  (exact), or the derivative of the tanh formula."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x, g = _opmath(self_._data), _opmath(grad._data)
        xp = array_module_of(x)
        dtype = x.dtype.type
        square = x * x
        if self.approximate == "tanh":
            t = self.intermediate
            # 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 kappa x^2)
            d_inner = xp.multiply(square, dtype(3 * _KAPPA * _SQRT_2_OVER_PI), out=square)
            d_inner += dtype(_SQRT_2_OVER_PI)
            derivative = t * t
            xp.subtract(1, derivative, out=derivative)
            derivative *= x
            derivative *= d_inner
            derivative += t
            derivative += 1
            derivative *= dtype(0.5)
        else:
            # Phi(x) (saved by the forward pass) + x phi(x)
            pdf = xp.multiply(square, dtype(-0.5), out=square)
            xp.exp(pdf, out=pdf)
            pdf *= x
            pdf *= dtype(1 / math.sqrt(2 * math.pi))
            derivative = xp.add(pdf, self.intermediate, out=pdf)
        derivative *= g
        return (wrap(_as(derivative, grad._data), grad),)


def gelu(input, approximate="none"):
    """``x * Phi(x)``, Phi the standard normal CDF; ``approximate='tanh'`` uses
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh. (Got "
                           f"approximate={approximate!r}.)")
    x = _float_input("GeluKernelImpl", input)
    xp = array_module_of(x)
    dtype = x.dtype.type
    if approximate == "tanh":
        inner = x * x
        inner *= dtype(_KAPPA)
        inner *= x
        inner += x
        inner *= dtype(_SQRT_2_OVER_PI)
        saved = xp.tanh(inner, out=inner)  # t, for the backward pass
        data = saved + 1
    else:
        saved = _erf(x * dtype(math.sqrt(0.5)))
        saved += 1
        saved *= dtype(0.5)  # Phi(x), for the backward pass
        data = saved.copy()
    data *= x
    if approximate == "tanh":
        data *= dtype(0.5)
    return _unary(input, data, GeluBackward0, approximate=approximate, intermediate=saved)


# --------------------------------------------------------------------------------------------
# Piecewise-linear and exponential units
# --------------------------------------------------------------------------------------------

class LeakyReluBackward0(FirstOrderBackward):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        xp = array_module_of(grad._data)
        g = _opmath(grad._data)
        slope = g.dtype.type(self.negative_slope)
        local = (self_._data > 0).astype(g.dtype)  # 1 where positive, then slope elsewhere
        local *= 1 - slope
        local += slope
        local *= g
        return (wrap(_as(local, grad._data), grad),)


class LeakyReluBackward1(LeakyReluBackward0):
    """The node of the in-place form (``F.leaky_relu(x, inplace=True)``)."""


def leaky_relu(input, negative_slope=0.01):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    x = _float_input("leaky_relu_cpu", input)
    xp = array_module_of(x)
    slope = x.dtype.type(negative_slope)
    scaled = x * slope
    if 0 <= negative_slope <= 1:  # then max(x, slope x) is x where positive, slope x elsewhere
        data = xp.maximum(x, scaled, out=scaled)
    else:
        data = xp.where(x > 0, x, scaled)
    return _unary(input, data, LeakyReluBackward0, negative_slope=negative_slope)


class SiluBackward0(FirstOrderBackward):
    """d silu = s (1 + x (1 - s)), s = sigmoid(x)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x, s = _opmath(self_._data), self.sigmoid
        xp = array_module_of(x)
        result = xp.subtract(1, s)
        result *= x
        result += 1
        result *= s
        result *= _opmath(grad._data)
        return (wrap(_as(result, grad._data), grad),)


def silu(input, inplace=False):
    """``x * sigmoid(x)`` (the swish function)."""
    x = _float_input("silu_cpu", input)
    xp = array_module_of(x)
    with np.errstate(over="ignore"):  # exp(-x) overflows to inf for very negative x: silu is -0
        sigmoid = xp.negative(x)
        xp.exp(sigmoid, out=sigmoid)
        sigmoid += 1
        xp.divide(1, sigmoid, out=sigmoid)
    return _unary(input, x * sigmoid, SiluBackward0, sigmoid=sigmoid)


class EluBackward0(FirstOrderBackward):
    """``grad * scale`` where x > 0, else ``grad * input_scale * scale * alpha * exp(x * input_scale)``,
    which is ``grad * input_scale * (result + scale * alpha)``: no exponential to compute again."""

    def backward(self, grad):
        self_, result = self.saved_tensors
        x, y, g = _opmath(self_._data), _opmath(result._data), _opmath(grad._data)
        xp = array_module_of(x)
        dtype = x.dtype.type
        local = y + dtype(self.scale * self.alpha)  # right where x <= 0; replaced elsewhere
        local *= dtype(self.input_scale)
        xp.copyto(local, dtype(self.scale), where=x > 0)
        local *= g
        return (wrap(_as(local, grad._data), grad),)


class EluBackward1(EluBackward0):
    """The node of the in-place form (``F.elu(x, inplace=True)``)."""


def elu(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """``scale * x`` where positive, ``scale * alpha * (exp(x * input_scale) - 1)`` elsewhere."""
    x = _float_input("elu_cpu", input)
    xp = array_module_of(x)
    dtype = x.dtype.type
    # scale * alpha * expm1(min(x, 0) * input_scale) is 0 where x > 0, and scale * max(x, 0)
    # is 0 elsewhere: their sum is ELU without a select.
    data = xp.minimum(x, 0)
    data *= dtype(input_scale)
    xp.expm1(data, out=data)
    data *= dtype(scale * alpha)
    positive = xp.maximum(x, 0)
    positive *= dtype(scale)
    data += positive
    out = wrap(_as(data, input._data), input)
    return record(out, EluBackward0, (input,), saved=(input,), save_result=True, alpha=alpha,
                  scale=scale, input_scale=input_scale)


class SoftplusBackward0(FirstOrderBackward):
    """``grad * sigmoid(beta x)``, and ``grad`` where ``beta x > threshold`` (linear there)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x, g = _opmath(self_._data), _opmath(grad._data)
        xp = array_module_of(x)
        z, smooth = self.exp, self.smooth
        local = z + 1
        xp.divide(z, local, out=local)  # sigmoid(beta x)
        local[~smooth] = 1
        local *= g
        return (wrap(_as(local, grad._data), grad),)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    x = _float_input("softplus_cpu", input)
    xp = array_module_of(x)
    dtype = x.dtype.type
    scaled = x * dtype(beta)
    smooth = ~(scaled > threshold)  # NaN stays on the smooth side, as in PyTorch
    z = xp.exp(xp.minimum(scaled, dtype(threshold)))  # exp(beta x), kept for the backward pass
    data = x.copy()
    soft = xp.log1p(z)
    soft /= dtype(beta)
    xp.copyto(data, soft, where=smooth)  # (CuPy's ufuncs take no where=)
    return _unary(input, data, SoftplusBackward0, beta=beta, threshold=threshold, exp=z,
                  smooth=smooth)


class HardtanhBackward0(FirstOrderBackward):
    """The gradient passes strictly inside ``(min_val, max_val)``, is zero outside."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x = self_._data
        xp = array_module_of(x)
        inside = x > self.min_val
        inside &= x < self.max_val
        return (wrap(xp.multiply(grad._data, inside, dtype=grad._data.dtype), grad),)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """``x`` clamped to ``[min_val, max_val]``."""
    x = _float_input("hardtanh_cpu", input) if input._dtype.name == "bool" else input._data
    xp = array_module_of(x)
    data = xp.maximum(x, x.dtype.type(min_val))
    xp.minimum(data, x.dtype.type(max_val), out=data)
    return _unary(input, data, HardtanhBackward0, min_val=min_val, max_val=max_val)


#: The node an in-place form records in place of the out-of-place one.
INPLACE_NODES = {LeakyReluBackward0: LeakyReluBackward1, EluBackward0: EluBackward1}

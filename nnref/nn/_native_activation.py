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
import importlib
import math

import numpy as np

from .._device import array_module_of
from .._ops._common import needs_grad, wrap
from .._ops._first_order import FirstOrderBackward
from ._native import _as, _opmath

__all__ = ["gelu", "leaky_relu", "silu", "elu", "softplus", "hardtanh"]


def _float_input(name, input):
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"{name}" not implemented for \'{input._dtype._legacy_name[:-6]}\'; '
                                  "convert the input to a floating point dtype first, e.g. x.float()")
    return _opmath(input._data)


def _erf(x):
    """The error function, elementwise, from SciPy (CPU) or cupyx (GPU): numpy has none."""
    xp = array_module_of(x)
    special = "scipy.special" if xp is np else "cupyx.scipy.special"
    try:
        return importlib.import_module(special).erf(x)
    except ImportError:
        raise RuntimeError(f"F.gelu (approximate='none') needs the error function from {special}; "
                           "install SciPy (pip install scipy), or use approximate='tanh'") from None


def _unary(input, data, node_class, result=None, **attributes):
    """Wrap ``data`` as the op's output and record ``node_class`` (which saves the input)."""
    out = wrap(_as(data, input._data), input)
    if needs_grad(input):
        node = node_class((input,), saved=(input,))
        node.__dict__.update(attributes)
        out.grad_fn = node
    return out


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
        if self.approximate == "tanh":
            inner = dtype(_SQRT_2_OVER_PI) * (x + dtype(_KAPPA) * x * x * x)
            t = xp.tanh(inner)
            d_inner = dtype(_SQRT_2_OVER_PI) * (1 + dtype(3 * _KAPPA) * x * x)
            derivative = dtype(0.5) * (1 + t) + dtype(0.5) * x * (1 - t * t) * d_inner
        else:
            cdf = dtype(0.5) * (1 + _erf(x * dtype(math.sqrt(0.5))))
            pdf = xp.exp(dtype(-0.5) * x * x) * dtype(1 / math.sqrt(2 * math.pi))
            derivative = cdf + x * pdf
        return (wrap(_as(g * derivative, grad._data), grad),)


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
        inner = dtype(_SQRT_2_OVER_PI) * (x + dtype(_KAPPA) * x * x * x)
        data = dtype(0.5) * x * (1 + xp.tanh(inner))
    else:
        data = x * dtype(0.5) * (1 + _erf(x * dtype(math.sqrt(0.5))))
    return _unary(input, data, GeluBackward0, approximate=approximate)


# --------------------------------------------------------------------------------------------
# Piecewise-linear and exponential units
# --------------------------------------------------------------------------------------------

class LeakyReluBackward0(FirstOrderBackward):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        xp = array_module_of(grad._data)
        g = _opmath(grad._data)
        slope = g.dtype.type(self.negative_slope)
        return (wrap(_as(xp.where(_opmath(self_._data) > 0, g, g * slope), grad._data), grad),)


class LeakyReluBackward1(LeakyReluBackward0):
    """The node of the in-place form (``F.leaky_relu(x, inplace=True)``)."""


def leaky_relu(input, negative_slope=0.01):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    x = _float_input("leaky_relu_cpu", input)
    xp = array_module_of(x)
    data = xp.where(x > 0, x, x * x.dtype.type(negative_slope))
    return _unary(input, data, LeakyReluBackward0, negative_slope=negative_slope)


class SiluBackward0(FirstOrderBackward):
    """d silu = s (1 + x (1 - s)), s = sigmoid(x)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x = _opmath(self_._data)
        xp = array_module_of(x)
        s = 1 / (1 + xp.exp(-x))
        return (wrap(_as(_opmath(grad._data) * s * (1 + x * (1 - s)), grad._data), grad),)


def silu(input, inplace=False):
    """``x * sigmoid(x)`` (the swish function)."""
    x = _float_input("silu_cpu", input)
    xp = array_module_of(x)
    with np.errstate(over="ignore"):  # exp(-x) overflows to inf for very negative x: silu is -0
        data = x / (1 + xp.exp(-x))
    return _unary(input, data, SiluBackward0)


class EluBackward0(FirstOrderBackward):
    """``grad * scale`` where x > 0, else ``grad * input_scale * scale * alpha * exp(x * input_scale)``."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x, g = _opmath(self_._data), _opmath(grad._data)
        xp = array_module_of(x)
        dtype = x.dtype.type
        negative = g * dtype(self.input_scale * self.scale * self.alpha) * xp.exp(
            xp.minimum(x, 0) * dtype(self.input_scale))
        return (wrap(_as(xp.where(x > 0, g * dtype(self.scale), negative), grad._data), grad),)


class EluBackward1(EluBackward0):
    """The node of the in-place form (``F.elu(x, inplace=True)``)."""


def elu(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """``scale * x`` where positive, ``scale * alpha * (exp(x * input_scale) - 1)`` elsewhere."""
    x = _float_input("elu_cpu", input)
    xp = array_module_of(x)
    dtype = x.dtype.type
    negative = dtype(scale * alpha) * xp.expm1(xp.minimum(x, 0) * dtype(input_scale))
    data = xp.where(x > 0, x * dtype(scale), negative)
    return _unary(input, data, EluBackward0, alpha=alpha, scale=scale, input_scale=input_scale)


class SoftplusBackward0(FirstOrderBackward):
    """``grad * sigmoid(beta x)``, and ``grad`` where ``beta x > threshold`` (linear there)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x, g = _opmath(self_._data), _opmath(grad._data)
        xp = array_module_of(x)
        scaled = x * x.dtype.type(self.beta)
        with np.errstate(over="ignore"):
            z = xp.exp(xp.minimum(scaled, self.threshold))
        return (wrap(_as(xp.where(scaled > self.threshold, g, g * z / (z + 1)), grad._data), grad),)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    x = _float_input("softplus_cpu", input)
    xp = array_module_of(x)
    dtype = x.dtype.type
    scaled = x * dtype(beta)
    smooth = xp.log1p(xp.exp(xp.minimum(scaled, dtype(threshold)))) / dtype(beta)
    data = xp.where(scaled > threshold, x, smooth)
    return _unary(input, data, SoftplusBackward0, beta=beta, threshold=threshold)


class HardtanhBackward0(FirstOrderBackward):
    """The gradient passes strictly inside ``(min_val, max_val)``, is zero outside."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x = self_._data
        xp = array_module_of(x)
        inside = (x > self.min_val) & (x < self.max_val)
        return (wrap(xp.where(inside, grad._data, grad._data.dtype.type(0)), grad),)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """``x`` clamped to ``[min_val, max_val]``."""
    x = _float_input("hardtanh_cpu", input) if input._dtype.name == "bool" else input._data
    xp = array_module_of(x)
    data = xp.clip(x, x.dtype.type(min_val), x.dtype.type(max_val))
    return _unary(input, data, HardtanhBackward0, min_val=min_val, max_val=max_val)


#: The node an in-place form records in place of the out-of-place one.
INPLACE_NODES = {LeakyReluBackward0: LeakyReluBackward1, EluBackward0: EluBackward1}

"""The activation kernels behind ``F.gelu``, ``leaky_relu``, ``silu``, ``elu``, ``softplus`` and
``hardtanh``, each with its backward node.

Mirrors ``aten/src/ATen/native/Activation.cpp`` and the CPU kernels of
``native/cpu/Activation.cpp``; the gradient formulas are those of
``tools/autograd/derivatives.yaml`` (``gelu_backward``, ``leaky_relu_backward``, ...).
Forward and backward are a few vectorised numpy passes each, computed in float32 for 16-bit
floats as PyTorch's CPU kernels do.  Their speed is the number of passes over memory and of new
arrays: each kernel works in place on the few arrays it creates, keeps what its backward pass
needs (an exponential, a CDF) instead of computing it again, and selects between the sides of a
piecewise function with arithmetic (``np.clip``, a 0/1 mask) rather than ``np.where``, which is
slow where the mask changes from one element to the next.  The backward passes are plain numpy;
ELU's and Hardtanh's record their result as ``elu_backward``/``hardtanh_backward``, so
``create_graph=True`` differentiates them again, while the others are first-order only: there
``create_graph=True`` raises (PyTorch supports it) instead of silently dropping the
second-derivative term.
"""
import math

import numpy as np

from ..core._device import array_module_of
from .. import _meta
from .._type_info import checked_scalar, from_numpy_dtype
from ._common import float_input, needs_grad, record, special_function, wrap
from ..core.autograd.graph import Node
from ._first_order import FirstOrderBackward
from .native import _as, _opmath
from .select import select_or_zero

__all__ = ["gelu", "leaky_relu", "silu", "elu", "softplus", "hardtanh"]


def _float_input(name, input):
    return _opmath(float_input(name, input))


def _unary(input, data, node_class, **attributes):
    """Wrap ``data`` as the op's output and record ``node_class`` (which saves the input).

    ``attributes`` may hold arrays the forward pass computed anyway (a derivative, a
    denominator) so that the backward pass does not compute them again.
    """
    return record(wrap(_as(data, input._data), input), node_class, (input,), saved=(input,),
                  **attributes)


def _scale(array, factor):
    """``array *= factor`` in place, skipped when ``factor`` is 1 (the default of most
    activation parameters): a pass over memory saved."""
    if factor != 1:
        array *= array.dtype.type(factor)
    return array


# --------------------------------------------------------------------------------------------
# GELU: x * Phi(x), exactly (erf) or with the tanh approximation
# --------------------------------------------------------------------------------------------

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_KAPPA = 0.044715

# Abramowitz & Stegun 7.1.26 (Hastings), the erf of PyTorch's vectorised float kernels (``Vectorized<float>::erf``
# in ``aten/src/ATen/cpu/vec``): erf(z) = sign(z) (1 - t P(t) exp(-z^2)), t = 1 / (1 + p |z|),
# P(t) = a1 + a2 t + a3 t^2 + a4 t^3 + a5 t^4, absolute error 1.5e-7.
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)

#: Bytes per block of the float32 kernels below: their temporaries stay in the core's L2 cache.
_BLOCK_BYTES = 1 << 20


def _blockwise(kernel, x, count):
    """``count`` new arrays shaped like ``x``, computed by ``kernel(x_block, *output_blocks)`` over
    consecutive blocks of the flattened ``x``.

    This is the loop of PyTorch's vectorised CPU kernels (``cpu_kernel_vec``), over blocks of
    ``_BLOCK_BYTES`` instead of single vectors: a kernel of a dozen numpy passes then reads and
    writes its temporaries in the L2 cache, not main memory.  On a GPU the whole array is one block.
    """
    xp = array_module_of(x)
    x = xp.ascontiguousarray(x)
    outputs = tuple(xp.empty(x.shape, x.dtype) for _ in range(count))
    flat, flat_outputs = x.reshape(-1), tuple(out.reshape(-1) for out in outputs)
    step = max(1, _BLOCK_BYTES // x.itemsize) if xp is np else max(1, x.size)
    with np.errstate(over="ignore", invalid="ignore"):  # PyTorch's kernels do not warn either
        for start in range(0, x.size, step):
            block = slice(start, start + step)
            kernel(flat[block], *(out[block] for out in flat_outputs))
    return outputs


def _gelu_float32(x, out, derivative=None):
    """``out = x Phi(x)`` and ``derivative = Phi(x) + x phi(x)`` for one block of float32, with
    PyTorch's ``Phi(x) = (1 + erf(x / sqrt 2)) / 2`` and its erf (``GeluKernelImpl``): numpy has
    no vectorised erf, and SciPy's computes each float32 through float64 one element at a time,
    30 times slower than an exp.  The exponential of the erf is the one the derivative needs."""
    xp = array_module_of(x)
    dtype = x.dtype.type
    # t = 1 / (1 + p |x| / sqrt 2) = k / (k + |x|)
    k = dtype(1 / (_AS_P * math.sqrt(0.5)))
    t = xp.abs(x)
    t += k
    xp.divide(k, t, out=t)
    # Half the tail, t P(t) exp(-x^2 / 2) / 2, with the halved coefficients.
    tail = xp.multiply(t, dtype(_AS_A[4] / 2))
    for a in reversed(_AS_A[:4]):
        tail += dtype(a / 2)
        tail *= t
    exponential = xp.square(x)
    exponential *= dtype(-0.5)
    xp.exp(exponential, out=exponential)
    tail *= exponential
    cdf = xp.subtract(dtype(0.5), tail, out=tail)  # |erf(x / sqrt 2)| / 2
    # erf's sign is x's: its sign bit, copied with integer operations (np.copysign has no fast loop).
    sign = xp.bitwise_and(x.view(xp.int32), xp.int32(-2 ** 31), out=t.view(xp.int32))
    xp.bitwise_or(cdf.view(xp.int32), sign, out=cdf.view(xp.int32))
    cdf += dtype(0.5)
    xp.multiply(x, cdf, out=out)
    if derivative is not None:
        exponential *= x
        exponential *= dtype(1 / math.sqrt(2 * math.pi))
        xp.add(exponential, cdf, out=derivative)


def _gelu_float64(x, with_derivative):
    """``x Phi(x)`` and (if asked) ``Phi(x) + x phi(x)`` with SciPy's erf, exact to the last bit."""
    xp = array_module_of(x)
    dtype = x.dtype.type
    cdf = special_function("erf", x * dtype(math.sqrt(0.5)))
    cdf += 1
    cdf *= dtype(0.5)
    if not with_derivative:
        return x * cdf, None
    derivative = xp.multiply(x, x)
    derivative *= dtype(-0.5)
    xp.exp(derivative, out=derivative)
    derivative *= x
    derivative *= dtype(1 / math.sqrt(2 * math.pi))
    derivative += cdf
    return x * cdf, derivative


class GeluBackward0(FirstOrderBackward):
    """d gelu = Phi(x) + x * phi(x)  (exact), or the derivative of the tanh formula."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        g = _opmath(grad._data)
        if self.approximate == "none":  # the forward pass computed the derivative
            return (wrap(_as(self.intermediate * g, grad._data), grad),)
        x, t = _opmath(self_._data), self.intermediate
        xp = array_module_of(x)
        dtype = x.dtype.type
        # 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 kappa x^2)
        d_inner = xp.multiply(x, x)
        d_inner *= dtype(3 * _KAPPA * _SQRT_2_OVER_PI)
        d_inner += dtype(_SQRT_2_OVER_PI)
        derivative = t * t
        xp.subtract(1, derivative, out=derivative)
        derivative *= x
        derivative *= d_inner
        derivative += t
        derivative += 1
        derivative *= dtype(0.5)
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
        data *= x
        data *= dtype(0.5)
        return _unary(input, data, GeluBackward0, approximate=approximate, intermediate=saved)
    if x.dtype == np.float32:
        data, *derivative = _blockwise(_gelu_float32, x, 2 if needs_grad(input) else 1)
        derivative = derivative[0] if derivative else None
    else:
        data, derivative = _gelu_float64(x, needs_grad(input))
    return _unary(input, data, GeluBackward0, approximate=approximate, intermediate=derivative)


# --------------------------------------------------------------------------------------------
# Piecewise-linear and exponential units
# --------------------------------------------------------------------------------------------

class LeakyReluBackward0(FirstOrderBackward):
    """``grad`` where ``x > 0``, ``grad * negative_slope`` elsewhere (NaN included)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        xp = array_module_of(grad._data)
        g = _opmath(grad._data)
        slope = g.dtype.type(self.negative_slope)
        positive = xp.greater(self_._data, 0)
        if not 0 <= slope <= 1:
            return (wrap(_as(xp.where(positive, g, g * slope), grad._data), grad),)
        # The 0/1 mask clipped to [slope, 1] is slope where x <= 0 and 1 elsewhere, exactly.
        local = positive.astype(g.dtype)
        xp.clip(local, slope, g.dtype.type(1), out=local)
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
    if slope == 0:  # 0 * inf is NaN, but leaky_relu(inf) is inf
        data = xp.where(x > 0, x, scaled)
    else:  # x or slope * x, whichever is larger (slope < 1, negative ones too) or smaller (slope > 1)
        data = (xp.maximum if slope < 1 else xp.minimum)(x, scaled, out=scaled)
    return _unary(input, data, LeakyReluBackward0, negative_slope=negative_slope)


class SiluBackward0(FirstOrderBackward):
    """d silu = s (1 + x (1 - s)), s = sigmoid(x) = 1 / d: that is ``(1 + x - x / d) / d`` with
    ``d = 1 + exp(-x)`` kept by the forward pass."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x, d = _opmath(self_._data), self.denominator
        xp = array_module_of(x)
        result = xp.divide(x, d)
        xp.subtract(x, result, out=result)
        result += 1
        result /= d
        result *= _opmath(grad._data)
        return (wrap(_as(result, grad._data), grad),)


def silu(input, inplace=False):
    """``x * sigmoid(x)`` (the swish function), as PyTorch's kernel computes it: ``x / (1 + exp(-x))``."""
    x = _float_input("silu_cpu", input)
    xp = array_module_of(x)
    with np.errstate(over="ignore"):  # exp(-x) overflows to inf for very negative x: silu is -0
        denominator = xp.negative(x)
        xp.exp(denominator, out=denominator)
        denominator += 1
    return _unary(input, xp.divide(x, denominator), SiluBackward0, denominator=denominator)


class EluBackward0(Node):
    """``grad * scale`` where x > 0, else ``grad * input_scale * scale * alpha * exp(x * input_scale)``,
    which is ``grad * input_scale * (negative_part + scale * alpha)`` with the forward pass's
    ``negative_part = scale * alpha * expm1(min(x, 0) * input_scale)``: no exponential to compute
    again.  Where x > 0 that is ``input_scale * scale * alpha``: ``scale`` itself for ELU (and for
    CELU where ``1 / alpha * alpha`` rounds to 1); SELU and the others replace it through a 0/1 mask.
    The result is ``elu_backward``'s, recorded as it (``EluBackwardBackward0``) under
    ``create_graph=True``."""

    def backward(self, grad):
        self_, _ = self.saved_tensors  # the result too, so that changing it in place is caught
        g = _opmath(grad._data)
        xp = array_module_of(g)
        dtype = g.dtype.type
        local = self.negative_part + dtype(self.scale * self.alpha)
        _scale(local, self.input_scale)
        if self.input_scale * self.scale * self.alpha != self.scale:
            positive = xp.greater(_opmath(self_._data), 0).astype(g.dtype)
            local *= 1 - positive
            positive *= dtype(self.scale)
            local += positive
        local *= g
        return (record(wrap(_as(local, grad._data), grad), EluBackwardBackward0, (grad, self_),
                       saved=(grad, self_), alpha=self.alpha, scale=self.scale, input_scale=self.input_scale),)


class EluBackward1(FirstOrderBackward, EluBackward0):
    """The node of the in-place form (``F.elu(x, inplace=True)``): first order only (its input is
    gone, and PyTorch's second derivative then reads the result)."""


class EluBackwardBackward0(Node):
    """The derivatives of ``elu_backward(grad_output, self)`` (``derivatives.yaml``): itself for
    ``grad_output`` (it is linear there) and ``elu_double_backward`` for ``self``, that is
    ``elu_backward(grad * grad_output * input_scale, self)`` where ``self < 0``, 0 elsewhere."""

    def backward(self, grad):
        grad_output, self_ = self.saved_tensors
        wants_grad_output, wants_self = self.needs_input_grad
        coefficients = (self.alpha, self.scale, self.input_scale)
        return (elu_backward(grad, *coefficients, self_) if wants_grad_output else None,
                elu_backward(grad * grad_output * self.input_scale, *coefficients, self_)
                * (self_ < 0).type_as(grad) if wants_self else None)


def elu_backward(grad_output, alpha, scale, input_scale, self_):
    """``grad_output * input_scale * scale * alpha * exp(self * input_scale)`` where ``self <= 0``,
    ``grad_output * scale`` elsewhere (ATen's ``elu_backward`` of the input), recorded so that it
    can be differentiated again."""
    x, g = _opmath(self_._data), _opmath(grad_output._data)
    xp = array_module_of(x)
    dtype = g.dtype.type
    negative = xp.exp(x * dtype(input_scale)) * dtype(input_scale * scale * alpha)
    data = g * xp.where(x <= 0, negative, dtype(scale))
    return record(wrap(_as(data, grad_output._data), grad_output), EluBackwardBackward0, (grad_output, self_),
                  saved=(grad_output, self_), alpha=alpha, scale=scale, input_scale=input_scale)


def elu(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """``scale * x`` where positive, ``scale * alpha * (exp(x * input_scale) - 1)`` elsewhere."""
    x = _float_input("elu_cpu", input)
    xp = array_module_of(x)
    dtype = x.dtype.type
    # scale * alpha * expm1(min(x, 0) * input_scale) is 0 where x > 0, and scale * max(x, 0)
    # is 0 elsewhere: their sum is ELU without a select.  (np.clip with both bounds is numpy's
    # fast min/max against a number; np.minimum(x, 0) is not.)
    negative_part = xp.clip(x, dtype(-np.inf), dtype(0))
    _scale(negative_part, input_scale)
    xp.expm1(negative_part, out=negative_part)
    _scale(negative_part, scale * alpha)
    data = _scale(xp.clip(x, dtype(0), dtype(np.inf)), scale)
    data += negative_part
    out = wrap(_as(data, input._data), input)
    return record(out, EluBackward0, (input,), saved=(input,), save_result=True, alpha=alpha,
                  scale=scale, input_scale=input_scale, negative_part=negative_part)


class SoftplusBackward0(FirstOrderBackward):
    """``grad * sigmoid(beta x)``, and ``grad`` where ``beta x > threshold`` (linear there)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        g = _opmath(grad._data)
        xp = array_module_of(self_._data)
        z = self.exp
        local = xp.add(z, 1, out=xp.empty_like(z))  # an array also for a 0-d input
        xp.divide(z, local, out=local)  # sigmoid(beta x)
        if self.linear is not None:
            xp.copyto(local, local.dtype.type(1), where=self.linear)
        local *= g
        return (wrap(_as(local, grad._data), grad),)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    x = _float_input("softplus_cpu", input)
    xp = array_module_of(x)
    dtype = x.dtype.type
    z = xp.multiply(x, dtype(beta), out=xp.empty_like(x))  # an array also for a 0-d input
    # Where beta x > threshold (NaN stays on the smooth side, as in PyTorch).  Usually nowhere:
    # then no select at all, and when there is one, numpy's masked copy is fast on a sparse mask.
    linear = z > threshold
    if _meta.has_values(linear) and not linear.any():
        linear = None
    xp.clip(z, dtype(-np.inf), dtype(threshold), out=z)
    xp.exp(z, out=z)  # exp(beta x), kept for the backward pass
    data = xp.log1p(z, out=xp.empty_like(z))
    if beta != 1:
        data /= dtype(beta)
    if linear is not None:
        xp.copyto(data, x, where=linear)  # (CuPy's ufuncs take no where=)
    return _unary(input, data, SoftplusBackward0, beta=beta, threshold=threshold, exp=z,
                  linear=linear)


class HardtanhBackward0(Node):
    """The gradient passes strictly inside ``(min_val, max_val)``, is +0 outside (a select):
    ``hardtanh_backward``, recorded under ``create_graph=True``."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (hardtanh_backward(grad, self_, self.min_val, self.max_val),)


class HardtanhBackwardBackward0(Node):
    """``hardtanh_backward`` is linear in ``grad_output`` (its gradient is the same select) and flat
    in ``self`` (``derivatives.yaml``: ``zeros_like(grad)``)."""

    def backward(self, grad):
        from .._creation import zeros_like
        (self_,) = self.saved_tensors
        wants_grad_output, wants_self = self.needs_input_grad
        return (hardtanh_backward(grad, self_, self.min_val, self.max_val) if wants_grad_output else None,
                zeros_like(grad) if wants_self else None)


def hardtanh_backward(grad_output, input, min_val, max_val):
    """``grad_output`` where ``min_val < input < max_val``, +0 elsewhere (ATen's ``hardtanh_backward``)."""
    x = input._data
    xp = array_module_of(x)
    inside = xp.greater(x, min_val)
    inside &= xp.less(x, max_val)
    return record(wrap(select_or_zero(inside, grad_output._data), grad_output), HardtanhBackwardBackward0,
                  (grad_output, input), saved=(input,), min_val=min_val, max_val=max_val)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """``x`` clamped to ``[min_val, max_val]``."""
    x = _float_input("hardtanh_cpu", input) if input._dtype.name == "bool" else input._data
    xp = array_module_of(x)
    # np.clip with both bounds: numpy's fast path (np.maximum and np.minimum with a number are not)
    dtype = from_numpy_dtype(x.dtype)
    data = xp.clip(x, checked_scalar(min_val, dtype), checked_scalar(max_val, dtype)).astype(x.dtype, copy=False)
    return _unary(input, data, HardtanhBackward0, min_val=min_val, max_val=max_val)


#: The node an in-place form records in place of the out-of-place one.
INPLACE_NODES = {LeakyReluBackward0: LeakyReluBackward1, EluBackward0: EluBackward1}

"""Special functions: ``erfc``, ``erfinv``, ``lgamma``, ``digamma``, ``polygamma``, ``logit``, ``sinc``,
``exp2``, ``xlogy``, ``logaddexp`` and ``logaddexp2``, each forward next to its backward.

Mirrors ``aten/src/ATen/native/UnaryOps.cpp`` (and ``BinaryOps.cpp`` for ``xlogy`` and
``logaddexp``); the gradients are the formulas of ``tools/autograd/derivatives.yaml``, written
with nnref ops so that they differentiate again.  numpy has no ``erfc``, ``erfinv``, ``lgamma``
or ``digamma``: their values come from ``scipy.special`` (``cupyx.scipy.special`` on a GPU), as
``erf``'s do.  Integer and bool inputs give the default float dtype, as in PyTorch.
"""
import math

import numpy as np

from ..core import _dtype
from ..core._device import array_module, array_module_of
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import (broadcast_error, check_same_device, float_data, operand_data, record,
                      result_type, special_function, wrap)
from .pointwise import _unary, exp

__all__ = ["erfc", "erfinv", "lgamma", "digamma", "polygamma", "logit", "sinc", "exp2", "xlogy",
           "logaddexp", "logaddexp2"]


class ErfcBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * (-2.0 / math.sqrt(math.pi)) * exp(-(self_ * self_)),)


def erfc(input):
    """``1 - erf(x)``, accurate where ``erf(x)`` is close to 1 (``torch.erfc``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _unary(lambda x: special_function("erfc", x), ErfcBackward0, input, save_input=True)


class ErfinvBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * (0.5 * math.sqrt(math.pi)) * exp(erfinv(self_).pow(2)),)


def erfinv(input):
    """The inverse of ``erf``, on ``[-1, 1]`` (``±inf`` at the ends, NaN outside) (``torch.erfinv``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _unary(lambda x: special_function("erfinv", x), ErfinvBackward0, input, save_input=True)


class LgammaBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * digamma(self_),)


def lgamma(input):
    """``log(|gamma(x)|)`` (``torch.lgamma``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _unary(lambda x: special_function("gammaln", x), LgammaBackward0, input, save_input=True)


class DigammaBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * polygamma(1, self_),)


def _digamma(x):
    """SciPy's ``psi`` is NaN at 0; PyTorch's ``digamma(0)`` is ``-inf`` (``calc_digamma`` in
    ``aten/src/ATen/native/Math.h``)."""
    xp = array_module_of(x)
    return xp.where(x == 0, x.dtype.type(-np.inf), special_function("psi", x))


def digamma(input):
    """The logarithmic derivative of the gamma function, ``lgamma``'s derivative
    (``torch.digamma``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _unary(_digamma, DigammaBackward0, input, save_input=True)


def _trigamma(x):
    """PyTorch's ``calc_trigamma`` (``aten/src/ATen/native/Math.h``): reflection below 1/2, six
    steps of the recurrence, then the asymptotic series; its values, not SciPy's more exact ones."""
    xp = array_module_of(x)
    one = x.dtype.type(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        reflect = x < 0.5
        sin_pi_x = xp.sin(x.dtype.type(math.pi) * x)
        result = xp.where(reflect, -x.dtype.type(math.pi * math.pi) / (sin_pi_x * sin_pi_x), x.dtype.type(0))
        x = xp.where(reflect, one - x, x)
        for _ in range(6):
            result = result + one / (x * x)
            x = x + one
        ixx = one / (x * x)
        result = result + (one + one / (2 * x) + ixx * (x.dtype.type(1 / 6) - ixx * (
            x.dtype.type(1 / 30) - ixx * x.dtype.type(1 / 42)))) / x
        return xp.where(reflect, -result, result)


class PolygammaBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * polygamma(self.n + 1, self_),)


def polygamma(n, input):
    """The ``n``-th derivative of ``digamma`` (``torch.polygamma``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")

    def values(x):
        if n == 0:
            return _digamma(x)
        if n == 1:
            return _trigamma(x)
        sign = 1.0 if n % 2 else -1.0  # (-1)**(n + 1) n! zeta(n + 1, x), as PyTorch's calc_polygamma
        return x.dtype.type(sign * math.factorial(n)) * special_function(
            "zeta", x, array_module_of(x).full(x.shape, n + 1, dtype=x.dtype))
    out = wrap(values(float_data(input)), input)
    return record(out, PolygammaBackward0, (input,), saved=(input,), n=n)


def _polygamma_method(self, n):
    """``self.polygamma(n)`` is ``nnref.polygamma(n, self)`` (``torch.Tensor.polygamma``)."""
    return polygamma(n, self)


class LogitBackward0(Node):
    """``grad / (x (1 - x))``; with ``eps``, zero where ``x`` was clamped (``logit_backward``)."""

    def backward(self, grad):
        from .pointwise import where
        (self_,) = self.saved_tensors
        result = grad / (self_ * (1 - self_))
        if self.eps is None:
            return (where((self_ < 0) | (self_ > 1), float("nan"), result),)
        return (where((self_ < self.eps) | (self_ > 1 - self.eps), 0.0, result),)


def logit(input, eps=None):
    """``log(x / (1 - x))``, the inverse of ``sigmoid``; with ``eps``, ``x`` is first clamped to
    ``[eps, 1 - eps]`` (``torch.logit``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    def values(x):
        xp = array_module_of(x)
        if eps is not None:
            x = xp.clip(x, x.dtype.type(eps), x.dtype.type(1 - eps))
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.log(x / (1 - x))
    out = wrap(values(float_data(input)), input)
    return record(out, LogitBackward0, (input,), saved=(input,), eps=eps)


class SincBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        angle = math.pi * self_
        ratio = (angle * angle.cos() - angle.sin()) / (angle * self_)
        return (ratio.masked_fill(self_ == 0, 0.0) * grad,)


def _sinc(x):
    if x.dtype.itemsize == 2:  # 16-bit floats compute in float32 and round once, as PyTorch's opmath
        return _sinc(x.astype(np.float32)).astype(x.dtype)
    xp = array_module_of(x)
    angle = x * x.dtype.type(math.pi)
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where(x == 0, x.dtype.type(1), xp.sin(angle) / angle)


def sinc(input):
    """``sin(pi x) / (pi x)``, and 1 at 0 (``torch.sinc``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _unary(_sinc, SincBackward0, input, save_input=True)


class Exp2Backward0(Node):
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * result * math.log(2.0),)


def exp2(input):
    """``2 ** x`` (``torch.exp2``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    xp = array_module(input._device)
    with np.errstate(over="ignore"):
        return _unary(xp.exp2, Exp2Backward0, input, save_result=True)


# -- xlogy: either side may be a number -------------------------------------------------------------
def _float_operands(input, other):
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        dtype = _dtype.get_default_dtype()
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        check_same_device(input, other)
    return dtype, operand_data(input, dtype), operand_data(other, dtype)


class XlogyBackward0(Node):
    """``self: xlogy(grad, other)``, 0 where ``self == 0`` and ``other <= 0`` (PyTorch's note
    "Gradient formula for xlogy at x = 0, y <= 0": at ``self == 0`` with ``other > 0`` the
    gradient is ``log(other)``, the derivative's limit)."""

    def backward(self, grad):
        self_, other = self.saved_tensors
        wants_self, wants_other = self.needs_input_grad
        return (xlogy(grad, other).masked_fill((self_ == 0) & (other <= 0), 0) if wants_self else None,
                grad * self_ / other if wants_other else None)


class XlogyBackward1(Node):
    """``self`` is a number."""

    def backward(self, grad):
        (other,) = self.saved_tensors
        return (grad * self.self_scalar / other,)


class XlogyBackward2(Node):
    """``other`` is a number."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        grad_self = xlogy(grad, self.other_scalar)
        return (grad_self if self.other_scalar > 0 else grad_self.masked_fill(self_ == 0, 0),)


def xlogy(input, other):
    """``input * log(other)``, and 0 where ``input`` is 0 (unless ``other`` is NaN); either may be a
    number (``torch.xlogy``, ``aten/src/ATen/native/BinaryOps.cpp``)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlogy(): at least one of 'input' and 'other' must be a Tensor")
    dtype, a, b = _float_operands(input, other)
    like = input if isinstance(input, Tensor) else other
    xp = array_module(like._device)
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            data = xp.where((a == 0) & (b == b), dtype.numpy.type(0), a * xp.log(b))
    except ValueError:
        raise broadcast_error(a, b) from None
    out = wrap(xp.asarray(data, dtype=dtype.numpy), like)
    if not isinstance(input, Tensor):
        return record(out, XlogyBackward1, (other,), saved=(other,), self_scalar=input)
    if not isinstance(other, Tensor):
        return record(out, XlogyBackward2, (input,), saved=(input,), other_scalar=other)
    return record(out, XlogyBackward0, (input, other), saved=(input, other))


# -- logaddexp, logaddexp2: two tensors ------------------------------------------------------------
def _combined(name, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    check_same_device(input, other)
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dtype._legacy_name[:-6]}\'')
    a, b = operand_data(input, dtype), operand_data(other, dtype)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            return getattr(array_module(input._device), name)(a, b)
    except ValueError:
        raise broadcast_error(a, b) from None


class LogaddexpBackward0(Node):
    def backward(self, grad):
        self_, other = self.saved_tensors
        return (grad / (1 + (other - self_).exp()), grad / (1 + (self_ - other).exp()))


def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` without overflow (``torch.logaddexp``,
    ``aten/src/ATen/native/BinaryOps.cpp``)."""
    out = wrap(_combined("logaddexp", input, other), input)
    return record(out, LogaddexpBackward0, (input, other), saved=(input, other))


class Logaddexp2Backward0(Node):
    def backward(self, grad):
        self_, other = self.saved_tensors
        return (grad / (1 + (other - self_).exp2()), grad / (1 + (self_ - other).exp2()))


def logaddexp2(input, other):
    """``log2(2**input + 2**other)`` without overflow (``torch.logaddexp2``,
    ``aten/src/ATen/native/BinaryOps.cpp``)."""
    out = wrap(_combined("logaddexp2", input, other), input)
    return record(out, Logaddexp2Backward0, (input, other), saved=(input, other))

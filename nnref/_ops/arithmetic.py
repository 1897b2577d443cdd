"""``+ - * / **``, negation and comparisons, each forward next to its backward.

Formulas follow PyTorch's ``tools/autograd/derivatives.yaml``.  Gradients are
returned at the *broadcast* shape; the engine sums them back to each input's
shape, as PyTorch's engine does in ``validate_outputs``.  A Python number
operand is not part of the graph, so its slot in ``next_functions`` is
``(None, 0)``, exactly as in PyTorch.
"""
import math
import warnings

import numpy as np

from ..core import _dtype
from .._half import through_float32
from ..core._device import array_module
from .. import _meta
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import NotImplemented  # noqa: A004 - PyTorch's name
from ._common import (broadcast_error, check_same_device, needs_grad, operand_data, record,
                      result_type, wrap)
from .fused import fma
from ..core._ops.arithmetic import (AddBackward0, DivBackward0, MulBackward0, NegBackward0, PowBackward0,
                                    ReciprocalBackward0, RsubBackward1, SubBackward0)

# The dtypes whose ``add``/``sub`` with ``alpha`` round as ATen's fused multiply-add.
_FUSED_ALPHA = (_dtype.float32, _dtype.float64)


def _trunc_divide(xp, a, b):
    return xp.trunc(xp.true_divide(a, b)).astype(a.dtype)  # operand_data gave both this dtype


# ATen's mul and div kernels read a number (or 0-d tensor) second operand of a float16/bfloat16 op
# in float32, not rounded to 16 bits first as add's does (``original_scalar_value<opmath_t>``,
# ``aten/src/ATen/native/cpu/BinaryOpsKernel.cpp``).
_SCALAR_IN_FLOAT32 = ("multiply", "true_divide", "floor_divide", _trunc_divide)
_HALF_TYPES = (_dtype.float16, _dtype.bfloat16)


def _tensor_or_none(x):
    return x if isinstance(x, Tensor) else None


def _requires(x):
    return x is not None and x.requires_grad


def _binary(operation, input, other, dtype, alpha=1, quiet=False):
    """Run ``operation(input, alpha * other)`` on operands converted to ``dtype``, with PyTorch's errors.

    ``operation`` names a ufunc of the array module (``"add"``), or is a function
    ``f(xp, a, b)`` built from them.  ``quiet`` silences numpy's warnings for
    1/0, 0/0 and overflow: PyTorch gives inf or nan without a word.  (Only where
    they can arise: ``np.errstate`` costs a microsecond.)
    """
    if isinstance(other, Tensor) and isinstance(input, Tensor):
        check_same_device(input, other)
    xp = array_module(_like(input, other)._device)
    if dtype in _HALF_TYPES and operation in _SCALAR_IN_FLOAT32 and not (isinstance(other, Tensor) and other._data.ndim):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # PyTorch: inf or nan, silently
            result = _apply(operation, xp, operand_data(input, _dtype.float32), operand_data(other, _dtype.float32))
            return result.astype(dtype.numpy)
    a, b = operand_data(input, dtype), operand_data(other, dtype)
    try:
        if alpha != 1:
            if operation in ("add", "subtract") and dtype in _FUSED_ALPHA:
                # ATen's add kernel is fmadd(other, alpha, self): rounded once where the CPU has FMA
                return fma(b, dtype.numpy.type(alpha if operation == "add" else -alpha), a)
            b = b * dtype.numpy.type(through_float32(alpha, dtype.numpy))  # see book/differences.md
        if quiet:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                return _apply(operation, xp, a, b)
        return _apply(operation, xp, a, b)
    except ValueError:
        raise broadcast_error(a, b) from None


def _apply(operation, xp, a, b):
    if isinstance(operation, str):
        return getattr(xp, operation)(a, b)
    return operation(xp, a, b)


def _like(input, other):
    """The operand whose device the result lives on: a tensor, and not a 0-d CPU tensor
    beside a tensor on another device (that one counts as a number, as in PyTorch)."""
    if not isinstance(input, Tensor):
        return other
    if (isinstance(other, Tensor) and input._device is not other._device
            and input._device.type == "cpu" and not input._data.ndim):
        return other
    return input


def _positional_alpha(name, other, args, alpha, deprecated=True):
    """``(other, alpha)`` for PyTorch's overloads that take ``alpha`` by position: ``add(input,
    number, alpha)`` and the deprecated ``add(input, alpha, other)`` of old optimizers
    (``p.data.add_(-lr, grad)``), which PyTorch still runs with a warning
    (``torch/csrc/utils/python_arg_parser.cpp``)."""
    if not args:
        return other, alpha
    if len(args) == 1 and alpha == 1:
        (third,) = args
        if not isinstance(other, Tensor) and not isinstance(third, Tensor):
            return other, third
        if deprecated and isinstance(third, Tensor) and not isinstance(other, Tensor):
            warnings.warn(f"This overload of {name} is deprecated:\n\t{name}(Tensor input, Number alpha, "
                          f"Tensor other, *, Tensor out = None)\nConsider using one of the following "
                          f"signatures instead:\n\t{name}(Tensor input, Tensor other, *, Number alpha = 1, "
                          f"Tensor out = None)", UserWarning, stacklevel=3)
            return third, other
    raise TypeError(f"{name}() takes 2 positional arguments but {2 + len(args)} were given: give "
                    f"alpha by keyword, {name}(input, other, alpha=...)")


def add(input, other, *args, alpha=1):
    """``input + alpha * other`` with broadcasting and type promotion (``alpha`` by position
    too, where PyTorch's overloads allow it: see ``_positional_alpha``)."""
    other, alpha = _positional_alpha("add", other, args, alpha)
    dtype = result_type(input, other)
    out = wrap(_binary("add", input, other, dtype, alpha), _like(input, other))
    a, b = _tensor_or_none(input), _tensor_or_none(other)
    return record(out, AddBackward0, (a, b), alpha=alpha)


def _check_no_bool_subtraction(input, other):
    """PyTorch refuses ``-`` whenever an operand is a bool tensor (or a Python bool)."""
    bools = [isinstance(x, bool) or (isinstance(x, Tensor) and x._dtype is _dtype.bool)
             for x in (input, other)]
    if all(bools):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if any(bools):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def sub(input, other, *args, alpha=1):
    """``input - alpha * other`` (``alpha`` by position as :func:`add` takes it)."""
    other, alpha = _positional_alpha("sub", other, args, alpha)
    _check_no_bool_subtraction(input, other)
    dtype = result_type(input, other)
    out = wrap(_binary("subtract", input, other, dtype, alpha), _like(input, other))
    a, b = _tensor_or_none(input), _tensor_or_none(other)
    return record(out, SubBackward0, (a, b), alpha=alpha)


class RsubBackward0(Node):
    """d(b - alpha*a) = (-alpha*grad, grad) for two tensors."""

    def backward(self, grad):
        return grad * -self.alpha, grad


def rsub(input, other, *args, alpha=1):
    """``other - alpha * input``: ``1 - t`` (a number ``other``) or ``torch.rsub(a, b)``; a number
    ``other`` may be followed by ``alpha`` by position (PyTorch's ``rsub.Scalar`` overload)."""
    other, alpha = _positional_alpha("rsub", other, args, alpha, deprecated=False)
    _check_no_bool_subtraction(input, other)
    dtype = result_type(input, other)
    if isinstance(other, Tensor):
        check_same_device(input, other)
        xp = array_module(_like(input, other)._device)
        a, b = operand_data(input, dtype), operand_data(other, dtype)
        try:
            data = xp.subtract(b, a * dtype.numpy.type(alpha) if alpha != 1 else a)
        except ValueError:
            raise broadcast_error(a, b) from None
        out = wrap(data, _like(input, other))
        return record(out, RsubBackward0, (input, other), alpha=alpha)
    out = wrap(_binary("subtract", other, input, dtype, alpha), input)
    return record(out, RsubBackward1, (input,), alpha=alpha)


def mul(input, other):
    """Elementwise product with broadcasting."""
    dtype = result_type(input, other)
    out = wrap(_binary("multiply", input, other, dtype), _like(input, other))
    a, b = _tensor_or_none(input), _tensor_or_none(other)
    if needs_grad(a, b):
        out.grad_fn = MulBackward0((a, b),
                                   (a if _requires(b) else None, b if _requires(a) else None),
                                   scalar=other if b is None else None)
    return out


def div(input, other, *, rounding_mode=None):
    """True division; integer inputs give the default float dtype, as in PyTorch."""
    dtype = result_type(input, other)
    if rounding_mode is not None:
        ufunc = {"floor": "floor_divide", "trunc": _trunc_divide}[rounding_mode]
        return wrap(_binary(ufunc, input, other, dtype), _like(input, other))
    if not dtype.is_floating_point:
        dtype = _dtype.get_default_dtype()
    quiet = isinstance(other, Tensor) or other == 0
    out = wrap(_binary("true_divide", input, other, dtype, quiet=quiet), _like(input, other))
    a, b = _tensor_or_none(input), _tensor_or_none(other)
    if needs_grad(a, b):
        out.grad_fn = DivBackward0((a, b), (a if _requires(b) else None,
                                            b if _requires(a) or _requires(b) else None),
                                   scalar=other if b is None else None,
                                   self_scalar=input if a is None else None)
    return out


def true_divide(input, other):
    """``div`` without ``rounding_mode`` (``torch.true_divide``, an alias whose signature has none)."""
    return div(input, other)


def _integer_division_dtype(name, input, other):
    """The dtype of ``//`` and ``%``, refusing bools and integer division by zero as PyTorch does."""
    dtype = result_type(input, other)
    if dtype is _dtype.bool:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
    divisor = operand_data(other, dtype)
    if not dtype.is_floating_point and _meta.has_values(divisor) and not divisor.all():
        raise RuntimeError("ZeroDivisionError")
    return dtype


def floor_divide(input, other):
    """``input // other``: the quotient rounded down.  Not differentiable, as in PyTorch."""
    dtype = _integer_division_dtype("div_floor", input, other)
    out = wrap(_binary("floor_divide", input, other, dtype, quiet=True), _like(input, other))
    a, b = _tensor_or_none(input), _tensor_or_none(other)
    if needs_grad(a, b):
        out.grad_fn = NotImplemented("floor_divide", (a, b))
    return out


def _float_remainder(xp, a, b):
    """PyTorch's float ``%``: C's ``fmod`` moved into the divisor's sign (6 % -3 is 0, numpy gives -0)."""
    mod = xp.fmod(a, b)
    return xp.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


class RemainderBackward0(Node):
    """d(a % c) = grad for a number c."""

    def backward(self, grad):
        return (grad,)


class RemainderBackward1(Node):
    """d(a % b) = (grad, -grad * floor(a / b)), since a % b = a - b * floor(a / b)."""

    def backward(self, grad):
        self_, other = self.saved_tensors
        wants_other = self.needs_input_grad[1]
        return grad, -grad * div(self_, other, rounding_mode="floor") if wants_other else None


def remainder(input, other):
    """``input % other``, with the sign of ``other`` (Python's ``%``, not C's ``fmod``)."""
    dtype = _integer_division_dtype("remainder", input, other)
    ufunc = _float_remainder if dtype.is_floating_point else "remainder"
    out = wrap(_binary(ufunc, input, other, dtype, quiet=True), _like(input, other))
    a, b = _tensor_or_none(input), _tensor_or_none(other)
    if not needs_grad(a, b):
        return out
    if a is None:  # number % tensor: PyTorch has no derivative for that overload
        out.grad_fn = NotImplemented("remainder", (b,))
    elif b is None:
        out.grad_fn = RemainderBackward0((a,))
    else:
        out.grad_fn = RemainderBackward1((a, b), saved=(a, b) if b.requires_grad else (None, None))
    return out


def reciprocal(input):
    """``1 / x``; an integer input gives the default float dtype (``torch.reciprocal``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    dtype = input._dtype if input._dtype.is_floating_point else _dtype.get_default_dtype()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # 1/0 is inf, quietly
        out = wrap(array_module(input._device).reciprocal(operand_data(input, dtype)), input)
    return record(out, ReciprocalBackward0, (input,), save_result=True)


def rdiv(input, other):
    """``number / tensor``: PyTorch computes ``reciprocal(tensor) * number``."""
    return mul(reciprocal(input), other)


class PowBackward1(Node):
    """d(a ** b) = (grad * b * a ** (b - 1), grad * a ** b * log(a))."""

    def backward(self, grad):
        self_, exponent, result = self.saved_tensors
        wants_self, wants_exponent = self.needs_input_grad
        from .pointwise import log, where
        grad_self = None
        if wants_self:  # a ** 0 is constant, even at a = 0 where a ** -1 is inf
            grad_self = where(exponent == 0, 0.0, grad * exponent * self_ ** (exponent - 1))
        grad_exponent = None
        if wants_exponent:
            # 0 ** b has no log; PyTorch defines that gradient as 0 where b >= 0.
            zero_base = (self_ == 0) & (exponent >= 0)
            grad_exponent = where(zero_base, 0.0, grad * result * log(where(zero_base, 1.0, self_)))
        return grad_self, grad_exponent


class PowBackward2(Node):
    """d(c ** b) = grad * c ** b * log(c) for a number c (0 where c = 0 and b >= 0, as PyTorch)."""

    def backward(self, grad):
        exponent, result = self.saved_tensors
        if self.base == 0:
            from .pointwise import where
            return (where(exponent >= 0, 0.0, grad * result * -np.inf),)
        # log of a negative base is nan, as numpy and PyTorch have it (math.log would raise).
        return (grad * result * (math.log(self.base) if self.base > 0 else math.nan),)


def _power_of_number(xp, base, exponent):
    """``base ** exponent`` for a number ``exponent`` as ATen's CPU kernel computes it for float and
    double (``pow_tensor_scalar_kernel`` in ``aten/src/ATen/native/cpu/PowKernel.cpp``; ``pow_out``
    in ``Pow.cpp`` answers 0 and 1 without computing): the exponents it special-cases are products,
    quotients and square roots that round as their formulas do (``x ** 3`` is ``x * x * x``, which
    libm's ``pow`` is not); the others go to ``pow``."""
    value = float(exponent)
    if base.dtype not in (np.float32, np.float64) or value not in _POWER_FORMULAS:
        return xp.power(base, exponent)
    return _POWER_FORMULAS[value](xp, base, base.dtype.type(1))


_POWER_FORMULAS = {
    0.0: lambda xp, x, one: xp.full_like(x, one),
    1.0: lambda xp, x, one: x.copy(),
    0.5: lambda xp, x, one: xp.sqrt(x),
    -0.5: lambda xp, x, one: one / xp.sqrt(x),
    -1.0: lambda xp, x, one: one / x,
    2.0: lambda xp, x, one: x * x,
    3.0: lambda xp, x, one: x * x * x,
    -2.0: lambda xp, x, one: one / (x * x),
}


def pow(input, exponent):
    """``input ** exponent``; either side may be a number."""
    dtype = result_type(input, exponent)
    if dtype is _dtype.bool:
        # PyTorch answers t ** 0 and t ** 1 without computing (ones, a copy), even for bools.
        if isinstance(input, Tensor) and not isinstance(exponent, Tensor) and exponent in (0, 1):
            return wrap(array_module(input._device).ones_like(input._data) if exponent == 0 else input._data.copy(), input)
        raise NotImplementedError('"pow" not implemented for \'Bool\'; convert first, e.g. t.int()')
    # 0 ** -1 and (-1) ** 0.5 give inf and nan quietly, as in PyTorch.
    if isinstance(exponent, Tensor) and isinstance(input, Tensor):
        out = wrap(_binary("power", input, exponent, dtype, quiet=True), input)
        return record(out, PowBackward1, (input, exponent), saved=(input, exponent),
                      save_result=True)
    if isinstance(input, Tensor):
        if not dtype.is_floating_point and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        quiet = exponent < 0 or not float(exponent).is_integer()
        out = wrap(_binary(_power_of_number, input, exponent, dtype, quiet=quiet), input)
        return record(out, PowBackward0, (input,), saved=(input,), exponent=exponent)
    out = wrap(_binary("power", input, exponent, dtype, quiet=True), exponent)
    return record(out, PowBackward2, (exponent,), saved=(exponent,), save_result=True, base=input)


def neg(input):
    """``-x``; ``negative`` is its alias and a bool tensor raises, as in PyTorch (``torch.neg``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    if input._dtype is _dtype.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. Use "
                           "the `~` or `logical_not()` operator instead.")
    out = wrap(array_module(input._device).negative(input._data), input)
    return record(out, NegBackward0, (input,))


def _comparison(ufunc):
    def compare(input, other):
        dtype = result_type(input, other)
        return wrap(_binary(ufunc, input, other, dtype), _like(input, other))
    compare.__name__ = ufunc
    compare.__doc__ = f"Elementwise ``{ufunc}`` giving a bool tensor (never differentiable)."
    return compare


eq = _comparison("equal")
ne = _comparison("not_equal")
lt = _comparison("less")
le = _comparison("less_equal")
gt = _comparison("greater")
ge = _comparison("greater_equal")


def _check_tensor_argument(name, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` elementwise (``at::isclose``); never differentiable."""
    _check_tensor_argument("isclose", other)
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{input._dtype._legacy_name[:-6]} did not match "
                           f"{other._dtype._legacy_name[:-6]}")
    if rtol < 0 or atol < 0:
        which, value = ("rtol", rtol) if rtol < 0 else ("atol", atol)
        raise RuntimeError(f"{which} must be greater than or equal to zero, but got {value}")
    xp = array_module(input._device)
    a, b = input._data, other._data
    try:
        close = a == b
    except ValueError:
        raise broadcast_error(a, b) from None
    if equal_nan and input._dtype.is_floating_point:
        close = close | (xp.isnan(a) & xp.isnan(b))
    if rtol or atol:
        # Like PyTorch, bools are compared as the default float dtype and the tolerance is computed
        # in the operands' precision (numpy's float16 arithmetic rounds each step as PyTorch's does).
        if input._dtype is _dtype.bool:
            a = a.astype(_dtype.get_default_dtype().numpy)
            b = b.astype(a.dtype)
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf
            error = xp.abs(a - b)
            close = close | (xp.isfinite(error) & (error <= atol + xp.abs(rtol * b)))
    return wrap(close, input)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when :func:`isclose` holds everywhere."""
    _check_tensor_argument("allclose", other)
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other):
    """True when both have the same shape and the same values (nan is never equal)."""
    _check_tensor_argument("equal", other)
    return input._data.shape == other._data.shape and bool(array_module(input._device).array_equal(input._data, other._data))


def _logical(ufunc):
    def combine(input, other):
        dtype = result_type(input, other)
        if dtype.is_floating_point:
            raise NotImplementedError(f'"{ufunc}" not implemented for '
                                      f"'{dtype._legacy_name[:-6]}': only integer and bool tensors")
        return wrap(_binary(ufunc, input, other, dtype), _like(input, other))
    combine.__name__ = ufunc
    combine.__doc__ = (f"Elementwise ``{ufunc}`` of integer or bool tensors (or numbers) (``torch.{ufunc}``, "
                       "``aten/src/ATen/native/BinaryOps.cpp``).")
    return combine


bitwise_and = _logical("bitwise_and")
bitwise_or = _logical("bitwise_or")
bitwise_xor = _logical("bitwise_xor")


def bitwise_not(input):
    """Elementwise NOT of an integer or bool tensor, ``~x`` (``torch.bitwise_not``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    if input._dtype.is_floating_point:
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for '
                                  f"'{input._dtype._legacy_name[:-6]}'")
    return wrap(array_module(input._device).invert(input._data), input)


def invert(input):
    """``~x``: :func:`bitwise_not`, refused for floating point tensors with a TypeError first
    (``torch/_tensor.py``'s ``__invert__`` check)."""
    if input._dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(input)

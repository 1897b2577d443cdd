"""``+ - * / **`` and negation (``aten/src/ATen/native/BinaryOps.cpp``), each forward next to its
node, whose derivative is PyTorch's (``tools/autograd/derivatives.yaml``).  A node returns
gradients at the *broadcast* shape; the engine sums each back to its input's shape.  A Python
number is no part of the graph: its slot in ``next_functions`` is ``(None, 0)``."""
import builtins
import numbers

from .. import _dtype
from .._device import array_module_of
from .._tensor import Tensor, bind
from ..autograd.graph import Node
from ._common import record

__all__ = ["result_type", "add", "sub", "rsub", "mul", "div", "reciprocal", "pow", "neg"]


def _scalar_dtype(value):
    if isinstance(value, builtins.bool):
        return _dtype.bool
    if isinstance(value, numbers.Integral):
        return _dtype.int64
    if isinstance(value, numbers.Real):
        return _dtype.get_default_dtype()
    raise TypeError(f"unsupported operand type {type(value).__name__}: expected a Tensor or a number")


def _combine(higher, lower):
    """Two groups' dtypes (``aten/src/ATen/native/TypeProperties.cpp``): the lower one only counts
    when it brings a higher category (bool < int < float)."""
    if higher is None:
        return lower
    if lower is None or higher.is_floating_point:
        return higher
    if higher is _dtype.bool or lower.is_floating_point:
        return _dtype.promote_types(higher, lower)
    return higher


def result_type(*operands):
    """The dtype an op on these tensors and numbers computes in (``torch.result_type``,
    ``aten/src/ATen/native/TypeProperties.cpp``): dimensioned tensors outrank 0-d tensors, which
    outrank Python numbers; a lower group counts only if it brings a higher category."""
    dimensioned = zero_dim = wrapped = None
    for op in operands:
        if isinstance(op, Tensor):
            d = op._dtype
            if op._data.ndim:
                dimensioned = d if dimensioned is None else _dtype.promote_types(dimensioned, d)
            else:
                zero_dim = d if zero_dim is None else _dtype.promote_types(zero_dim, d)
        else:
            d = _scalar_dtype(op)
            wrapped = d if wrapped is None else _dtype.promote_types(wrapped, d)
    return _combine(dimensioned, _combine(zero_dim, wrapped))


def _operands(input, other, dtype=None):
    """Both operands as arrays (or numpy numbers) of the result's dtype, and the result's device."""
    dtype = dtype or result_type(input, other)
    arrays = [x._data.astype(dtype.numpy, copy=False) if isinstance(x, Tensor) else dtype.numpy.type(x)
              for x in (input, other)]
    return arrays, (input if isinstance(input, Tensor) else other)._device


def _tensor_or_none(x):
    return x if isinstance(x, Tensor) else None


class AddBackward0(Node):
    """d(a + alpha*b) = (grad, alpha*grad)."""
    def backward(self, grad):
        return grad, (grad if self.alpha == 1 else grad * self.alpha)


def add(input, other, *, alpha=1):
    """``input + alpha * other``, broadcast.  ``import nnref`` binds ``nnref/_ops/arithmetic.py:add``
    here: all of PyTorch's argument forms, promotion, fused alpha, ``out=``."""
    (a, b), device = _operands(input, other)
    out = Tensor._make(a + b * alpha if alpha != 1 else a + b, device)
    return record(out, AddBackward0, (_tensor_or_none(input), _tensor_or_none(other)), alpha=alpha)


class SubBackward0(Node):
    """d(a - alpha*b) = (grad, -alpha*grad)."""
    def backward(self, grad):
        return grad, -grad if self.alpha == 1 else grad * -self.alpha


def sub(input, other, *, alpha=1):
    """``input - alpha * other``.  ``import nnref`` binds ``nnref/_ops/arithmetic.py:sub`` here."""
    (a, b), device = _operands(input, other)
    out = Tensor._make(a - b * alpha if alpha != 1 else a - b, device)
    return record(out, SubBackward0, (_tensor_or_none(input), _tensor_or_none(other)), alpha=alpha)


class RsubBackward1(Node):
    """d(number - alpha*a) = -alpha*grad."""
    def backward(self, grad):
        return (grad * -self.alpha,)


def rsub(input, other):
    """``other - input`` for a number ``other`` (``2 - t``).  ``import nnref`` binds
    ``nnref/_ops/arithmetic.py:rsub`` here."""
    (a, b), device = _operands(input, other)
    return record(Tensor._make(b - a, device), RsubBackward1, (input,), alpha=1)


class MulBackward0(Node):
    """d(a * b) = (grad * b, grad * a)."""
    def backward(self, grad):
        self_, other = self.saved_tensors
        wants_self, wants_other = self.needs_input_grad
        other_value = other if other is not None else self.scalar
        return (grad * other_value if wants_self else None,
                grad * self_ if wants_other else None)


def mul(input, other):
    """``input * other``, broadcast.  ``import nnref`` binds ``nnref/_ops/arithmetic.py:mul`` here."""
    (a, b), device = _operands(input, other)
    x, y = _tensor_or_none(input), _tensor_or_none(other)
    return record(Tensor._make(a * b, device), MulBackward0, (x, y), (x, y),
                  scalar=other if y is None else None)


class DivBackward0(Node):
    """d(a / b) = (grad / b, -grad * a / b**2)."""
    def backward(self, grad):
        self_, other = self.saved_tensors
        wants_self, wants_other = self.needs_input_grad
        other_value = other if other is not None else self.scalar
        self_value = self_ if self_ is not None else self.self_scalar  # div(3.0, t)
        return (grad / other_value if wants_self else None,
                -grad * self_value / (other * other) if wants_other else None)


def div(input, other):
    """True division (integers give the default float dtype).  ``import nnref`` binds
    ``nnref/_ops/arithmetic.py:div`` here (``rounding_mode=``)."""
    dtype = result_type(input, other)
    (a, b), device = _operands(input, other, dtype if dtype.is_floating_point else _dtype.get_default_dtype())
    x, y = _tensor_or_none(input), _tensor_or_none(other)
    return record(Tensor._make(a / b, device), DivBackward0, (x, y), (x, y),
                  scalar=other if y is None else None, self_scalar=input if x is None else None)


class ReciprocalBackward0(Node):
    """d(1/a) = -grad / a**2 = -grad * result**2."""
    def backward(self, grad):
        (result,) = self.saved_tensors
        return (-grad * result * result,)


def reciprocal(input):
    """``1 / input``.  ``import nnref`` binds ``nnref/_ops/arithmetic.py:reciprocal`` here."""
    (a, one), device = _operands(input, 1.0)
    return record(Tensor._make(one / a, device), ReciprocalBackward0, (input,), save_result=True)


def _rdiv(input, other):
    """``number / tensor``: PyTorch computes ``reciprocal(tensor) * number``."""
    return mul(reciprocal(input), other)


class PowBackward0(Node):
    """d(a ** c) = grad * c * a ** (c - 1) for a number c."""
    def backward(self, grad):
        (self_,) = self.saved_tensors
        if self.exponent == 0:  # zeros, not grad * 0 (-0 or NaN for some gradients)
            return (Tensor._make(array_module_of(self_._data).zeros_like(self_._data), self_._device),)
        return (grad * (self.exponent * self_ ** (self.exponent - 1)),)


def pow(input, exponent):
    """``input ** exponent`` for a number ``exponent``.  ``import nnref`` binds
    ``nnref/_ops/arithmetic.py:pow`` here (tensor exponents, a number base)."""
    (a, c), device = _operands(input, exponent)
    return record(Tensor._make(a ** c, device), PowBackward0, (input,), (input,), exponent=exponent)


class NegBackward0(Node):
    """d(-a) = -grad."""
    def backward(self, grad):
        return (-grad,)


def neg(input):
    """``-input``.  ``import nnref`` binds ``nnref/_ops/arithmetic.py:neg`` here."""
    return record(Tensor._make(-input._data, input._device), NegBackward0, (input,))


bind(add=add, sub=sub, mul=mul, div=div, pow=pow, neg=neg, reciprocal=reciprocal,
     __add__=add, __radd__=add, __sub__=sub, __rsub__=rsub, __mul__=mul, __rmul__=mul,
     __truediv__=div, __rtruediv__=_rdiv, __pow__=pow, __neg__=neg)

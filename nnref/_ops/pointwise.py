"""Elementwise functions (exp, log, tanh, relu, clamp, where, ...), forward next to backward.

Mirrors ``aten/src/ATen/native/UnaryOps.cpp`` (``clamp``, ``where``, ``maximum``,
``minimum``: ``TensorCompare.cpp`` and ``BinaryOps.cpp``; ``masked_fill``:
``TensorAdvancedIndexing.cpp``).

Functions whose derivative is cheapest in terms of their own output
(``exp``, ``sqrt``, ``tanh``, ``sigmoid``, ``relu``) save the result rather
than the input, as PyTorch does (derivatives.yaml: ``result``).
"""
import builtins

import numpy as np

from ..core import _dtype
from ..core._device import array_module, array_module_of
from .._type_info import checked_scalar
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import (broadcast_error, check_same_device, float_data, needs_grad, operand_data,
                      record, result_type, wrap)
from .select import select_or_zero
from ..core._ops import pointwise as _core_pointwise
from ..core._seams import install
from ..core._ops.pointwise import (ExpBackward0, LogBackward0, ReluBackward0, SigmoidBackward0,
                                   SqrtBackward0, TanhBackward0)


def _unary(func, node_class, input, *, save_input=False, save_result=False):
    out = wrap(func(float_data(input)), input)
    return record(out, node_class, (input,), saved=(input,) if save_input else (),
                  save_result=save_result)


def exp(input):
    """``e ** x`` elementwise (``torch.exp``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    xp = array_module(input._device)
    return _unary(xp.exp, ExpBackward0, input, save_result=True)


def log(input):
    """The natural logarithm; ``log(0) = -inf`` and a negative input gives ``nan``, without a
    warning (``torch.log``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    xp = array_module(input._device)
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) = -inf, log(-1) = nan, as in PyTorch
        return _unary(xp.log, LogBackward0, input, save_input=True)


def sqrt(input):
    """The square root; a negative input gives ``nan`` (``torch.sqrt``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    xp = array_module(input._device)
    with np.errstate(invalid="ignore"):
        return _unary(xp.sqrt, SqrtBackward0, input, save_result=True)


class SinBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * cos(self_),)


def sin(input):
    """The sine, in radians (``torch.sin``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    xp = array_module(input._device)
    return _unary(xp.sin, SinBackward0, input, save_input=True)


class CosBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * -sin(self_),)


def cos(input):
    """The cosine, in radians (``torch.cos``, ``aten/src/ATen/native/UnaryOps.cpp``)."""
    xp = array_module(input._device)
    return _unary(xp.cos, CosBackward0, input, save_input=True)


class ZeroGradient(Node):
    """Flat almost everywhere (rounding): the gradient is zero (derivatives.yaml: ``zeros_like``)."""

    def backward(self, grad):
        from .._creation import zeros_like
        return (zeros_like(grad),)


class RoundBackward0(ZeroGradient):
    pass


class RoundBackward1(RoundBackward0):
    pass


def _round_decimals(data, decimals, dtype):
    """PyTorch's ``round_decimals_kernel``: scale, round half to even, scale back, in opmath precision."""
    xp = array_module_of(data)
    data = data.astype(dtype._accumulate, copy=False)
    scale = dtype._accumulate.type(10.0 ** builtins.abs(decimals))
    rounded = xp.rint(data * scale) / scale if decimals > 0 else xp.rint(data / scale) * scale
    return rounded.astype(dtype.numpy, copy=False)


def round(input, *, decimals=None):
    """Round half to even; ``decimals`` digits after the point (floating point tensors only)."""
    if input._dtype is _dtype.bool or (decimals is not None and not input._dtype.is_floating_point):
        raise NotImplementedError(f'"round_cpu" not implemented for \'{input._dtype._legacy_name[:-6]}\'')
    if decimals is None:
        xp = array_module(input._device)
        out = wrap(xp.rint(input._data) if input._dtype.is_floating_point else input._data.copy(), input)
        node_class = RoundBackward0
    else:
        out = wrap(_round_decimals(input._data, decimals, input._dtype), input)
        node_class = RoundBackward1
    return record(out, node_class, (input,))


class AbsBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * sign(self_),)


def abs(input):
    """The absolute value, in the input's dtype (``torch.abs``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    xp = array_module(input._device)
    if not input._dtype.is_floating_point:
        return wrap(xp.abs(input._data), input)
    return _unary(xp.abs, AbsBackward0, input, save_input=True)


class SignBackward0(ZeroGradient):
    pass


def sign_data(data):
    """PyTorch's sign of a number array: ``(0 < x) - (x < 0)``, so NaN and -0.0 give +0.0
    (``np.sign`` gives NaN and -0.0)."""
    if data.dtype == bool:
        return data.copy()
    xp = array_module_of(data)
    with np.errstate(invalid="ignore"):  # ml_dtypes' bfloat16 warns comparing NaN
        return xp.subtract(xp.greater(data, 0), xp.less(data, 0), dtype=data.dtype)


def sign(input):
    """-1, 0 or 1 by the sign of each element, 0 for NaN; its gradient is zero (``torch.sign``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    out = wrap(sign_data(input._data), input)
    return record(out, SignBackward0, (input,))


def tanh(input):
    """The hyperbolic tangent; backward reuses the output, ``1 - tanh(x)**2`` (``torch.tanh``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    xp = array_module(input._device)
    return _unary(xp.tanh, TanhBackward0, input, save_result=True)


def _sigmoid(x):
    # exp(-|x|) never overflows; pick the algebraically equal form per sign.
    xp = array_module_of(x)
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def sigmoid(input):
    """``1 / (1 + exp(-x))``; backward reuses the output, ``s * (1 - s)`` (``torch.sigmoid``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _unary(_sigmoid, SigmoidBackward0, input, save_result=True)


class ThresholdBackwardBackward0(Node):
    """``threshold_backward`` is linear in ``grad_output`` (its gradient is the same masking) and
    flat in ``self`` (derivatives.yaml: ``zeros_like(grad)``)."""

    def backward(self, grad):
        from .._creation import zeros_like
        (self_,) = self.saved_tensors
        wants_grad_output, wants_self = self.needs_input_grad
        return (threshold_backward(grad, self_, self.threshold) if wants_grad_output else None,
                zeros_like(grad) if wants_self else None)


def threshold_backward(grad_output, input, threshold):
    """``grad_output`` where ``input > threshold`` (and where it is NaN), +0 elsewhere.

    ReLU's backward as one op, as in PyTorch (``aten/src/ATen/native/Activation.cpp``), and a
    select as there: +0 where an element was dropped, even for a negative or infinite gradient.
    """
    keep = ~(input._data <= threshold)  # a NaN input passes its gradient, as in PyTorch
    data = select_or_zero(keep, grad_output._data)
    return record(wrap(data, grad_output), ThresholdBackwardBackward0, (grad_output, input),
                  saved=(input,), threshold=threshold)


install(_core_pointwise, "threshold_backward", threshold_backward)  # ReluBackward0 calls it


def relu(input):
    """``max(x, 0)`` elementwise (``torch.relu``, ``aten/src/ATen/native/Activation.cpp``)."""
    xp = array_module(input._device)
    if not input._dtype.is_floating_point:
        return wrap(xp.maximum(input._data, 0), input)
    out = wrap(clip_floats(input._data, input._dtype.numpy.type(0), None), input)
    return record(out, ReluBackward0, (input,), save_result=True)


def masked_grad(grad, keep):
    """``where(keep, grad, 0)`` (``keep`` a bool array), PyTorch's derivative formula for the
    clamps: a tensor op when the gradient is itself differentiated (``create_graph=True``),
    else an exact select on the arrays."""
    if needs_grad(grad):
        return where(wrap(keep, grad), grad, 0.0)
    return wrap(select_or_zero(keep, grad._data), grad)


class ClampBackward1(Node):
    """Gradient passes where ``min <= x <= max``, is +0 where clamped (``clamp_backward``)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        inside = self_._data == self_._data  # all True, nan excluded
        if self.min is not None:
            inside = inside & (self_._data >= self.min)
        if self.max is not None:
            inside = inside & (self_._data <= self.max)
        return (masked_grad(grad, inside),)


class ClampBackward0(Node):
    """``clamp`` with tensor bounds (``clamp_backward`` and ``clamp_backward_min_max`` in
    ``torch/csrc/autograd/FunctionsManual.cpp``): the input's gradient passes where
    ``min <= x <= max``; ``min`` gets it where ``x < min`` (and ``min < max``), ``max`` where
    ``x > max`` (or ``max < min``, where the result is ``max``); each is +0 elsewhere."""

    def backward(self, grad):
        self_, low, high = (None if t is None else t._data for t in self.saved_tensors)
        wants_self, wants_min, wants_max = self.needs_input_grad
        if low is not None and high is not None:
            passes = (self_ >= low) & (self_ <= high)
            to_min = (self_ < low) & (low < high)
            to_max = (self_ > high) | (high < low)
        else:
            passes = self_ >= low if low is not None else self_ <= high
            to_min, to_max = self_ < low if low is not None else None, self_ > high if high is not None else None
        grads = [masked_grad(grad, passes) if wants_self else None]
        for wanted, mask, bound in ((wants_min, to_min, low), (wants_max, to_max, high)):
            grads.append(masked_grad(grad, mask).sum_to_size(bound.shape) if wanted else None)
        grads[0] = grads[0].sum_to_size(self_.shape) if grads[0] is not None else None
        return tuple(grads)


def _clamp_tensors(input, min, max):
    """``clamp.Tensor``: bounds that are tensors (or None), broadcast against the input."""
    bounds = [v for v in (min, max) if v is not None]
    for bound in bounds:
        if not isinstance(bound, Tensor):
            kinds = ", ".join(f"{name}={type(v).__name__ if not isinstance(v, Tensor) else 'Tensor'}"
                              for name, v in (("max", max), ("min", min)) if v is not None)
            raise TypeError(f"clamp() received an invalid combination of arguments - got (Tensor, {kinds}), "
                            "but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, "
                            "*, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, "
                            "*, Tensor out = None)\nPass both bounds as tensors or both as numbers.")
        check_same_device(input, bound)
    dtype = result_type(input, *bounds)
    data, low, high = (None if v is None else operand_data(v, dtype) for v in (input, min, max))
    xp = array_module(input._device)
    # max(x, min), then min(., max): numpy's give the second operand on a tie, the bound, as
    # PyTorch's vectorised kernel does (clamp(-0.0, min=tensor(0.0)) is 0.0; its scalar loop,
    # for short tails, keeps x), and a NaN on either side wins.
    if low is not None:
        data = xp.maximum(data, low)
    if high is not None:
        data = xp.minimum(data, high)
    return record(wrap(data, input), ClampBackward0, (input, min, max), saved=(input, min, max))


def clamp(input, min=None, max=None):
    """Each element limited to ``[min, max]`` (either bound a number or a tensor, one may be
    ``None``); ``clip`` is its alias (``torch.clamp``, ``aten/src/ATen/native/TensorCompare.cpp``)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensors(input, min, max)
    dtype = result_type(input, *(v for v in (min, max) if v is not None))
    refuse_bool_bounds(dtype, "clamp" if min is not None and max is not None else
                       "clamp_min" if min is not None else "clamp_max")
    data = operand_data(input, dtype)
    xp = array_module(input._device)
    if dtype.is_floating_point:
        data = clip_floats(data, None if min is None else checked_scalar(min, dtype),
                           None if max is None else checked_scalar(max, dtype))
    else:
        if min is not None:
            data = xp.maximum(data, checked_scalar(min, dtype))
        if max is not None:
            data = xp.minimum(data, checked_scalar(max, dtype))
    out = wrap(data, input)
    return record(out, ClampBackward1, (input,), saved=(input,), min=min, max=max)


def refuse_bool_bounds(dtype, kernel):
    """PyTorch's clamp kernels for number bounds have no bool version (tensor bounds do)."""
    if dtype is _dtype.bool:
        raise NotImplementedError(f'"{kernel}_scalar_cpu" not implemented for \'Bool\'')


def clip_floats(data, low, high):
    """Floats limited to ``[low, high]`` (``None``: unbounded), by ``np.clip``: it orders -0 and
    +0 as PyTorch's clamp kernels do (``clamp(-0.0, min=0)`` is -0.0; ``np.maximum`` gives +0.0),
    and is 3x faster than ``np.maximum`` against a number."""
    kind = data.dtype.type
    clipped = array_module_of(data).clip(data, kind(-np.inf) if low is None else low,
                                         kind(np.inf) if high is None else high)
    return clipped.astype(data.dtype, copy=False)  # numpy clips bfloat16 between two bounds in float32


class MaximumBackward0(Node):
    """The larger input gets the gradient; ties split it evenly (as PyTorch does)."""

    def backward(self, grad):
        self_, other = self.saved_tensors
        tie = (self_ == other)
        half = where(tie, grad / 2, grad)
        return (where(self_ < other, 0.0, half), where(self_ > other, 0.0, half))


class MinimumBackward0(Node):
    def backward(self, grad):
        self_, other = self.saved_tensors
        half = where(self_ == other, grad / 2, grad)
        return (where(self_ > other, 0.0, half), where(self_ < other, 0.0, half))


def _extremum(func, node_class, input, other):
    if not isinstance(other, Tensor):  # PyTorch has no number overload of maximum/minimum
        raise TypeError(f"{func.__name__}(): argument 'other' must be Tensor, not {type(other).__name__}")
    check_same_device(input, other)
    dtype = result_type(input, other)
    a, b = operand_data(input, dtype), operand_data(other, dtype)
    try:
        out = wrap(func(a, b), input)
    except ValueError:
        raise broadcast_error(a, b) from None
    return record(out, node_class, (input, other), saved=(input, other))


def maximum(input, other):
    """Elementwise larger of two tensors."""
    xp = array_module(input._device)
    return _extremum(xp.maximum, MaximumBackward0, input, other)


def minimum(input, other):
    """Elementwise smaller of two tensors."""
    xp = array_module(input._device)
    return _extremum(xp.minimum, MinimumBackward0, input, other)


class WhereBackward0(Node):
    def backward(self, grad):
        condition = self.condition
        wants_self, wants_other = self.needs_input_grad
        return (where(condition, grad, 0.0) if wants_self else None,
                where(condition, 0.0, grad) if wants_other else None)


_ONLY_CONDITION = object()


def where(condition, input=_ONLY_CONDITION, other=_ONLY_CONDITION):
    """``input`` where ``condition`` holds, else ``other``; either may be a number.  With the
    condition alone, the indices of its nonzero elements, one tensor per dimension
    (``torch.where(c)`` is ``torch.nonzero(c, as_tuple=True)``)."""
    if input is _ONLY_CONDITION and other is _ONLY_CONDITION:
        return condition.nonzero(as_tuple=True)
    if not isinstance(condition, Tensor):
        given = ", ".join(type(a).__name__ for a in (condition, input, other) if a is not _ONLY_CONDITION)
        raise TypeError(f"where() received an invalid combination of arguments - got ({given}), but "
                        "expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, "
                        "Tensor other, *, Tensor out = None)\n * (Tensor condition, Number self, Tensor other)"
                        "\n * (Tensor condition, Tensor input, Number other)\n * (Tensor condition, "
                        "Number self, Number other)\n")
    if input is _ONLY_CONDITION or other is _ONLY_CONDITION:
        raise TypeError("where() received an invalid combination of arguments: give the condition "
                        "alone (the indices where it holds) or with both `input` and `other`")
    if condition._dtype is not _dtype.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition._dtype.name}; compare first, e.g. where(x > 0, ...)")
    dtype = result_type(input, other)
    a, b = operand_data(input, dtype), operand_data(other, dtype)
    like = input if isinstance(input, Tensor) else other if isinstance(other, Tensor) else condition
    xp = array_module(like._device)
    try:
        data = xp.where(condition._data, a, b)
    except ValueError:
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise broadcast_error(a, b) from None
        raise broadcast_error(condition._data, xp.empty(np.broadcast_shapes(a.shape, b.shape))
                              ) from None
    out = wrap(data, like)
    a_t = input if isinstance(input, Tensor) else None
    b_t = other if isinstance(other, Tensor) else None
    return record(out, WhereBackward0, (a_t, b_t), condition=condition)


class MaskedFillBackward0(Node):
    def backward(self, grad):
        return (masked_fill(grad, self.mask, 0.0),)


def masked_fill(input, mask, value):
    """A copy of ``input`` with ``value`` where ``mask`` is True (mask broadcasts to input)."""
    if mask._dtype is not _dtype.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask._dtype.name}")
    value = value.item() if isinstance(value, Tensor) else value
    xp = array_module(input._device)
    try:
        data = xp.where(mask._data, checked_scalar(value, input._dtype), input._data)
    except ValueError:
        raise broadcast_error(input._data, mask._data) from None
    if data.shape != input._data.shape:
        raise RuntimeError(f"masked_fill: mask of shape {list(mask.shape)} does not broadcast to "
                           f"the input's shape {list(input.shape)}")
    out = wrap(data, input)
    return record(out, MaskedFillBackward0, (input,), mask=mask)


__all__ = ["exp", "log", "sqrt", "sin", "cos", "round", "abs", "sign", "tanh", "sigmoid", "relu", "clamp", "maximum",
           "minimum", "where", "masked_fill"]

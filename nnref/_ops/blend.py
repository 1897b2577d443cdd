"""Ops that blend two or three tensors elementwise: ``atan2``, ``hypot``, ``lerp``, ``addcmul``,
``addcdiv``; and ``nan_to_num`` and ``trace``.

Mirrors ``aten/src/ATen/native/BinaryOps.cpp``, ``PointwiseOps.cpp`` (addcmul, addcdiv),
``Lerp.cpp``, ``UnaryOps.cpp`` (nan_to_num) and ``ReduceOps.cpp`` (trace); the gradients
are those of ``tools/autograd/derivatives.yaml``, written with tensor ops (so they
differentiate again) and summed back to each input's shape where it was broadcast.
"""
import ml_dtypes
import numpy as np

from ..core import _dtype
from .._half import through_float32
from ..core._device import array_module, array_module_of
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import check_same_device, needs_grad, operand_data, record, result_type, wrap
from .fused import fma as _fma

__all__ = ["atan2", "hypot", "lerp", "addcmul", "addcdiv", "nan_to_num", "trace"]


def _floats(*tensors):
    """The inputs' arrays in their common float dtype (integers promote to the default float)."""
    dtype = result_type(*tensors)
    if not dtype.is_floating_point:
        dtype = _dtype.get_default_dtype()
    for t in tensors[1:]:
        check_same_device(tensors[0], t)
    return dtype, [operand_data(t, dtype) for t in tensors]


def _back(grad, shape):
    return grad.sum_to_size(shape) if tuple(grad.shape) != tuple(shape) else grad


class Atan2Backward0(Node):
    def backward(self, grad):
        self_, other = self.saved_tensors
        denominator = self_ * self_ + other * other
        return (_back(grad * other / denominator, self_.shape),
                _back(grad * -self_ / denominator, other.shape))


def atan2(input, other):
    """The angle of the point ``(other, input)``, in ``(-pi, pi]``: ``atan(input / other)`` with quadrants."""
    dtype, (a, b) = _floats(input, other)
    out = wrap(array_module(input._device).arctan2(a, b), input)
    return record(out, Atan2Backward0, (input, other), saved=(input, other))


class HypotBackward0(Node):
    def backward(self, grad):
        self_, other = self.saved_tensors
        result = (self_ * self_ + other * other).sqrt()  # recomputed, so that it differentiates again
        return (_back(grad * self_ / result, self_.shape), _back(grad * other / result, other.shape))


def hypot(input, other):
    """``sqrt(input**2 + other**2)`` without overflow in the squares."""
    if not (input._dtype.is_floating_point and other._dtype.is_floating_point):
        integer = input if not input._dtype.is_floating_point else other
        raise NotImplementedError(f'"hypot_cpu" not implemented for \'{integer._dtype._legacy_name[:-6]}\'; '
                                  "convert the inputs with .float()")
    dtype, (a, b) = _floats(input, other)
    out = wrap(array_module(input._device).hypot(a, b), input)
    return record(out, HypotBackward0, (input, other), saved=(input, other))


class LerpBackward0(Node):
    """``weight`` is a number."""

    def backward(self, grad):
        self_, end = self.saved_tensors
        return (_back(grad * (1 - self.weight), self_.shape), _back(grad * self.weight, end.shape))


class LerpBackward1(Node):
    """``weight`` is a tensor."""

    def backward(self, grad):
        self_, end, weight = self.saved_tensors
        return (_back(grad * (1 - weight), self_.shape), _back(grad * weight, end.shape),
                _back(grad * (end - self_), weight.shape))


def _lerp(start, end, weight):
    """ATen's formula (``aten/src/ATen/native/cpu/LerpKernel.cpp``, ``lerp_vec``): from ``start``
    for small weights, from ``end`` for large ones, so that a weight of 1 gives ``end`` exactly,
    each a fused multiply-add."""
    xp = array_module_of(start)
    difference = end - start
    small = xp.abs(weight) < 0.5
    return _fma(xp.where(small, weight, weight - 1), difference, xp.where(small, start, end))


def lerp(input, end, weight):
    """``input + weight * (end - input)``: from ``input`` (weight 0) to ``end`` (weight 1)."""
    if not input._dtype.is_floating_point or input._dtype != end._dtype:
        if not input._dtype.is_floating_point:
            raise NotImplementedError(f'"lerp_kernel_scalar" not implemented for '
                                      f"'{input._dtype._legacy_name[:-6]}'; convert the inputs with .float()")
        raise RuntimeError(f"expected dtype {input._dtype} for `end` but got dtype {end._dtype}")
    xp = array_module(input._device)
    check_same_device(input, end)
    # ATen lerps 16-bit floats in float32 (its op-math type), the weight read straight into it
    opmath = input._dtype._accumulate
    start, stop = input._data.astype(opmath, copy=False), end._data.astype(opmath, copy=False)
    if isinstance(weight, Tensor):
        check_same_device(input, weight)
        data = _lerp(start, stop, operand_data(weight, input._dtype).astype(opmath, copy=False))
        out = wrap(xp.asarray(data, dtype=input._data.dtype), input)
        return record(out, LerpBackward1, (input, end, weight), saved=(input, end, weight))
    data = _lerp(start, stop, opmath.type(weight))
    out = wrap(xp.asarray(data, dtype=input._data.dtype), input)
    return record(out, LerpBackward0, (input, end), saved=(input, end), weight=weight)


class AddcmulBackward0(Node):
    def backward(self, grad):
        self_, tensor1, tensor2 = self.saved_tensors
        return (_back(grad, self_.shape), _back(grad * tensor2 * self.value, tensor1.shape),
                _back(grad * tensor1 * self.value, tensor2.shape))


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (Adam's update is built from these); integers stay integers."""
    dtype = result_type(input, tensor1, tensor2)
    check_same_device(input, tensor1)
    check_same_device(input, tensor2)
    a, b, c = (operand_data(t, dtype) for t in (input, tensor1, tensor2))
    if dtype.is_floating_point:
        # ATen computes self + (value * t1) * t2 in the op-math type (float32 for 16-bit floats)
        # with one fused multiply-add, then rounds to the dtype.
        opmath = dtype._accumulate
        a, b, c = (x.astype(opmath, copy=False) for x in (a, b, c))
        data = _fma(opmath.type(value) * b, c, a).astype(dtype.numpy, copy=False)
    else:
        data = a + dtype.numpy.type(value) * b * c
    out = wrap(array_module(input._device).asarray(data, dtype=dtype.numpy), input)
    return record(out, AddcmulBackward0, (input, tensor1, tensor2),
                  saved=(input, tensor1, tensor2), value=value)


class AddcdivBackward0(Node):
    def backward(self, grad):
        self_, tensor1, tensor2 = self.saved_tensors
        return (_back(grad, self_.shape), _back(grad * self.value / tensor2, tensor1.shape),
                _back(-grad * self.value * tensor1 / (tensor2 * tensor2), tensor2.shape))


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``."""
    if not (tensor1._dtype.is_floating_point or tensor2._dtype.is_floating_point):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future "
                           "release addcdiv will perform a true division of tensor1 and tensor2. The "
                           "historic addcdiv behavior can be implemented as (input + value * "
                           "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                           "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                           "behavior is just the latter implementation: (input + value * tensor1 / "
                           "tensor2), for all dtypes.")
    dtype, (a, b, c) = _floats(input, tensor1, tensor2)
    opmath = dtype._accumulate  # ATen's op-math type: float32 for 16-bit floats, rounded once at the end
    with np.errstate(divide="ignore", invalid="ignore"):
        data = a.astype(opmath, copy=False) + opmath.type(value) * b.astype(opmath, copy=False) / c.astype(opmath, copy=False)
    out = wrap(array_module(input._device).asarray(data, dtype=dtype.numpy), input)
    return record(out, AddcdivBackward0, (input, tensor1, tensor2),
                  saved=(input, tensor1, tensor2), value=value)


class NanToNumBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * wrap(array_module(grad._device).isfinite(self_._data), grad),)


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN replaced by ``nan`` (default 0), infinities by ``posinf``/``neginf`` (default: the
    dtype's extremes); None means the default, as in PyTorch's schema."""
    nan = 0.0 if nan is None else nan
    xp = array_module(input._device)
    if not input._dtype.is_floating_point:
        return wrap(input._data.copy(), input)
    x = input._data
    # (not numpy's nan_to_num: it leaves bfloat16 as it is and rounds float16's replacements once)
    kind, largest = x.dtype.type, ml_dtypes.finfo(x.dtype).max
    posinf = largest if posinf is None else kind(through_float32(posinf, x.dtype))
    neginf = -largest if neginf is None else kind(through_float32(neginf, x.dtype))
    data = xp.where(xp.isnan(x), kind(through_float32(nan, x.dtype)),
                    xp.where(x == np.inf, posinf, xp.where(x == -np.inf, neginf, x)))
    out = wrap(xp.asarray(data, dtype=x.dtype), input)
    return record(out, NanToNumBackward0, (input,), saved=(input,))


class TraceBackward0(Node):
    def backward(self, grad):
        from .._creation import eye
        rows, columns = self.self_sizes
        return (eye(rows, columns, dtype=grad.dtype, device=grad.device) * grad,)


def trace(input):
    """The sum of the main diagonal of a matrix."""
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    xp = array_module(input._device)
    data = xp.trace(input._data)
    if not input._dtype.is_floating_point:
        data = data.astype("int64")  # integer traces are int64, as sums are
    out = wrap(xp.asarray(data), input)
    if needs_grad(input):
        out.grad_fn = TraceBackward0((input,), self_sizes=tuple(input._data.shape))
    return out


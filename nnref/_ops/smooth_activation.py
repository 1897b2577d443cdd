"""``logsigmoid``, ``mish``, ``hardswish``, ``hardsigmoid``, ``glu`` and ``pad``: kernels with their
backward nodes, the gradients written with tensor ops so that they differentiate again.

Mirrors ``aten/src/ATen/native/Activation.cpp`` (and its CPU kernels), ``GatedLinearUnit.cpp``
``PadNd.cpp`` (``constant_pad_nd``) and ``UpSampleNearest*d.cpp``; the formulas are those of
``tools/autograd/derivatives.yaml`` (``log_sigmoid_backward``, ``mish_backward``,
``hardswish_backward``, ``hardsigmoid_backward``, ``glu_backward``, ``constant_pad_nd``).
"""
import numpy as np

from .._type_info import checked_scalar
from ..core._device import array_module
from ..core._tensor import _wrap_dim
from ..core.autograd.graph import Node
from ._common import NotImplemented  # noqa: A004 - PyTorch's name
from ._common import float_input, needs_grad, record, wrap
from .fused import fma
from .native import _opmath
from .pointwise import masked_grad, where
from .select import select_or_zero
from .shape import cat

__all__ = ["logsigmoid", "mish", "hardswish", "hardsigmoid", "glu", "constant_pad_nd", "upsample_nearest"]


class LogSigmoidBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (grad * (-self_).sigmoid(),)


def logsigmoid(input):
    """``log(sigmoid(x))``, computed as ``min(x, 0) - log1p(exp(-|x|))`` so that it never overflows."""
    x = float_input("log_sigmoid_forward", input)
    xp = array_module(input._device)
    data = xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))
    out = wrap(data.astype(x.dtype, copy=False), input)
    return record(out, LogSigmoidBackward0, (input,), saved=(input,))


def _softplus(x):
    """``log(1 + exp(x))`` from differentiable ops (PyTorch's threshold 20: linear above it)."""
    return where(x > 20, x, x.clamp_max(20).exp().log1p())


class MishBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        tanh_softplus = _softplus(self_).tanh()
        return (grad * (tanh_softplus + self_ * self_.sigmoid() * (1 - tanh_softplus * tanh_softplus)),)


def mish(input):
    """``x * tanh(softplus(x))`` (Misra, 2019)."""
    x = float_input("mish_cpu", input)
    xp = array_module(input._device)
    with np.errstate(over="ignore"):
        softplus = xp.where(x > 20, x, xp.log1p(xp.exp(xp.minimum(x, 20))))
    data = x * xp.tanh(softplus)
    out = wrap(data.astype(x.dtype, copy=False), input)
    return record(out, MishBackward0, (input,), saved=(input,))


class HardswishBackward0(Node):
    """``grad * (x / 3 + 1/2)`` inside ``(-3, 3)``, ``grad`` from 3 up, +0 at -3 and below (a
    select, as ``hardswish_backward``'s kernel)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        slope = where(self_ >= 3, 1.0, self_ / 3 + 0.5)  # NaN where x is (PyTorch's vector loop)
        return (masked_grad(grad * slope, ~(self_._data <= -3)),)


def hardswish(input):
    """``x * relu6(x + 3) / 6`` (MobileNetV3)."""
    x = float_input("hardswish_cpu", input)
    xp = array_module(input._device)
    data = x * xp.clip(x + 3, 0, 6) / 6
    out = wrap(data.astype(x.dtype, copy=False), input)
    return record(out, HardswishBackward0, (input,), saved=(input,))


class HardsigmoidBackward0(Node):
    """PyTorch defines no derivative of this backward: under ``create_graph`` the gradient
    requires grad, and differentiating it raises."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        x, g = self_._data, _opmath(grad._data)
        # The kernel's 1/6 is a float constant, in float64 too (``1.0f / 6.0f``).
        sixth = g * g.dtype.type(np.float32(1 / 6))
        data = select_or_zero((x > -3) & (x < 3), sixth)
        result = wrap(data.astype(grad._data.dtype, copy=False), grad)
        if needs_grad(grad, self_):
            result.grad_fn = NotImplemented("hardsigmoid_backward", (grad, self_))
        return (result,)


def hardsigmoid(input):
    """``relu6(x + 3) / 6``."""
    x = float_input("hardsigmoid_cpu", input)
    xp = array_module(input._device)
    data = xp.clip(x + 3, 0, 6) / 6
    out = wrap(data.astype(x.dtype, copy=False), input)
    return record(out, HardsigmoidBackward0, (input,), saved=(input,))


class GluBackward0(Node):
    def backward(self, grad):
        (self_,) = self.saved_tensors
        first, second = self_.chunk(2, self.dim)
        gate = second.sigmoid()
        return (cat([grad * gate, grad * first * gate * (1 - gate)], self.dim),)


def glu(input, dim=-1):
    """The gated linear unit: the first half of ``dim`` times the sigmoid of the second half."""
    x = float_input("glu", input)
    if not x.ndim:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = _wrap_dim(dim, x.ndim)
    if x.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {x.shape[dim]}")
    xp = array_module(input._device)
    first, second = xp.split(x, 2, axis=dim)
    data = first / (1 + xp.exp(-second))
    out = wrap(data.astype(x.dtype, copy=False), input)
    return record(out, GluBackward0, (input,), saved=(input,), dim=dim)


class ConstantPadNdBackward0(Node):
    def backward(self, grad):
        return (constant_pad_nd(grad, [-p for p in self.pad]),)


def constant_pad_nd(input, pad, value=0):
    """``pad = (left, right)`` for the last dim, then the one before, ...; negative values crop."""
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > input._data.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the "
                           f"input. Pad length is {len(pad)} while the input has {input._data.ndim} dimensions.")
    xp = array_module(input._device)
    data = input._data
    widths = [(0, 0)] * data.ndim
    crops = [slice(None)] * data.ndim
    for k in range(len(pad) // 2):
        axis = data.ndim - 1 - k
        before, after = pad[2 * k], pad[2 * k + 1]
        size = data.shape[axis] + before + after
        if size < 0:
            raise RuntimeError(f"The input size {data.shape[axis]}, plus negative padding {before} and "
                               f"{after} resulted in a negative output size, which is invalid. Check "
                               f"dimension {axis} of your input.")
        widths[axis] = (max(before, 0), max(after, 0))
        crops[axis] = slice(max(-before, 0), data.shape[axis] - max(-after, 0))
    cropped = data[tuple(crops)]
    out = wrap(xp.pad(cropped, widths, constant_values=checked_scalar(value, input._dtype)), input)
    return record(out, ConstantPadNdBackward0, (input,), pad=pad)


def _nearest_source(input_size, output_size, scale, xp, exact=False):
    """ATen's ``nearest_idx`` (or, with ``exact``, ``HelperInterpNearestExact``, which floors the
    centre ``(i + 0.5) * scale`` instead of ``i * scale``): the input position each output
    position copies."""
    positions = xp.arange(output_size)
    if output_size == input_size:
        return positions
    if output_size == 2 * input_size and not exact:
        return positions >> 1
    step = np.float32(1.0 / scale) if scale else np.float32(input_size / output_size)
    if exact:
        # area_pixel_compute_source_index, scale * (i + 0.5) - 0.5 rounded once where PyTorch's kernel
        # is compiled with FMA contraction, clamped at 0, then rounded half up: floorf(x + 0.5).
        centre = fma(positions.astype(np.float32) + np.float32(0.5), step, np.float32(-0.5))
        source = xp.maximum(centre, np.float32(0)) + np.float32(0.5)
    else:
        source = positions.astype(np.float32) * step
    return xp.minimum(xp.floor(source).astype(np.int64), input_size - 1)


class _UpsampleNearestBackward(Node):
    def backward(self, grad):
        from .._creation import zeros
        for axis, (index, size) in reversed(list(enumerate(zip(self.sources, self.input_sizes)))):
            dim = 2 + axis
            shape = list(grad.shape)
            shape[dim] = size
            grad = zeros(shape, dtype=grad.dtype, device=grad.device).index_add(dim, index, grad)
        return (grad,)


class UpsampleNearest1DBackward0(_UpsampleNearestBackward):
    pass


class UpsampleNearest2DBackward0(_UpsampleNearestBackward):
    pass


class UpsampleNearest3DBackward0(_UpsampleNearestBackward):
    pass


class UpsampleNearestExact1DBackward0(_UpsampleNearestBackward):
    pass


class UpsampleNearestExact2DBackward0(_UpsampleNearestBackward):
    pass


class UpsampleNearestExact3DBackward0(_UpsampleNearestBackward):
    pass


_NEAREST_NODES = {(False, 1): UpsampleNearest1DBackward0, (False, 2): UpsampleNearest2DBackward0,
                  (False, 3): UpsampleNearest3DBackward0, (True, 1): UpsampleNearestExact1DBackward0,
                  (True, 2): UpsampleNearestExact2DBackward0, (True, 3): UpsampleNearestExact3DBackward0}


def upsample_nearest(input, output_size, scales, exact=False):
    """Each output pixel copies the nearest input pixel (ATen's legacy ``nearest``, or with ``exact``
    ``nearest-exact``), 1-d, 2-d or 3-d."""
    xp = array_module(input._device)
    spatial = input._data.ndim - 2
    sources = [_nearest_source(input._data.shape[2 + k], output_size[k], scales[k], xp, exact)
               for k in range(spatial)]
    data = input._data
    for k, index in enumerate(sources):
        data = xp.take(data, index, axis=2 + k)
    out = wrap(data, input)
    if needs_grad(input):
        out.grad_fn = _NEAREST_NODES[exact, spatial]((input,), input_sizes=input._data.shape[2:],
                                                     sources=[wrap(index.astype(np.int64), input) for index in sources])
    return out

"""``threshold``, ``hardshrink``, ``softshrink``, ``prelu`` and ``celu``: piecewise activations with
their backward nodes, the gradients written with tensor ops so that they differentiate again.

Mirrors ``aten/src/ATen/native/Activation.cpp`` (``threshold``, ``hardshrink``, ``softshrink``,
``_prelu_kernel``, ``celu``) and its CPU kernels in ``native/cpu/Activation.cpp``; the formulas
are those of ``tools/autograd/derivatives.yaml`` (``threshold_backward``, ``hardshrink_backward``,
``softshrink_backward``, ``_prelu_kernel_backward``).
"""
import ml_dtypes
import numpy as np

from .._type_info import checked_scalar
from ..core._device import array_module
from ..core.autograd.graph import Node
from ._common import float_input, record, wrap
from .native_activation import EluBackward0, EluBackward1, elu, elu_backward
from .pointwise import masked_grad, threshold_backward, where

__all__ = ["threshold", "hardshrink", "softshrink", "prelu", "celu", "rrelu", "INPLACE_NODES"]


class ThresholdBackward0(Node):
    """The gradient passes where ``x > threshold``, is zero elsewhere."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        return (threshold_backward(grad, self_, self.threshold),)


class ThresholdBackward1(ThresholdBackward0):
    """The node of the in-place form (``F.threshold(x, t, v, inplace=True)``)."""


def threshold(input, threshold, value):
    """``value`` where ``x <= threshold``, else ``x`` (NaN stays NaN); integer inputs keep their dtype."""
    x = input._data
    xp = array_module(input._device)
    # a 16-bit float is compared in float32, its op-math type, as ATen's kernel does
    data = xp.where(x <= input._dtype._accumulate.type(threshold), checked_scalar(value, input._dtype), x)
    return record(wrap(data, input), ThresholdBackward0, (input,), saved=(input,), threshold=threshold)


def _shrink_mask(x, lambd):
    """Where the shrink functions are flat: ``-lambd <= x <= lambd``."""
    return (x >= -lambd) & (x <= lambd)


def _shrink_backward(node, grad):
    """``grad`` where ``|x| > lambd``, +0 elsewhere, NaN included (``shrink_backward``)."""
    (self_,) = node.saved_tensors
    x = self_._data
    return (masked_grad(grad, (x < -node.lambd) | (x > node.lambd)),)


class HardshrinkBackward0(Node):
    def backward(self, grad):
        return _shrink_backward(self, grad)


def hardshrink(input, lambd=0.5):
    """``0`` where ``-lambd <= x <= lambd``, else ``x``."""
    x = float_input("hardshrink_cpu", input)
    xp = array_module(input._device)
    data = xp.where(_shrink_mask(x, lambd), x.dtype.type(0), x)
    return record(wrap(data, input), HardshrinkBackward0, (input,), saved=(input,), lambd=lambd)


class SoftshrinkBackward0(Node):
    def backward(self, grad):
        return _shrink_backward(self, grad)


def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, ``0`` between (NaN stays NaN)."""
    x = float_input("softshrink_check", input)
    if not 0 <= lambd <= _largest(input):
        raise RuntimeError(f"lambda must be in range [0, {_max_text(input)}] for input dtype "
                           f"{input._dtype._legacy_name[:-6]}, but found {_number_text(lambd)}")
    xp = array_module(input._device)
    dtype = x.dtype.type
    # Between the thresholds +0, NaN staying NaN (PyTorch's vector loop; its scalar tail loop
    # keeps the sign of x there). 16-bit floats are computed in float32, ATen's op-math type.
    inside = x * dtype(0) + dtype(0)
    wide = x.astype(input._dtype._accumulate, copy=False)
    bound = wide.dtype.type(lambd)
    data = xp.where(wide > bound, wide - bound, xp.where(wide < -bound, wide + bound, inside))
    return record(wrap(data.astype(x.dtype, copy=False), input), SoftshrinkBackward0, (input,),
                  saved=(input,), lambd=lambd)


def _largest(input):
    return float(ml_dtypes.finfo(input._dtype.numpy).max)  # (numpy's finfo does not know bfloat16)


def _max_text(input):
    """The dtype's largest value as ATen prints it (``%g``: ``3.40282e+38``)."""
    return f"{_largest(input):g}"


def _number_text(value):
    return f"{value:g}" if isinstance(value, float) else str(value)


class PreluKernelBackward0(Node):
    """``d input = grad`` where ``x > 0`` else ``weight * grad``; ``d weight = x * grad`` where
    ``x <= 0``, summed to the weight's shape (the weight is viewed to broadcast over the channels)."""

    def backward(self, grad):
        self_, weight = self.saved_tensors
        positive = self_ > 0
        shaped = weight.view(self.broadcast) if self.broadcast is not None else weight
        grad_input = where(positive, grad, shaped * grad) if self.needs_input_grad[0] else None
        grad_weight = None
        if self.needs_input_grad[1]:
            grad_weight = where(positive, 0.0, self_ * grad).sum_to_size(shaped.shape)
            grad_weight = grad_weight.reshape(weight.shape)
        return grad_input, grad_weight


def prelu(input, weight):
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has 1 value or one per channel (dim 1)."""
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input._dtype._legacy_name[:-6]} and "
                           f"{weight._dtype._legacy_name[:-6]}")
    float_input("prelu_cpu", input)
    count = weight.numel()
    broadcast = None
    if count != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if count != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{count} and channel size = {channels}.")
        broadcast = (1, count) + (1,) * (input.dim() - 2)
    x, w = input._data, weight._data
    w = w.reshape(broadcast) if broadcast is not None else w.reshape(())
    xp = array_module(input._device)
    data = xp.where(x > 0, x, w * x)
    return record(wrap(data.astype(x.dtype, copy=False), input), PreluKernelBackward0, (input, weight),
                  saved=(input, weight), broadcast=broadcast)


class CeluBackward0(EluBackward0):
    """CELU is ELU with ``input_scale = 1 / alpha``; PyTorch records its own node name, and its
    derivative (``derivatives.yaml``) takes ``input_scale = 1.0 / alpha.toFloat()``: the reciprocal
    of alpha rounded to float32, so the exponential is computed again with it."""

    def backward(self, grad):
        self_, _ = self.saved_tensors
        input_scale = 1.0 / float(np.float32(self.alpha))
        return (elu_backward(grad, self.alpha, self.scale, input_scale, self_),)


class CeluBackward1(EluBackward1):
    """The node of the in-place form (``F.celu(x, inplace=True)``)."""


def celu(input, alpha=1.0):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    out = elu(input, alpha, 1.0, 1.0 / alpha)
    if out.grad_fn is not None:
        out.grad_fn.__class__ = CeluBackward0
    return out


#: The node an in-place form records in place of the out-of-place one.
INPLACE_NODES = {ThresholdBackward0: ThresholdBackward1, CeluBackward0: CeluBackward1}


class RreluWithNoiseBackward0(Node):
    """``grad * noise`` in training (each negative value's own slope), the leaky ReLU's gradient otherwise
    (``rrelu_with_noise_backward``)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        if self.training and self.upper - self.lower > 1e-6:
            return (grad * self.noise,)
        return (where(self_ > 0, grad, grad * ((self.lower + self.upper) / 2)),)


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    """The node of the in-place form (``F.rrelu(x, inplace=True)``)."""


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """``x`` where positive, ``a * x`` elsewhere: in training ``a ~ U(lower, upper)`` drawn for each non-positive
    value in row-major order (PyTorch's draws on the CPU), else ``a = (lower + upper) / 2``."""
    if not lower <= upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    x = float_input("rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu", input)
    xp = array_module(input._device)
    noise = None
    if training:
        from .. import _random
        negative = x <= 0
        slopes = xp.ones(x.shape, dtype=x.dtype)
        count = int(negative.sum())
        if input._device.type == "cpu":
            # PyTorch makes the input contiguous, then draws for each non-positive value in that (row-major) order
            slopes[negative] = _random.cpu_generator()._uniform(count, np.float64, lower, upper)
        else:
            u = _random.generator(input._device).random(x.shape)
            slopes = xp.where(negative, (u * (upper - lower) + lower).astype(x.dtype), slopes)
        data = x * slopes
        noise = wrap(slopes, input)
    else:
        data = xp.where(x > 0, x, x * x.dtype.type((lower + upper) / 2))
    return record(wrap(data.astype(x.dtype, copy=False), input), RreluWithNoiseBackward0, (input,), saved=(input,),
                  noise=noise, lower=lower, upper=upper, training=training)


INPLACE_NODES[RreluWithNoiseBackward0] = RreluWithNoiseBackward1

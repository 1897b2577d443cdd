"""``upsample_linear1d``, ``upsample_bilinear2d`` and ``upsample_trilinear3d`` (``F.interpolate``'s
``linear``, ``bilinear`` and ``trilinear`` modes), their backward, and the backward's backward.

Mirrors ``aten/src/ATen/native/UpSample.h`` (``area_pixel_compute_scale``,
``compute_scales_value``, ``area_pixel_compute_source_index``, ``compute_source_index_and_lambda``),
``aten/src/ATen/native/UpSampleLinear1d.cpp``, ``UpSampleBilinear2d.cpp``, ``UpSampleTrilinear3d.cpp``
and their CPU kernels in ``aten/src/ATen/native/cpu/UpSampleKernel.cpp`` (the generic N-d kernel) and
``UpSampleMoreKernel.cpp`` (the backward); the derivatives are those of
``tools/autograd/derivatives.yaml``: the op is linear, so its gradient is ``upsample_*_backward``,
and that one's gradient is the forward again (``result: auto_linear``).

Interpolation is separable: each output value is a weighted sum of two neighbours along the
last spatial axis, then two along the axis before it, and so on, which is the order PyTorch's
recursive kernel (``InterpolateNonSeparable``) nests its sums in. So the forward is two gathers
and two weights per axis, and the backward is their transpose per axis, a weighted ``bincount``.
"""
import math

import numpy as np

from ..core._device import array_module_of
from ..core.autograd.graph import Node
from ._common import from_accumulator, record, wrap
from .fused import fma

__all__ = ["upsample_linear", "upsample_linear_backward"]


def _source_indices_and_weights(input_size, output_size, align_corners, scale, dtype, stored, xp):
    """``compute_source_index_and_lambda`` for every output position along one axis: the two input
    neighbours ``i0 <= i1`` and their weights ``1 - lambda, lambda``, computed in ``dtype``'s compute
    type (float32 for 16-bit floats), returned in that type. With ``stored`` they are first rounded
    to ``dtype`` as the forward kernel stores them (``lambda0_ptr`` is a ``scalar_t*``); the
    backward kernel keeps them in the compute type.

    PyTorch's AVX2/AVX512 kernels are compiled with FMA contraction, so there the float32 source
    index ``scale * (i + 0.5) - 0.5`` is rounded once (``fma``; twice on the DEFAULT capability).
    """
    opmath = dtype._accumulate
    storage = dtype.numpy if stored else opmath
    f = opmath.type
    positions = xp.arange(output_size)
    if output_size == input_size:  # "scale_factor = 1, simply copy"
        return positions, positions, xp.ones(output_size, opmath), xp.zeros(output_size, opmath)
    if align_corners:
        ratio = f(input_size - 1) / f(output_size - 1) if output_size > 1 else f(0)
        real = ratio * positions.astype(opmath)
    else:
        # compute_scales_value: a given scale_factor s gives 1/s (in double, then rounded), not in/out.
        ratio = f(1.0 / scale) if scale is not None and scale > 0 else f(input_size) / f(output_size)
        centres = positions.astype(opmath) + f(0.5)
        real = fma(centres, ratio, f(-0.5)) if opmath == np.float32 else centres * ratio - f(0.5)
        real = xp.maximum(real, f(0))  # linear modes clamp negative source positions to 0
    first = xp.minimum(xp.floor(real).astype(np.int64), input_size - 1)
    lambda1 = xp.clip(real - first.astype(opmath), f(0), f(1)).astype(storage)
    lambda0 = (f(1) - lambda1.astype(opmath)).astype(storage)  # 16-bit: 1 - the rounded lambda, rounded
    second = first + (first < input_size - 1)
    return first, second, lambda0.astype(opmath), lambda1.astype(opmath)


def _axes(input_shape, output_size, align_corners, scales, dtype, stored, xp):
    """Per spatial axis, innermost first (the order the sums nest in): axis, i0, i1, w0, w1."""
    spatial = len(output_size)
    return [(2 + k, *_source_indices_and_weights(input_shape[2 + k], output_size[k], align_corners, scales[k],
                                                 dtype, stored, xp))
            for k in reversed(range(spatial))]


def _interpolate(data, output_size, align_corners, scales, dtype):
    """The forward on arrays: ``t0 * w0 + t1 * w1`` along each axis, in ``dtype``'s compute type."""
    xp = array_module_of(data)
    opmath = dtype._accumulate
    out = data.astype(opmath, copy=False)
    for axis, first, second, w0, w1 in _axes(data.shape, output_size, align_corners, scales, dtype, True, xp):
        shape = [1] * data.ndim
        shape[axis] = -1
        t0, t1 = xp.take(out, first, axis), xp.take(out, second, axis)
        w0, w1 = w0.reshape(shape), w1.reshape(shape)
        with np.errstate(invalid="ignore"):  # inf * 0 is NaN here as in PyTorch, silently
            if opmath == np.float32:
                # t0 * w0 + t1 * w1 with the first product fused into the sum where compiled with FMA
                out = fma(t0, w0, t1 * w1)
            else:
                out = t0 * w0 + t1 * w1
    return from_accumulator(out, dtype)


def _interpolate_transposed(data, input_shape, align_corners, scales, dtype):
    """The backward on arrays: each output gradient goes back to its two neighbours with the same
    weights, one axis at a time (outermost first, the transpose of the forward's order); the sums
    are one weighted ``bincount`` per neighbour, accumulated in float64, rounded once at the end."""
    xp = array_module_of(data)
    opmath = dtype._accumulate
    output_size = data.shape[2:]
    grad = data.astype(opmath, copy=False)
    axes = _axes(input_shape, output_size, align_corners, scales, dtype, False, xp)
    for axis, first, second, w0, w1 in reversed(axes):
        moved = xp.moveaxis(grad, axis, -1)
        lead, n_out, n_in = moved.shape[:-1], moved.shape[-1], input_shape[axis]
        rows = math.prod(lead)
        flat = moved.reshape(rows, n_out)
        base = (xp.arange(rows) * n_in)[:, None]
        total = xp.bincount((base + first).ravel(), (flat * w0).ravel(), minlength=rows * n_in)
        total += xp.bincount((base + second).ravel(), (flat * w1).ravel(), minlength=rows * n_in)
        grad = xp.moveaxis(total.astype(opmath).reshape(*lead, n_in), -1, axis)
    return from_accumulator(xp.ascontiguousarray(grad), dtype)


class _UpsampleLinearBackward(Node):
    def backward(self, grad):
        return (upsample_linear_backward(grad, self.input_sizes, self.align_corners, self.scales),)


class _UpsampleLinearBackwardBackward(Node):
    """The backward is linear in ``grad_output``: its gradient is the forward of ``grad``."""

    def backward(self, grad):
        return (upsample_linear(grad, self.output_size, self.align_corners, self.scales),)


class UpsampleLinear1DBackward0(_UpsampleLinearBackward):
    pass


class UpsampleBilinear2DBackward0(_UpsampleLinearBackward):
    pass


class UpsampleTrilinear3DBackward0(_UpsampleLinearBackward):
    pass


class UpsampleLinear1DBackwardBackward0(_UpsampleLinearBackwardBackward):
    pass


class UpsampleBilinear2DBackwardBackward0(_UpsampleLinearBackwardBackward):
    pass


class UpsampleTrilinear3DBackwardBackward0(_UpsampleLinearBackwardBackward):
    pass


_NODES = {1: UpsampleLinear1DBackward0, 2: UpsampleBilinear2DBackward0, 3: UpsampleTrilinear3DBackward0}
_BACKWARD_NODES = {1: UpsampleLinear1DBackwardBackward0, 2: UpsampleBilinear2DBackwardBackward0,
                   3: UpsampleTrilinear3DBackwardBackward0}


def _check_sizes(input_sizes, output_size):
    """``upsample_*d_common_check``: every spatial size positive."""
    if min(input_sizes) > 0 and min(output_size) > 0:
        return
    names = "DHW"[3 - len(output_size):]
    given = ", ".join(f"{n}: {s}" for n, s in zip(names, input_sizes))
    wanted = ", ".join(f"{n}: {s}" for n, s in zip(names, output_size))
    joint = " and" if len(output_size) == 1 else ""
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({given}){joint} "
                       f"output ({wanted})")


def upsample_linear(input, output_size, align_corners, scales):
    """Linear interpolation of the last 1, 2 or 3 dims of ``(N, C, *spatial)`` to ``output_size``;
    ``scales`` holds, per spatial dim, the ``scale_factor`` the caller gave (or None), which sets the
    source positions (``1 / scale``) unless ``align_corners``."""
    output_size = tuple(int(s) for s in output_size)
    _check_sizes(input.shape[2:], output_size)
    data = _interpolate(input._data, output_size, align_corners, scales, input._dtype)
    return record(wrap(data, input), _NODES[len(output_size)], (input,), input_sizes=tuple(input.shape),
                  output_size=output_size, align_corners=align_corners, scales=tuple(scales))


def upsample_linear_backward(grad_output, input_sizes, align_corners, scales):
    """``upsample_*_backward``: the gradient of :func:`upsample_linear` for an input of
    ``input_sizes``, recorded so that it differentiates again."""
    data = _interpolate_transposed(grad_output._data, tuple(input_sizes), align_corners, scales,
                                   grad_output._dtype)
    output_size = tuple(grad_output.shape[2:])
    return record(wrap(data, grad_output), _BACKWARD_NODES[len(output_size)], (grad_output,),
                  output_size=output_size, align_corners=align_corners, scales=tuple(scales))

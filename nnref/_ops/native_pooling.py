"""Average and adaptive pooling kernels, each with its backward node.

Mirrors ``aten/src/ATen/native/AveragePool2d.cpp``, ``AdaptiveAveragePooling.cpp`` and
``AdaptiveMaxPooling2d.cpp``.  Vectorised numpy, no loop over batch, channels or pixels:

* ``avg_pool2d`` sums ``KH*KW`` strided slices of the padded input (one per kernel
  offset) and divides by PyTorch's divisor; its backward scatters the same way.
* ``adaptive_avg_pool2d`` sums windows by two matrix products with 0/1 "which rows/columns
  does window i cover" matrices and divides by each window's height and width; the backward
  is the transposed products.  A product would turn one infinity into NaN across its row
  and column of windows (0 * inf), so data with infinities or NaN is summed instead by one
  gathered add per offset inside a window, for all windows at once, in PyTorch's order.
* ``adaptive_max_pool2d`` scans each window's columns, then its rows, one elementwise
  maximum per offset over all windows at once, on the input laid out planes-innermost;
  short windows repeat their last position, which never changes a maximum.
"""
import math

import numpy as np

from ..core._device import array_module_of
from .. import _meta
from ._common import float_input, needs_grad, record, wrap
from ._first_order import FirstOrderBackward
from .native import _as, _opmath, _pool_output_size

__all__ = ["avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "adaptive_windows"]


def _batched(input, name, expected=""):
    """``(N, C, H, W)`` data of a 3-D or 4-D input, and whether a batch dim was added."""
    if input._data.ndim not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got{expected} {list(input.shape)}")
    return (input._data[None], True) if input._data.ndim == 3 else (input._data, False)


def _too_small(c, h, w, oh, ow):
    return RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
                        "Output size is too small (the pooling window is larger than the padded "
                        "input: use a smaller kernel_size, or pad the input)")


# --------------------------------------------------------------------------------------------
# Average pooling
# --------------------------------------------------------------------------------------------

def _window_counts(xp, out, size, kernel, stride, pad, count_include_pad):
    """How many input positions (or positions incl. padding) each output row/column averages."""
    start = xp.arange(out) * stride - pad
    end = xp.minimum(start + kernel, size + pad)
    if count_include_pad:
        return end - start
    return xp.minimum(end, size) - xp.maximum(start, 0)


class AvgPool2DBackward0(FirstOrderBackward):
    """Each input position receives ``grad / divisor`` from every window that covers it."""

    def backward(self, grad):
        g = _opmath(grad._data)
        g = g[None] if self.unbatched else g
        xp = array_module_of(g)
        n, c, oh, ow = g.shape
        (kh, kw), (sh, sw), (ph, pw) = self.kernel, self.stride, self.padding
        h, w = self.input_hw
        scaled = g / self.divisor
        padded = xp.zeros((n, c, self.padded_hw[0], self.padded_hw[1]), dtype=g.dtype)
        for i in range(kh):  # one strided add per kernel offset
            for j in range(kw):
                padded[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw] += scaled
        result = padded[:, :, ph:ph + h, pw:pw + w]
        result = result[0] if self.unbatched else result
        return (wrap(_as(xp.ascontiguousarray(result), grad._data), grad),)


def avg_pool2d(input, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """Mean of each ``kernel`` window of a ``(N, C, H, W)`` or ``(C, H, W)`` input."""
    if input._data.ndim not in (3, 4):
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, but got "
                           f"{list(input.shape)}")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f"nnref's avg_pool2d needs a floating point input, got "
                                  f"{input._dtype}; convert it first, e.g. x.float()")
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    for k, p in zip(kernel, padding):
        if k <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} "
                               f"kW: {kernel[1]}")
        if p < 0 or p > k // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation=1")
    x, unbatched = (input._data[None], True) if input._data.ndim == 3 else (input._data, False)
    n, c, h, w = x.shape
    oh = _pool_output_size(h, kernel[0], padding[0], stride[0], 1, ceil_mode)
    ow = _pool_output_size(w, kernel[1], padding[1], stride[1], 1, ceil_mode)
    if oh < 1 or ow < 1:
        raise _too_small(c, h, w, oh, ow)
    xp = array_module_of(x)
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    # Zero padding, plus room at the end for ceil_mode's last partial window.
    padded_h = max(h + 2 * ph, (oh - 1) * sh + kh)
    padded_w = max(w + 2 * pw, (ow - 1) * sw + kw)
    data = _opmath(x)
    if (padded_h, padded_w) != (h, w):
        data = xp.pad(data, ((0, 0), (0, 0), (ph, padded_h - h - ph), (pw, padded_w - w - pw)))
    total = None
    for i in range(kh):
        for j in range(kw):
            part = data[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]
            total = part.copy() if total is None else xp.add(total, part, out=total)
    if divisor_override is not None:
        divisor = data.dtype.type(divisor_override)
    else:
        rows = _window_counts(xp, oh, h, kh, sh, ph, count_include_pad)
        cols = _window_counts(xp, ow, w, kw, sw, pw, count_include_pad)
        divisor = (rows[:, None] * cols[None, :]).astype(data.dtype)
    out_data = total / divisor
    out = wrap(_as(out_data[0] if unbatched else out_data, x), input)
    if needs_grad(input):
        out.grad_fn = AvgPool2DBackward0((input,), kernel=tuple(kernel), stride=tuple(stride),
                                         padding=tuple(padding), input_hw=(h, w),
                                         padded_hw=(padded_h, padded_w), divisor=divisor,
                                         unbatched=unbatched)
    return out


# --------------------------------------------------------------------------------------------
# Adaptive pooling: window i covers [floor(i * size / out), ceil((i + 1) * size / out))
# --------------------------------------------------------------------------------------------

def adaptive_windows(xp, size, out):
    """Start and end (exclusive) of each of the ``out`` windows over ``size`` positions."""
    i = xp.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _output_size(output_size, h, w):
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 2:
            raise RuntimeError(f"adaptive pooling: output_size must be 2, got {len(output_size)}")
        oh, ow = output_size
    else:
        oh = ow = output_size
    return (h if oh is None else int(oh)), (w if ow is None else int(ow))


def _planes_last_with_zero_edge(xp, data):
    """``(..., H, W)`` as ``(H + 1, W + 1, planes)``: planes innermost, so that gathering rows
    or columns copies contiguous runs, and a zero row and column appended, for the gathers of
    short windows to read."""
    h, w = data.shape[-2:]
    laid_out = xp.zeros((h + 1, w + 1, math.prod(data.shape[:-2])), dtype=data.dtype)
    laid_out[:h, :w] = data.reshape(-1, h, w).transpose(1, 2, 0)
    return laid_out


def _planes_first(laid_out, leading_shape):
    """``(OH, OW, planes)`` back to ``(..., OH, OW)``."""
    return laid_out.transpose(2, 0, 1).reshape(leading_shape + laid_out.shape[:2])


def _gathered_sums(xp, laid_out, rows, columns):
    """``sum over (i, j) of laid_out[rows[i], columns[j]]``: ``rows`` and ``columns`` list, per
    offset, the index each window (or output position) reads at that offset; the sum runs row
    by row, left to right, from +0, the order of PyTorch's loops."""
    total = xp.zeros((len(rows[0]), len(columns[0]), laid_out.shape[2]), dtype=laid_out.dtype)
    with np.errstate(invalid="ignore"):  # inf + -inf is NaN; PyTorch does not warn
        for row in rows:
            band = laid_out[row]
            for column in columns:
                total += band[:, column]
    return total


def _window_offsets(xp, start, end, size):
    """Per offset inside a window, each window's position there, or ``size`` (the zero edge)
    past a shorter window's end."""
    return [xp.where(start + i < end, start + i, size) for i in range(int((end - start).max()))]


def _covering_offsets(xp, start, end, size, out):
    """Per position, the windows covering it (consecutive, first to last), as lists like
    :func:`_window_offsets`'s with ``out`` (the zero edge) where a position has fewer."""
    positions = xp.arange(size)
    first = xp.searchsorted(end, positions, side="right")
    count = xp.searchsorted(start, positions, side="right") - first
    return [xp.where(i < count, first + i, out) for i in range(int(count.max()))]


def _coverage(xp, start, end, size, dtype):
    """``(windows, size)`` 0/1 matrix: row i marks the positions window i covers."""
    positions = xp.arange(size)
    return ((positions >= start[:, None]) & (positions < end[:, None])).astype(dtype)


def _all_finite(xp, data):
    return not _meta.has_values(data) or bool(xp.isfinite(data).all())


class AdaptiveAvgPool2DBackward0(FirstOrderBackward):
    """Each window's gradient divided by its height and width, added onto every position it
    covers: the transposed coverage products, or (for a gradient with infinities or NaN) the
    gathered sums in PyTorch's order (windows row by row where they overlap)."""

    def backward(self, grad):
        g = _opmath(grad._data)
        xp = array_module_of(g)
        (start_h, end_h), (start_w, end_w) = self.windows
        (h, w), (oh, ow) = self.hw, g.shape[-2:]
        share = g / self.heights[:, None] / self.widths[None, :]
        if _all_finite(xp, share):
            result = xp.matmul(xp.matmul(_coverage(xp, start_h, end_h, h, g.dtype).T, share),
                               _coverage(xp, start_w, end_w, w, g.dtype))
        else:
            sums = _gathered_sums(xp, _planes_last_with_zero_edge(xp, share),
                                  _covering_offsets(xp, start_h, end_h, h, oh),
                                  _covering_offsets(xp, start_w, end_w, w, ow))
            result = _planes_first(sums, g.shape[:-2])
        return (wrap(_as(result, grad._data), grad),)


def adaptive_avg_pool2d(input, output_size):
    """Average ``(N, C, H, W)`` or ``(C, H, W)`` over windows chosen to give ``output_size``."""
    x, _ = _batched(input, "adaptive_avg_pool2d")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"adaptive_avg_pool2d" not implemented for '
                                  f"'{input._dtype._legacy_name[:-6]}'; convert it first, e.g. x.float()")
    h, w = x.shape[2:]
    oh, ow = _output_size(output_size, h, w)
    if oh < 0 or ow < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or "
                           f"equal to 0 but received {[oh, ow]}")
    for d in range(1, input._data.ndim):
        if input._data.shape[d] == 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    if (oh, ow) == (1, 1):  # global average: PyTorch computes it as a mean (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    data = _opmath(input._data)
    xp = array_module_of(data)
    windows = adaptive_windows(xp, h, oh), adaptive_windows(xp, w, ow)
    heights, widths = ((end - start).astype(data.dtype) for start, end in windows)
    (start_h, end_h), (start_w, end_w) = windows
    if _all_finite(xp, data):  # window sums as (OH, H) @ (..., H, W) @ (W, OW)
        sums = xp.matmul(xp.matmul(_coverage(xp, start_h, end_h, h, data.dtype), data),
                         _coverage(xp, start_w, end_w, w, data.dtype).T)
    else:  # 0 * inf is NaN: no coverage products, the sums in PyTorch's own order
        sums = _planes_first(_gathered_sums(xp, _planes_last_with_zero_edge(xp, data),
                                            _window_offsets(xp, start_h, end_h, h),
                                            _window_offsets(xp, start_w, end_w, w)), data.shape[:-2])
    # PyTorch's kernel: sum / kh / kw, two divisions
    out_data = sums / heights[:, None] / widths[None, :]
    out = wrap(_as(out_data, input._data), input)
    return record(out, AdaptiveAvgPool2DBackward0, (input,), windows=windows, heights=heights,
                  widths=widths, hw=(h, w))


class AdaptiveMaxPool2DBackward0(FirstOrderBackward):
    """The gradient goes to the position each window picked (summed where windows overlap)."""

    def backward(self, grad):
        indices = self.indices
        xp = array_module_of(indices)
        g = _opmath(grad._data)
        planes, hw = self.planes, self.hw
        offsets = (xp.arange(planes, dtype=np.int64) * hw).reshape(indices.shape[:-2] + (1, 1))
        summed = xp.zeros(planes * hw, dtype=g.dtype)
        # Overlapping windows may pick the same position: add.at adds both, an assignment would not.
        xp.add.at(summed, (indices + offsets).ravel(), g.ravel())
        return (wrap(_as(summed.reshape(self.self_sizes), grad._data), grad),)


def _window_index(xp, size, out):
    """``(out, longest)`` positions of each window, the short ones padded with their last position."""
    start, end = adaptive_windows(xp, size, out)
    longest = int((end - start).max())
    return xp.minimum(start[:, None] + xp.arange(longest), end[:, None] - 1)


def _running_max(candidate, count, xp):
    """The largest of ``candidate(0), ..., candidate(count - 1)`` (same-shape arrays, in scan
    order) and which one it was, as PyTorch's scan picks it: the first maximum, or the last NaN
    (``val > maxval || isnan(val)`` in ``aten/src/ATen/native/cpu/AdaptiveMaxPoolKernel.cpp``)."""
    values = candidate(0)
    # The smallest integers that hold every pick (one byte for windows up to 256 long): less
    # memory for the scan to go through than int64.
    picked = xp.zeros(values.shape, dtype=xp.min_scalar_type(count - 1))
    for k in range(1, count):
        next_values = candidate(k)
        better = next_values > values
        better |= xp.isnan(next_values)
        # k exceeds every earlier pick: max(picked, k * better) is k where better, picked elsewhere
        xp.maximum(picked, xp.multiply(better, k, dtype=picked.dtype), out=picked)
        xp.maximum(values, next_values, out=values)  # a NaN on either side stays, as in the scan
    return values, picked


def adaptive_max_pool2d(input, output_size):
    """Largest value of each adaptive window, and its flat index into ``H*W``."""
    x, _ = _batched(input, "adaptive_max_pool2d", ":")
    n, c, h, w = x.shape
    oh, ow = _output_size(output_size, h, w)
    if oh < 0 or ow < 0:
        raise RuntimeError(f"adaptive_max_pool2d(): elements of output_size must be greater than or "
                           f"equal to 0 but received {[oh, ow]}")
    for d in range(1, input._data.ndim):
        if input._data.shape[d] == 0:
            raise RuntimeError(f"adaptive_max_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    float_input("adaptive_max_pool2d", input)
    xp = array_module_of(x)
    lead = input._data.shape[:-2]
    if not n * oh * ow:
        return _adaptive_max_result(input, xp.empty(lead + (oh, ow), dtype=x.dtype),
                                    xp.zeros(lead + (oh, ow), dtype=np.int64), lead, h, w)
    # (H, W, N*C): with the planes innermost, every step below runs over long contiguous rows.
    planes = xp.ascontiguousarray(x.reshape(n * c, h, w).transpose(1, 2, 0))
    rows, cols = _window_index(xp, h, oh), _window_index(xp, w, ow)
    # A window's pick (its first maximum in row-major order, or its last NaN) is the pick of the
    # first of its rows holding the maximum (the last holding a NaN), so the scan is separable:
    # the columns of each row's part of every window (H, OW, N*C), then those rows (OH, OW, N*C),
    # one elementwise step per kernel offset.
    row_max, col_pick = _running_max(lambda k: planes[:, cols[:, k]], cols.shape[1], xp)
    values, row_pick = _running_max(lambda k: row_max[rows[:, k]], rows.shape[1], xp)
    window_rows, window_cols = xp.arange(oh)[:, None, None], xp.arange(ow)[None, :, None]
    row_of = rows[window_rows, row_pick]
    col_of = cols[window_cols, col_pick][row_of, window_cols, xp.arange(n * c)]
    indices = row_of * w + col_of
    return _adaptive_max_result(input, values.transpose(2, 0, 1).reshape(lead + (oh, ow)),
                                indices.transpose(2, 0, 1).reshape(lead + (oh, ow)), lead, h, w)


def _adaptive_max_result(input, values, indices, lead, h, w):
    out = wrap(values, input)
    if needs_grad(input):
        out.grad_fn = AdaptiveMaxPool2DBackward0((input,), indices=indices,
                                                 self_sizes=input._data.shape,
                                                 planes=math.prod(lead), hw=h * w)
    return out, wrap(indices, input)

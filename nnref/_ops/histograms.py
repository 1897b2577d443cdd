"""``histc``: counts of the values in ``bins`` equal bins between ``min`` and ``max``; and
``histogram``: counts (or weights, or a density) over bins given by their count or their edges.

Mirrors ``aten/src/ATen/native/Histogram.cpp`` (``histogramdd_cpu_contiguous`` with linear bins):
the bin of ``x`` is ``int((x - min) * bins / (max - min))`` in the input's dtype, ``max`` itself
falls in the last bin, values outside the range (and NaNs) are not counted; with ``min == max``
the data's own range is used, widened by 1 on each side if it is a single value.  The result is
not differentiable (it does not require grad), as in PyTorch.
"""
import math
from collections import namedtuple

import numpy as np

from ..core._device import array_module
from ..core._tensor import Tensor
from ._common import NotImplemented as _NotImplemented
from ._common import needs_grad, wrap
from .cascade_sum import cascade_sum
from .fused import linspace_values
from .out import _resize
from .inplace import _write

__all__ = ["histc", "histogram"]


def histc(input, bins=100, min=0, max=0):
    """A histogram of ``input`` with ``bins`` equal bins over ``[min, max]`` (the data's range when
    both are equal) (``torch.histc``, ``aten/src/ATen/native/Histogram.cpp``)."""
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{input._dtype._legacy_name[:-6]}\'')
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    xp = array_module(input._device)
    data = input._data.reshape(-1)
    low, high = float(min), float(max)
    if low == high and data.size:
        finite = data[data == data]
        if finite.size:
            low, high = float(finite.min()), float(finite.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")
    kind = data.dtype.type
    lo, hi = kind(low), kind(high)
    inside = (data >= lo) & (data <= hi)
    values = data[inside]
    with np.errstate(invalid="ignore", over="ignore"):
        positions = ((values - lo) * kind(bins) / (hi - lo)).astype(np.int64)
    positions = xp.minimum(positions, bins - 1)
    counts = xp.bincount(positions, minlength=bins)[:bins]
    return wrap(counts.astype(data.dtype), input)


_HISTOGRAM_GRAIN_SIZE = 200  # HISTOGRAM_GRAIN_SIZE of Histogram.cpp
_histogram = namedtuple("histogram", ["hist", "bin_edges"])
_histogram.__repr__ = lambda self: (f"torch.return_types.histogram(\nhist={self.hist!r},\n"
                                    f"bin_edges={self.bin_edges!r})")


def _dtype_name(t):
    return t._dtype._legacy_name[:-6].lower()


def _outer_edges(data, range):
    """``select_outer_bin_edges``: ``range``, else the data's min and max (0 and 1 when empty),
    checked finite and ordered, and widened by 0.5 on each side when equal."""
    if range is not None:
        if len(range) != 2:
            raise RuntimeError(f"torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, "
                               f"but got {len(range)}")
        low, high = float(range[0]), float(range[1])
    elif data.size:
        low, high = float(data.min()), float(data.max())
    else:
        low, high = 0.0, 1.0
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{low:g}, {high:g}] is not finite")
    if low > high:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} "
                           f"for dimension 0")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return low, high


def _weighted_counts(positions, weights, element_index, n, n_bins, kind, xp):
    """The weights added per bin as ``histogramdd_cpu_contiguous`` adds them: ``at::parallel_for``
    gives each of ``min(threads, ceil(n / 200))`` threads a contiguous chunk of the elements, each
    thread adds its chunk's weights in order into its own histogram (in the dtype), and the
    thread histograms are summed in thread order."""
    from .._settings import get_num_threads
    tasks = max(1, min(get_num_threads(), -(-n // _HISTOGRAM_GRAIN_SIZE)))
    chunk = max(1, -(-n // tasks))
    per_thread = xp.zeros((tasks, n_bins), dtype=kind)
    xp.add.at(per_thread, (element_index // chunk, positions), weights)  # in order, in the dtype
    return per_thread.sum(axis=0, dtype=kind)  # row after row: the sum over threads, in order


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """A histogram of ``input``'s values: ``bins`` equal bins over ``range`` (the data's range by
    default) or the bins between the edges of a 1-D tensor ``bins``; each value counts 1 (or its
    ``weight``) in the bin ``edges[i] <= x < edges[i + 1]``, the last bin closed; returns
    ``(hist, bin_edges)`` (``torch.histogram``, ``aten/src/ATen/native/Histogram.cpp``,
    ``histogramdd_cpu_contiguous``)."""
    name = input._dtype._legacy_name[:-6]
    if not isinstance(bins, Tensor) and input._dtype.numpy not in (np.float32, np.float64):
        raise NotImplementedError(f'"histogramdd" not implemented for \'{name}\'')  # the bin-edge range
    if not input._dtype.is_floating_point or input._dtype.is_complex:
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{name}\'')
    xp = array_module(input._device)
    data = input._data.reshape(-1)
    kind = data.dtype
    if isinstance(bins, Tensor):
        if bins.dim() != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {bins.dim()} "
                               f"dimensions in the bins tensor for dimension 0")
        if bins.numel() - 1 <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins.numel() - 1} for dimension 0")
        if bins._dtype != input._dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                               f"got input with dtype {_dtype_name(input)} and bins for dimension 0 with dtype "
                               f"{_dtype_name(bins)}")
        edges = bins._data.astype(kind, copy=True)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        edges = None
    if weight is not None:
        if weight._dtype != input._dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({_dtype_name(input)}), and "
                               f"weight({_dtype_name(weight)})")
        if weight.numel() != data.size:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               f"input tensor excluding its innermost dimension, but got input with shape "
                               f"[{data.size}, 1] and weight with shape {list(weight.shape)}")
    if edges is None:
        low, high = _outer_edges(data, range)
        edges = linspace_values(low, high, int(bins) + 1, kind, xp)
    n_bins = edges.size - 1
    # Values in [first edge, last edge] (NaN in neither) go to the bin upper_bound finds, the
    # last edge into the last bin.
    inside = (data >= edges[0]) & (data <= edges[-1])
    positions = xp.minimum(xp.searchsorted(edges, data[inside], side="right") - 1, n_bins - 1)
    if weight is None:
        hist = xp.bincount(positions, minlength=n_bins)[:n_bins].astype(kind)
    else:
        hist = _weighted_counts(positions, weight._data.reshape(-1)[inside], xp.flatnonzero(inside), data.size,
                                n_bins, kind, xp)
    if density:
        with np.errstate(divide="ignore", invalid="ignore"):
            # hist.sum() in ATen's order (16-bit floats accumulate in float32), then div_.
            total = cascade_sum(hist) if kind in (np.float32, np.float64) else cascade_sum(hist.astype(np.float32))
            hist = hist / total.astype(kind)
            hist = hist / (edges[1:] - edges[:-1])
    result = _histogram(wrap(hist.astype(kind, copy=False), input), wrap(edges, input))
    if needs_grad(input, weight, bins if isinstance(bins, Tensor) else None):
        node = _NotImplemented("histogram", (input, weight, bins if isinstance(bins, Tensor) else None))
        result.hist.grad_fn = result.bin_edges.grad_fn = node
        result.bin_edges._output_nr = 1
    if out is None:
        return result
    for target, value in zip(out, result):
        _resize(target, value._data.shape)
        _write(target, value)
    return _histogram(*out)

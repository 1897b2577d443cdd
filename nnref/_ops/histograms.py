"""``histc``: counts of the values in ``bins`` equal bins between ``min`` and ``max``.

Mirrors ``aten/src/ATen/native/Histogram.cpp`` (``histogramdd_cpu_contiguous`` with linear bins):
the bin of ``x`` is ``int((x - min) * bins / (max - min))`` in the input's dtype, ``max`` itself
falls in the last bin, values outside the range (and NaNs) are not counted; with ``min == max``
the data's own range is used, widened by 1 on each side if it is a single value.  The result is
not differentiable (it does not require grad), as in PyTorch.
"""
import math

import numpy as np

from .._device import array_module
from ._common import wrap

__all__ = ["histc"]


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

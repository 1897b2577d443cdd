"""The order in which ATen's CPU ``sum`` adds the values of a contiguous float vector, for ops whose
results pass through ``tensor.sum()`` inside ATen (``histogram``'s ``density``).

Mirrors ``aten/src/ATen/native/cpu/SumKernel.cpp``: ``cascade_sum`` takes ``vectorized_inner_sum``
for vectors of at least one SIMD register, ``scalar_inner_sum`` below that; both call ``row_sum``,
which keeps 4 interleaved accumulators (``ilp_factor``) and, through ``multi_row_sum``, a cascade of
4 levels that each flush into the next every ``2**level_power`` rows.  Every add rounds in the
dtype, so the sum here is built from sequential sums (``cumsum``, which numpy never reorders) of
the same groups, in the same order.  One thread's order: ATen splits vectors of 32768 or more
elements between threads.
"""
import numpy as np

from .._device import array_module_of

__all__ = ["cascade_sum"]

# Vectorized<float> and Vectorized<double> lanes of the sum kernel PyTorch 2.13 runs on x86: the AVX2
# widths (measured: every length from 0 to 32767 tried matches with these, none with AVX512's).
_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
_ILP = 4
_LEVELS = 4


def _sequential(a, axis=0):
    """``acc = 0; for x in a: acc += x`` along ``axis``, in the dtype."""
    xp = array_module_of(a)
    if a.shape[axis] == 0:
        return xp.zeros(a.shape[:axis] + a.shape[axis + 1:], dtype=a.dtype)
    return xp.take(xp.cumsum(a, axis=axis, dtype=a.dtype), -1, axis=axis)


def _multi_row_sum(rows):
    """``multi_row_sum`` over ``rows`` of shape ``(size, nrows, *lanes)``: the ``nrows`` sums."""
    size = rows.shape[0]
    power = max(4, (size - 1).bit_length() // _LEVELS if size > 1 else 0)  # CeilLog2(size) / num_levels
    step = 1 << power
    blocks = size // step
    body, tail = rows[:blocks * step], rows[blocks * step:]
    level = _sequential(body.reshape(blocks, step, *rows.shape[1:]), axis=1)  # acc[0] per block
    flushed = []
    for _ in range(1, _LEVELS - 1):  # acc[1], acc[2]: groups of `step` from the level below
        groups = level.shape[0] // step
        full = level[:groups * step].reshape(groups, step, *level.shape[1:])
        flushed.append(_sequential(level[groups * step:]))  # what stays in this accumulator
        level = _sequential(full, axis=1)
    top = _sequential(level)  # acc[3] is never flushed
    total = _sequential(tail)
    for acc in flushed + [top]:
        total = total + acc
    return total


def _row_sum(values):
    """``row_sum``: 4 interleaved accumulators over ``values`` (``(size, *lanes)``), the rest into
    the first, then the four added in order."""
    size = values.shape[0]
    size_ilp = size // _ILP
    partial = _multi_row_sum(values[:size_ilp * _ILP].reshape(size_ilp, _ILP, *values.shape[1:]))
    first = partial[0]
    for x in values[size_ilp * _ILP:]:  # at most 3 leftovers
        first = first + x
    for k in range(1, _ILP):
        first = first + partial[k]
    return first


def cascade_sum(a):
    """The sum of the contiguous float vector ``a`` (1-D) in ATen's order, as a 0-d array."""
    lanes = _LANES[np.dtype(a.dtype)]
    n = a.shape[0]
    if n < lanes:
        return _row_sum(a)
    vectors = n // lanes
    vec_acc = _row_sum(a[:vectors * lanes].reshape(vectors, lanes))
    tail = _sequential(a[vectors * lanes:])
    return _finish(tail, vec_acc)


def _finish(tail, vec_acc):
    """``final_acc`` (the scalar tail's sum) plus each lane of the vector accumulator in turn."""
    xp = array_module_of(vec_acc)
    return _sequential(xp.concatenate([tail.reshape(1), vec_acc]))

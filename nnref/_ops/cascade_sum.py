"""The order in which ATen's CPU ``sum`` adds float values, so that ``sum``, ``mean`` and the sums
autograd takes of broadcast gradients round exactly as PyTorch's do.

Float addition is not associative: summed in another order, a float32 loss or bias gradient
differs in its last bits, and a training run drifts apart from PyTorch's.  So nnref follows
``aten/src/ATen/native/cpu/SumKernel.cpp`` and the ``TensorIterator`` that feeds it:

1. ``TensorIterator`` (``reorder_dimensions``, ``coalesce_dimensions`` in
   ``aten/src/ATen/TensorIterator.cpp``) moves the reduced dimensions innermost, orders the
   rest by stride, and merges neighbours that are contiguous together.
2. It calls the kernel on 2-D slabs (``size0`` by ``size1``) of the first two dimensions, the
   outer ones in order; each result is added into the output (``CastStoreAccumulate``), which
   starts at 0.
3. The kernel (``cascade_sum``) picks one of four loops by layout: ``vectorized_inner_sum``
   (reduced dimension contiguous), ``vectorized_outer_sum`` (kept dimension contiguous),
   ``scalar_inner_sum`` and ``scalar_outer_sum``.  Each sums a column with ``row_sum`` (4
   interleaved accumulators, ``ilp_factor``) or ``multi_row_sum`` directly, a cascade of 4
   levels that each flush into the next every ``2**level_power`` rows.

Every add rounds in the dtype, so the sums here are built from running sums of the same groups,
in the same order, for all columns at once (``running_sum``: numpy's ``add.reduce`` over the
leading axis of a C-contiguous array, or ``cumsum``; never numpy's pairwise inner loop).
One thread's order: with several threads ATen splits inputs of 32768 or more elements
between them, and its result then depends on the thread count.
"""
import functools
import math
from typing import NamedTuple

import numpy as np

from .._capability import SUM_LANES as _LANES
from ..core._device import array_module_of

__all__ = ["cascade_sum", "sum_in_aten_order", "follows_aten_sum", "running_sum", "loop_slabs"]

_ILP = 4
_LEVELS = 4
_OUTER_ROWS = 4  # nrows of vectorized_outer_sum and scalar_outer_sum
_LOOPED_COLUMN = 32  # longest single column summed by a Python loop rather than cumsum


def follows_aten_sum(a):
    """Whether ``sum_in_aten_order`` handles ``a``: float32 and float64 numpy arrays (16-bit floats
    are summed in float32 by other load policies; a GPU has its own order)."""
    return isinstance(a, np.ndarray) and a.dtype in _LANES


def _along(a, axis, index):
    """``a[..., index, ...]`` with ``index`` (an int or a slice) at ``axis``: a view."""
    return a[(slice(None),) * axis + (index,)]


def _split(a, axis, parts):
    """``a`` with ``axis`` split into ``(a.shape[axis] // parts, parts)``."""
    return a.reshape(a.shape[:axis] + (a.shape[axis] // parts, parts) + a.shape[axis + 1:])


def running_sum(a, axis):
    """``acc = a[0]; for x in a[1:]: acc += x`` along ``axis``, in the dtype.

    numpy's ``add.reduce`` adds pairwise along the axis its inner loop runs on, and may buffer and
    reorder strided data; over an axis of a C-contiguous array that has more than one element
    after it in memory, it adds slice after slice, so each output element is a running sum.  So
    that is the form the values are given (copied when they are laid out otherwise); a single
    column is added in a Python loop (short) or through ``cumsum`` (long).
    """
    xp = array_module_of(a)
    axis %= a.ndim
    length = a.shape[axis]
    if length <= 1:
        return xp.zeros(a.shape[:axis] + a.shape[axis + 1:], a.dtype) if length == 0 else _along(a, axis, 0)
    if math.prod(a.shape[axis + 1:]) > 1 and a.flags.c_contiguous:
        return xp.add.reduce(a, axis=axis)
    rows = a if axis == 0 else a.transpose((axis,) + tuple(d for d in range(a.ndim) if d != axis))
    columns = rows.size // length
    if columns == 0:
        return xp.zeros(rows.shape[1:], a.dtype)
    if columns > 1:
        table = xp.ascontiguousarray(rows).reshape(length, columns)
        return xp.add.reduce(table, axis=0).reshape(rows.shape[1:])
    if length > _LOOPED_COLUMN:
        return xp.cumsum(rows, axis=0, dtype=a.dtype)[-1]
    column = rows.reshape(length)
    total = column[0]
    for value in column[1:]:  # numpy scalars: each add rounds in the dtype
        total = total + value
    return xp.asarray(total).reshape(rows.shape[1:])


def _multi_row_sum(rows, axis):
    """``multi_row_sum`` of ``rows`` along ``axis``: each column's sum.

    ``acc[0]`` adds ``step`` rows and passes its sum up to ``acc[1]``; ``acc[1]`` and ``acc[2]``
    pass theirs up every ``step`` sums they receive; at the end the rows left over, then the
    accumulators in order, are added.  An accumulator that never passes its sum up holds the
    running sum of all it received, and the ones above it stay 0.
    """
    size = rows.shape[axis]
    power = max(4, (size - 1).bit_length() // _LEVELS if size > 1 else 0)  # CeilLog2(size) / num_levels
    step = 1 << power
    if size <= step:
        return running_sum(rows, axis)
    blocks = size // step
    level = running_sum(_split(_along(rows, axis, slice(0, blocks * step)), axis, step), axis + 1)
    total = running_sum(_along(rows, axis, slice(blocks * step, None)), axis) if size % step else None
    accumulators = []
    for _ in range(_LEVELS - 2):  # acc[1] and acc[2] pass their sums up every `step` sums
        groups = level.shape[axis] // step
        if not groups:
            break
        accumulators.append(running_sum(_along(level, axis, slice(groups * step, None)), axis))
        level = running_sum(_split(_along(level, axis, slice(0, groups * step)), axis, step), axis + 1)
    accumulators.append(running_sum(level, axis))
    for acc in accumulators:
        total = acc if total is None else total + acc  # no rows left over: 0 + acc
    return total


def _row_sum(values, axis):
    """``row_sum`` along ``axis``: 4 interleaved accumulators, the rest into the first, then the
    four added in order."""
    size = values.shape[axis]
    whole = size // _ILP * _ILP
    partial = _multi_row_sum(_split(_along(values, axis, slice(0, whole)), axis, _ILP), axis)
    first = _along(partial, axis, 0)
    for index in range(whole, size):  # at most 3 leftovers
        first = first + _along(values, axis, index)
    for k in range(1, _ILP):
        first = first + _along(partial, axis, k)
    return first


def _vectorized_inner_sum(values, axis):
    """``vectorized_inner_sum`` along ``axis`` (contiguous in memory): lane-wise ``row_sum`` over
    whole vectors, then the scalar tail and the lanes added in order to a 0."""
    xp = array_module_of(values)
    lanes = _LANES[values.dtype]
    whole = values.shape[axis] // lanes * lanes
    vec_acc = _row_sum(_split(_along(values, axis, slice(0, whole)), axis, lanes), axis)
    zero = xp.zeros(values.shape[:axis] + (1,) + values.shape[axis + 1:], values.dtype)
    return running_sum(xp.concatenate([zero, _along(values, axis, slice(whole, None)), vec_acc], axis=axis),
                       axis)


def _columns_in_groups(columns, group):
    """Each column's sum along axis 0: ``multi_row_sum`` for the columns (last axis) that fill
    groups of ``group``, ``row_sum`` for the rest (the outer loops: ``nrows`` columns at a time,
    then one at a time)."""
    xp = array_module_of(columns)
    grouped = columns.shape[-1] // group * group
    if grouped == columns.shape[-1]:
        return _multi_row_sum(columns, 0)
    if grouped == 0:
        return _row_sum(columns, 0)
    return xp.concatenate([_multi_row_sum(columns[..., :grouped], 0),
                           _row_sum(columns[..., grouped:], 0)], axis=-1)


def cascade_sum(a):
    """The sum of the contiguous float vector ``a`` (1-D) in ATen's order, as a 0-d array."""
    return sum_in_aten_order(a, (0,))


def _reorder(shape, operands, reduction=True):
    """``TensorIterator::reorder_dimensions``: the dimensions, innermost first.

    ``operands`` are byte strides: for a reduction, the output's (0 along reduced dimensions) and
    the input's.
    """
    def should_swap(dim0, dim1):
        for index, strides in enumerate(operands):
            stride0, stride1 = strides[dim0], strides[dim1]
            if reduction and index == 0 and (stride0 == 0) != (stride1 == 0):  # reduced dimensions go first
                return 1 if stride1 == 0 else -1
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 != stride1:
                return -1 if stride0 < stride1 else 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(shape)):  # PyTorch's insertion sort, which tolerates ambiguous pairs
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def _coalesce(shape, operands):
    """``TensorIterator::coalesce_dimensions``: merge neighbours that step through memory as one."""
    shape, operands = list(shape), [list(strides) for strides in operands]
    previous = 0
    for dim in range(1, len(shape)):
        if shape[previous] == 1 or shape[dim] == 1 or all(
                shape[previous] * strides[previous] == strides[dim] for strides in operands):
            if shape[previous] == 1:
                for strides in operands:
                    strides[previous] = strides[dim]
            shape[previous] *= shape[dim]
        else:
            previous += 1
            shape[previous] = shape[dim]
            for strides in operands:
                strides[previous] = strides[dim]
    kept = previous + 1 if shape else 0
    return shape[:kept], [strides[:kept] for strides in operands]


def _slab_sums(a, shape, ins):
    """The sum of every column of every slab (axes: the outer dimensions slowest first, then
    ``size1``), by the loop ``cascade_sum`` picks; each loop reads the values in the layout that
    keeps them in memory order."""
    lanes = _LANES[a.dtype]
    size0, size1 = shape[0], shape[1]
    rows = _view(a, shape[::-1], ins[::-1])  # (outer..., size1, size0)
    if ins[0] == a.itemsize and size0 >= lanes:  # the reduced dimension contiguous
        return _vectorized_inner_sum(rows, rows.ndim - 1)
    columns = rows.transpose((rows.ndim - 1,) + tuple(range(rows.ndim - 1)))  # (size0, outer..., size1)
    if ins[1] == a.itemsize and size1 >= lanes:
        return _columns_in_groups(columns, _OUTER_ROWS * lanes)
    if ins[0] < ins[1]:
        return _row_sum(columns, 0)
    return _columns_in_groups(columns, _OUTER_ROWS)


def _view(a, shape, strides):
    """``a``'s memory seen with ``shape`` and byte ``strides``: a reshape and a transpose where
    that is all it is (``as_strided`` costs more than the sums of a small tensor)."""
    recipe = _reshape_recipe(tuple(shape), tuple(strides), a.itemsize) if a.flags.c_contiguous else None
    if recipe is not None:
        return a.reshape(recipe[0]).transpose(recipe[1])
    return array_module_of(a).lib.stride_tricks.as_strided(a, shape, strides, writeable=False)


@functools.lru_cache(maxsize=256)
def _reshape_recipe(shape, strides, itemsize):
    """The reshape and transpose of a C-contiguous array that give ``shape`` and ``strides``, or None."""
    order = sorted(range(len(shape)), key=lambda axis: -strides[axis])
    step = itemsize
    for axis in reversed(order):
        if shape[axis] != 1 and strides[axis] != step:
            return None
        step *= shape[axis]
    return [shape[axis] for axis in order], sorted(range(len(order)), key=order.__getitem__)


class _Plan(NamedTuple):
    """How one reduction runs, worked out once per shape, strides and dims."""
    out_shape: tuple
    shape: tuple  # the kernel's dimensions, innermost first (size0, size1, outer...)
    ins: tuple  # the input's byte strides along them
    reduces: bool  # False: the kernel's "not a true reduction", out += in element by element
    sums_shape: tuple  # the axes of what the loops add into the output (outer slowest first)
    accumulate: tuple  # axes of those whose output stride is 0, added in order into one element
    accumulate_last: tuple  # the axes of those sums with the accumulated ones moved last
    placed_shape: tuple
    placed_strides: tuple  # the output's byte strides along the axes not accumulated
    in_output_order: bool  # the placed axes run through the output in its own order


def loop_slabs(a):
    """``a`` as ``TensorIterator`` walks a single input (``serial_for_each``): shaped ``(slabs,
    size1 * size0)``, each row one call of a 2-D loop, in the order the loops read it."""
    perm = _reorder(a.shape, (a.strides,), reduction=False)
    sizes, (strides,) = _coalesce([a.shape[d] for d in perm], ([a.strides[d] for d in perm],))
    while len(sizes) < 2:  # a 0-d or 1-D loop still has a second dimension: one step
        sizes, strides = sizes + [1], strides + [0]
    return _view(a, sizes[::-1], strides[::-1]).reshape(-1, sizes[0] * sizes[1])


@functools.lru_cache(maxsize=256)
def _plan(shape, strides, itemsize, dims):
    """The dimensions ``TensorIterator`` hands the kernel and where their sums go.  Training loops
    sum the same shapes again and again, so plans are remembered."""
    out_shape = tuple(size for d, size in enumerate(shape) if d not in dims)
    out_strides, step = [0] * len(shape), itemsize
    for d in reversed(range(len(shape))):
        if d not in dims:
            out_strides[d] = step
            step *= shape[d]
    perm = _reorder(shape, (out_strides, strides))
    sizes, (outs, ins) = _coalesce([shape[d] for d in perm],
                                   ([out_strides[d] for d in perm], [strides[d] for d in perm]))
    if len(sizes) == 1:  # a 1-D loop's second dimension: one step, stride 0
        sizes, outs, ins = sizes + [1], outs + [0], ins + [0]
    if outs[0] != 0 and outs[1] == 0:  # the kernel moves the reduction to the first dimension
        sizes[:2], outs[:2], ins[:2] = sizes[1::-1], outs[1::-1], ins[1::-1]
    reduces = outs[0] == 0
    sums_shape, sums_outs = (sizes[:0:-1], outs[:0:-1]) if reduces else (sizes[::-1], outs[::-1])
    placed = [axis for axis, stride in enumerate(sums_outs) if stride != 0]
    accumulate = tuple(axis for axis, stride in enumerate(sums_outs) if stride == 0)
    placed_strides = [sums_outs[axis] for axis in placed]
    moving = [stride for axis, stride in zip(placed, placed_strides) if sums_shape[axis] > 1]
    return _Plan(out_shape, tuple(sizes), tuple(ins), reduces,
                 tuple(sums_shape), accumulate, tuple(placed) + accumulate,
                 tuple(sums_shape[axis] for axis in placed),
                 tuple(placed_strides), moving == sorted(moving, reverse=True))


def sum_in_aten_order(a, dims):
    """``a`` (float32 or float64, any strides) summed over the sorted axes ``dims`` as PyTorch's CPU
    ``sum`` adds them on one thread; the result has those axes removed."""
    xp = array_module_of(a)
    zero = a.dtype.type(0)
    if all(a.shape[d] == 1 for d in dims):  # nothing to add up: the output's 0 plus each value
        return xp.add(a.reshape(tuple(size for d, size in enumerate(a.shape) if d not in dims)), zero,
                      order="C")
    if min(a.strides) < 0:  # PyTorch has no negative strides: a copy's order
        a = xp.ascontiguousarray(a)
    plan = _plan(a.shape, a.strides, a.itemsize, tuple(dims))
    if a.size == 0:
        return xp.zeros(plan.out_shape, a.dtype)
    if plan.reduces:
        sums = _slab_sums(a, plan.shape, plan.ins)
    else:
        sums = _view(a, plan.sums_shape, plan.ins[::-1])
    # The output starts at 0 and each slab's columns add into it, in the loops' order.
    if plan.accumulate:
        contributions = sums.transpose(plan.accumulate_last).reshape(plan.placed_shape + (-1,))
        total = running_sum(contributions, -1) + zero
    else:
        total = xp.add(sums, zero)
    if plan.in_output_order:  # the output is a new contiguous tensor, as PyTorch's
        result = xp.reshape(total, plan.out_shape)
        return result if result.flags.c_contiguous else result.copy()
    out = xp.empty(plan.out_shape, a.dtype)
    xp.lib.stride_tricks.as_strided(out, plan.placed_shape, plan.placed_strides)[...] = total
    return out

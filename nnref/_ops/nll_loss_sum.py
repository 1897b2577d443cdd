"""The order in which ATen's CPU ``nll_loss`` (and so ``cross_entropy``) adds up its losses.

``nll_loss_out_frame`` and ``nll_loss2d_forward_out_frame`` (``aten/src/ATen/native/LossNLL.cpp``,
``LossNLL2d.cpp``) do not call ``sum``: they keep 8 accumulators of their own.  Each target that
is not ``ignore_index`` subtracts its (weighted) log-probability from ``acc[0]``; then, at that
target's index ``i``, accumulator ``j`` is passed up into ``j + 1`` (and reset) for as long as
the ``j``-th group of 4 bits of ``i`` is zero, so index 0 passes ``acc[0]`` all the way up, every
16th index passes it to ``acc[1]``, every 256th on to ``acc[2]``, and so on.  The result is the 8
accumulators added in order to 0.  The summed weights of a weighted mean go through 8
accumulators of their own in the same way.

Here each level is done for all its groups at once: a group's values are added in order (by
``cumsum``, or as the columns of a zero-padded table that numpy reduces row after row), and its
sum becomes a value of the level above.
"""
import numpy as np

from ..core._device import array_module_of
from .cascade_sum import running_sum

__all__ = ["nll_cascade_sum"]

_LEVELS = 8
_POWER = 4  # max(4, CeilLog2(n) / 8): 4 below 2**40 targets
_STEP = 1 << _POWER  # values an accumulator receives before it passes them up
_PADDED_GROUP = 64  # longer groups (only behind runs of ignored targets) are added group by group


def _group_sums(values, ends):
    """The running sum of each group of ``values``, a group ending at each true ``ends`` (the
    values after the last end form the last group, possibly empty)."""
    xp = array_module_of(values)
    count = values.shape[0]
    group = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(ends)[:-1]]) if count else xp.zeros(0, np.int64)
    groups = int(ends.sum()) + 1
    starts = xp.full(groups, count, np.int64)
    first = xp.concatenate([xp.ones(min(count, 1), bool), group[1:] != group[:-1]])
    starts[group[first]] = xp.nonzero(first)[0]
    position = xp.arange(count) - starts[group]
    longest = int(position.max()) + 1 if count else 0
    if longest <= _PADDED_GROUP:
        table = xp.zeros((max(longest, 1), groups + 1), values.dtype)  # a spare column: never one column
        table[position, group] = values
        return xp.add.reduce(table, axis=0)[:groups]
    sums = xp.zeros(groups, values.dtype)
    for index in xp.unique(group):  # cumsum adds one value after another
        sums[index] = xp.cumsum(values[group == index], dtype=values.dtype)[-1]
    return sums


def _every_target_counts(values):
    """``nll_cascade_sum`` when no target is ignored: index 0 passes its value straight to the top
    accumulator, and every accumulator below passes up the sum of each 16 values it receives
    (``cumsum`` adds them one after another)."""
    xp = array_module_of(values)
    zero = values.dtype.type(0)
    accumulators, received = [], values[1:]
    while received.shape[0]:
        passed_up = received.shape[0] // _STEP * _STEP
        accumulators.append(xp.cumsum(received[passed_up:])[-1] if passed_up < received.shape[0] else zero)
        if not passed_up:
            break
        received = xp.cumsum(received[:passed_up].reshape(-1, _STEP), axis=1)[:, -1]
    total = zero
    for acc in accumulators + [values[0]]:
        total = total + acc
    return total


def nll_cascade_sum(values, indices=None):
    """The sum of ``values`` (float, in order) that sit at the ``indices`` (increasing int64) of the
    targets not ignored, added as ``nll_loss``'s accumulators add them; ``indices=None``: the
    values of every target, none ignored."""
    xp = array_module_of(values)
    if not values.shape[0]:
        return values.dtype.type(0)
    if indices is None or indices[-1] == indices.shape[0] - 1:
        return _every_target_counts(values)
    nibbles = xp.zeros(indices.shape, np.int64)  # how many accumulators index i passes up
    still_zero = xp.ones(indices.shape, bool)
    for level in range(_LEVELS - 1):
        still_zero &= (indices & (_STEP - 1 << level * _POWER)) == 0
        nibbles += still_zero
    accumulators = []
    for level in range(_LEVELS - 1):
        ends = nibbles > level  # the values after which this accumulator is passed up
        sums = _group_sums(values, ends)
        accumulators.append(sums[-1])  # what it still holds at the end
        values, nibbles = sums[:-1], nibbles[ends]
    accumulators.append(_group_sums(values, xp.zeros(values.shape, bool))[-1])
    total = values.dtype.type(0)
    for acc in accumulators:
        total = total + acc
    return total

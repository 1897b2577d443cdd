"""``where(keep, values, 0)``: the select of PyTorch's masking backward passes, exact and fast.

``threshold_backward`` (ReLU's), ``hardtanh_backward``, ``hardsigmoid_backward``,
``hardswish_backward`` and ``clamp_backward`` (``aten/src/ATen/native/cpu/Activation.cpp``,
``torch/csrc/autograd/FunctionsManual.cpp``) all *select*: where the mask is false the
gradient is +0, whatever arrived there.  Multiplying by a 0/1 mask is not the same: a negative
gradient times 0 is -0 (printed ``-0.``) and an infinite or NaN one is NaN.  numpy's own select,
``np.where``, is exact but branches on every element: on a mask that changes from one element
to the next it is fifteen times slower than a multiply.  So the mask becomes an integer of the
values' width with every bit set where it is true, and the select is a bitwise AND of the
values' bits with it: three passes over memory, each as fast as a multiply.
"""
import numpy as np

from ..core._device import array_module_of

__all__ = ["select_or_zero"]


def select_or_zero(keep, values):
    """``values`` where the bool array ``keep`` is true, +0 elsewhere, as a new array of their
    broadcast shape in ``values``' dtype."""
    xp = array_module_of(values)
    bits = np.dtype(f"int{8 * values.dtype.itemsize}")
    mask = xp.asarray(keep, dtype=bits)  # an array also for a 0-d input's numpy bool
    xp.negative(mask, out=mask)  # true: -1, all bits set
    if mask.shape == np.broadcast_shapes(mask.shape, values.shape):
        xp.bitwise_and(mask, values.view(bits), out=mask)
        return mask.view(values.dtype)
    return xp.bitwise_and(mask, values.view(bits)).view(values.dtype)

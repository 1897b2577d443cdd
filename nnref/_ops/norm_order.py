"""A whole-tensor vector norm summed in the order of ATen's CPU kernel, so float32 norms carry
PyTorch's last digits (``norm_kernel_tensor_iterator_impl`` in
``aten/src/ATen/native/cpu/ReduceOpsKernel.cpp``, ``binary_kernel_reduce`` in
``aten/src/ATen/native/cpu/Reduce.h``).

A float32 sum rounds after every addition, so its value depends on the order: numpy's pairwise
sum and ATen's loops disagree in the last bits on most tensors of a few hundred elements, which
``clip_grad_norm_`` then prints.  ATen sums the 2-norm of a float or double tensor that fills one
block of memory in ``Vectorized`` lanes (element ``d`` into lane ``d % lanes``, each lane one
running sum), folds the lanes left to right, then adds the tail elements one by one (as compiled:
groups of four rounded squares, then the last one to three in fused multiply-adds).  Every other
norm, and the 2-norm of a tensor with gaps, is one running sum in memory order (on one thread:
above ``GRAIN_SIZE`` = 32768 elements PyTorch splits those sums between its threads).
``cumsum`` is numpy's one-by-one running sum.
"""
import math
from fractions import Fraction

import numpy as np

from .._capability import SUM_LANES as _LANES, fuses_multiply_add
from ..core._device import array_module_of

__all__ = ["ordered_vector_norm", "follows_aten_order"]

_WIDER = {np.dtype(np.float32): np.float64, np.dtype(np.float64): np.longdouble}


def follows_aten_order(data):
    """Whether ``ordered_vector_norm`` applies: a float32/float64 array in host memory."""
    return type(data) is np.ndarray and data.dtype in _LANES


def _running_sum(xp, values):
    return xp.cumsum(values, dtype=values.dtype)[-1] if values.size else values.dtype.type(0)


def _is_dense(data):
    """Whether the elements fill one block of memory in some order of the dims (a permuted
    contiguous tensor), which ATen's vectorised 2-norm needs (``is_reduce_lastdim``)."""
    expected = data.itemsize
    for stride, size in sorted((abs(stride), size) for size, stride in zip(data.shape, data.strides) if size > 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _fused_multiply_add(a, b, c):
    """``a * b + c`` rounded once to ``c``'s dtype (the CPU's fma), or twice where the capability
    has no FMA instructions."""
    if not (fuses_multiply_add() and math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return c + a * b  # inf and nan: the same either way
    return c.dtype.type(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


def ordered_vector_norm(data, p):
    """The ``p``-norm of every element of ``data`` (float32 or float64), as a 0-d array."""
    xp = array_module_of(data)
    flat = xp.ravel(data, order="K")  # memory order, the order TensorIterator walks a permuted tensor in
    magnitude = xp.abs(flat)
    if p == np.inf:
        return magnitude.max()
    if p == -np.inf:
        return magnitude.min()
    if p == 0:
        return flat.dtype.type(xp.count_nonzero(flat))
    if p == 1:
        return _running_sum(xp, magnitude)
    if p == 2 and not _is_dense(data):  # TensorIterator cannot make it one run: NormTwoOps, one by one
        return xp.sqrt(_running_sum(xp, flat * flat))
    if p == 2:
        lanes = _LANES[flat.dtype]
        body = flat.size - flat.size % lanes
        squares = flat * flat
        # a sum down the rows adds row after row: each lane's running sum, as the vector loop
        lane_sums = xp.sum(squares[:body].reshape(-1, lanes), axis=0, dtype=flat.dtype)
        # the tail loop as compiled: unrolled by four with rounded squares, the last one to three fused
        fused = (flat.size - body) % 4
        total = _running_sum(xp, xp.concatenate([lane_sums, squares[body:flat.size - fused]]))
        for x in flat[flat.size - fused:]:  # at most 3
            total = _fused_multiply_add(x, x, total)
        return xp.sqrt(total)
    # libm's pow is correctly rounded (to the last bit, nearly always), numpy's vectorised power
    # is not: the powers in a wider type, rounded
    wide = _WIDER[flat.dtype]
    exponent, root = flat.dtype.type(p), flat.dtype.type(1) / flat.dtype.type(p)
    with np.errstate(divide="ignore"):  # p < 0 with a zero entry: inf ** (1/p) = 0, quietly
        total = _running_sum(xp, (magnitude.astype(wide) ** wide(exponent)).astype(flat.dtype))
        return flat.dtype.type(wide(total) ** wide(root))

"""Rounding as PyTorch's compiled CPU kernels round: a fused multiply-add (``fma``), and the values
of ``at::linspace`` (``aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp``), whose loop is built
from fused multiply-adds.

ATen's vectorised kernels are compiled with FMA contraction where the CPU capability they run
with has FMA instructions (AVX2, AVX512: ``nnref._capability``), so ``a * b + c`` in them rounds
once; numpy has no fused multiply-add, so :func:`fma` builds one.  The ``DEFAULT`` build rounds
the product and the sum apart, and so does :func:`fma` under that capability.
"""
import numpy as np

from .._capability import fuses_multiply_add
from ..core._device import array_module_of

__all__ = ["fma", "fused_multiply_add", "linspace_values"]


def fma(a, b, c):
    """``a * b + c`` as ATen's compiled ``fmadd`` rounds it: once where the capability has FMA
    instructions (:func:`fused_multiply_add`), else the product and then the sum."""
    if fuses_multiply_add():
        return fused_multiply_add(a, b, c)
    modules = [array_module_of(v) for v in (a, b, c)]
    xp = next((m for m in modules if m is not np), np)  # a device array among numpy scalars
    a, b, c = xp.asarray(a), xp.asarray(b), xp.asarray(c)
    return (a * b + c).astype(xp.result_type(a, b, c), copy=False)


def fused_multiply_add(a, b, c):
    """``a * b + c`` rounded once.  float32 and narrower go through float64 (where their product
    is exact); float64 takes Dekker's exact product and Knuth's two-sum of the parts (overflowing
    operands fall back to the plain formula)."""
    modules = [array_module_of(v) for v in (a, b, c)]
    xp = next((m for m in modules if m is not np), np)  # a device array among numpy scalars
    a, b, c = xp.asarray(a), xp.asarray(b), xp.asarray(c)
    dtype = xp.result_type(a, b, c)
    if dtype.itemsize < 8:
        return (a.astype(np.float64) * b.astype(np.float64) + c).astype(dtype)
    with np.errstate(all="ignore"):
        product = a * b
        split = 134217729.0  # 2**27 + 1: Veltkamp's split into 26-bit halves that multiply exactly
        a_scaled, b_scaled = split * a, split * b
        a_high, b_high = a_scaled - (a_scaled - a), b_scaled - (b_scaled - b)
        a_low, b_low = a - a_high, b - b_high
        product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
        total = product + c
        back = total - product
        sum_error = (product - (total - back)) + (c - back)
        fused = total + (product_error + sum_error)
    return xp.where(xp.isfinite(fused), fused, product + c)


def linspace_values(start, end, steps, dtype, xp):
    """``at::linspace`` for a float ``dtype``: ``step = (end - start) / (steps - 1)`` in the dtype,
    the first half ``start + step * i`` and the second half ``end - step * (steps - 1 - i)``, each
    one fused multiply-add (measured bit for bit against PyTorch for 1 to 20000 steps)."""
    f = np.dtype(dtype).type
    first, last = f(start), f(end)
    if steps == 1:
        return xp.full(1, first)
    step = (last - first) / f(steps - 1)
    i = xp.arange(steps)
    return xp.where(i < steps // 2, fma(step, i.astype(dtype), first),
                    fma(-step, (steps - 1 - i).astype(dtype), last)).astype(dtype, copy=False)

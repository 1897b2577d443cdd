"""Rounding as PyTorch's compiled CPU kernels round: a fused multiply-add (``fma``), and the values
of ``at::linspace`` (``aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp``), whose loop is built
from fused multiply-adds.

ATen's vectorised kernels are compiled with FMA contraction, so ``a * b + c`` in them rounds once;
numpy has no fused multiply-add, so :func:`fma` builds one.
"""
import numpy as np

from .._device import array_module_of

__all__ = ["fma", "linspace_values"]


def fma(a, b, c):
    """``a * b + c`` rounded once, as the compiled ``fmadd``: float32 through float64 (where the
    product is exact); float64 with Dekker's exact product and a two-sum of the parts."""
    modules = [array_module_of(v) for v in (a, b, c)]
    xp = next((m for m in modules if m is not np), np)  # a device array among numpy scalars
    a, b, c = xp.asarray(a), xp.asarray(b), xp.asarray(c)
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) + c).astype(np.float32)
    with np.errstate(all="ignore"):
        p = a * b
        split = 134217729.0  # 2**27 + 1: Veltkamp's split into 26-bit halves
        ta, tb = split * a, split * b
        ah, bh = ta - (ta - a), tb - (tb - b)
        al, bl = a - ah, b - bh
        err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        bp = s - c
        t = (p - bp) + (c - (s - bp))
        out = s + (t + err)
    return xp.where(xp.isfinite(out), out, p + c)


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

"""Rounding as PyTorch's compiled CPU kernels round: a fused multiply-add (``fma``), and the values
of ``at::linspace`` (``aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp``), whose loop is built
from fused multiply-adds.

ATen's vectorised kernels are compiled with FMA contraction where the CPU capability they run
with has FMA instructions (AVX2, AVX512: ``nnref._capability``), so ``a * b + c`` in them rounds
once; numpy has no fused multiply-add, so :func:`fma` builds one.  The ``DEFAULT`` build rounds
the product and the sum apart, and so does :func:`fma` under that capability.

:func:`add_scaled_` is ``param += alpha * update`` in one pass over memory, BLAS's ``axpy``: numpy
has no fused "scale and add", so ``param -= lr * grad`` reads and writes the parameter-sized
arrays twice, once for ``lr * grad`` into a scratch buffer, once for the subtraction.  OpenBLAS
picks its kernel from the CPU as ATen does (``tests/capabilities.py`` tells both the same), but
not every kernel rounds as ATen's ``fmadd``: Haswell's fuses its vector body and rounds the last
elements twice.  So ``axpy`` is used only where a probe showed it gives :func:`fma`'s digits on
this machine (:func:`axpy_rounds_as_aten`); elsewhere, without SciPy, for dtypes BLAS lacks (like
float16) and for CUDA arrays (which SciPy cannot read), the update takes :func:`fma`'s passes.
"""
import numpy as np

from .._capability import fuses_multiply_add
from ..core._device import array_module_of

__all__ = ["fma", "fused_multiply_add", "linspace_values", "add_scaled_", "axpy_rounds_as_aten"]

try:
    from scipy.linalg import blas as _blas
except ImportError:  # SciPy is optional: the fallback below is just one pass slower
    _blas = None

_AXPY = {} if _blas is None else {np.dtype(np.float32): _blas.saxpy, np.dtype(np.float64): _blas.daxpy}
_AXPY_AS_ATEN = {}


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


def axpy_rounds_as_aten(dtype):
    """Whether BLAS's ``axpy`` for ``dtype`` gives ``fma(update, alpha, param)`` here, measured once
    on a probe long enough for every kernel's vector body and remainder (a few in ten thousand
    elements of random values would round alike by chance, not 1021)."""
    dtype = np.dtype(dtype)
    if dtype not in _AXPY_AS_ATEN:
        axpy = _AXPY.get(dtype)
        if axpy is None:
            _AXPY_AS_ATEN[dtype] = False
        else:
            rng = np.random.default_rng(0)
            update, param = rng.standard_normal((2, 1021)).astype(dtype)
            alpha = dtype.type(-0.1)
            expected = fma(update, alpha, param)
            _AXPY_AS_ATEN[dtype] = np.array_equal(axpy(update, param.copy(), a=alpha), expected)
    return _AXPY_AS_ATEN[dtype]


def add_scaled_(param, alpha, update, work=None):
    """``param += alpha * update`` in place: PyTorch's ``param.add_(update, alpha=alpha)``.

    Where BLAS's ``axpy`` rounds as ATen does, it does it in one pass; otherwise float32 and
    float64 take :func:`fma`, and other dtypes ``alpha * update`` through ``work`` (a scratch
    array shaped like ``param``) or, without one, a temporary.
    """
    xp = array_module_of(param)
    axpy = _AXPY.get(param.dtype) if xp is np else None  # SciPy's BLAS reads host memory only
    if (axpy is not None and update.dtype == param.dtype and param.flags.c_contiguous
            and update.flags.c_contiguous and axpy_rounds_as_aten(param.dtype)):
        flat = param.reshape(-1)
        result = axpy(update.reshape(-1), flat, a=alpha)
        if result is flat or xp.shares_memory(result, flat):
            return
        param[...] = result.reshape(param.shape)  # BLAS could not write in place: copy back
        return
    if param.dtype in (np.float32, np.float64) and update.dtype == param.dtype:
        param[...] = fma(update, param.dtype.type(alpha), param)
        return
    if work is None:
        param += alpha * update
        return
    xp.multiply(update, alpha, out=work)
    xp.add(param, work, out=param)

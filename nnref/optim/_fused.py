"""``param -= scale * update`` in one pass over memory, the core of every optimizer step.

numpy has no fused "scale and add" (BLAS's ``axpy``), so ``param -= lr * grad`` reads
and writes the parameter-sized arrays twice: once for ``lr * grad`` into a scratch
buffer, once for the subtraction. When SciPy is installed its BLAS ``axpy`` does both
in a single pass, which is what PyTorch's fused optimizer kernels do too. Without SciPy
(or for dtypes BLAS lacks, like float16, or for CUDA arrays, which SciPy cannot read)
the two passes give the same result.
"""
import numpy as np

from .._device import array_module_of

try:
    from scipy.linalg import blas as _blas
except ImportError:  # SciPy is optional: the fallback below is just one pass slower
    _blas = None

_AXPY = {} if _blas is None else {np.dtype(np.float32): _blas.saxpy, np.dtype(np.float64): _blas.daxpy}


def subtract_scaled_(param, scale, update, work):
    """``param -= scale * update`` in place; ``work`` is a scratch array shaped like ``param``."""
    xp = array_module_of(param)
    axpy = _AXPY.get(param.dtype) if xp is np else None  # SciPy's BLAS reads host memory only
    if (axpy is not None and update.dtype == param.dtype and param.flags.c_contiguous
            and update.flags.c_contiguous):
        flat = param.reshape(-1)
        result = axpy(update.reshape(-1), flat, a=-scale)
        if result is flat or xp.shares_memory(result, flat):
            return
        param[...] = result.reshape(param.shape)  # BLAS could not write in place: copy back
        return
    xp.multiply(update, scale, out=work)
    xp.subtract(param, work, out=param)

"""A double narrowed to float16 as c10 does it: through float32 (``c10/util/Half.h``).

``c10::Half`` is built from a ``float`` only, so ``static_cast<Half>(double)`` rounds the double to
float32 first and that float32 to float16: rounding twice, which differs from numpy's direct
float64 -> float16 rounding in the last bit for values just off a float16 half-way point
(``tensor(7.822265834, dtype=float16)`` is 7.8203125 in PyTorch, 7.82421875 in numpy).
bfloat16 needs nothing: ml_dtypes, like ``c10::BFloat16(float)``, already casts a double through
float32. Every path where a double becomes float16 goes through :func:`through_float32`.
"""
import builtins

import numpy as np

__all__ = ["through_float32"]

_FLOAT16 = np.dtype(np.float16)
_NARROWER = {np.dtype(np.float64): np.float32, np.dtype(np.complex128): np.complex64}


def through_float32(data, dtype):
    """``data`` (an array, a nested list, or a number) ready to be converted to the numpy ``dtype``:
    when ``dtype`` is float16, its doubles (float64, complex128, Python floats) rounded to float32
    as PyTorch's cast does; otherwise ``data`` itself, untouched."""
    if dtype != _FLOAT16:
        return data
    with np.errstate(over="ignore"):  # beyond float32's range: inf, as c10's cast gives
        if isinstance(data, builtins.float):
            return np.float32(data)
        if isinstance(data, (list, tuple)):
            data = np.asarray(data)  # a nested list: its numbers as numpy reads them
        narrower = _NARROWER.get(getattr(data, "dtype", None))
        return data if narrower is None else data.astype(narrower)

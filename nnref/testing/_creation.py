"""``make_tensor``: a random tensor for tests, mirroring ``torch/testing/_creation.py``.

It makes the same generator calls as PyTorch's (``randint`` for bool and integer dtypes,
``empty(...).uniform_`` for floating ones), and nnref's generators draw PyTorch's numbers, so
after the same ``manual_seed`` the tensor is PyTorch's.
"""
import functools
import math
import warnings

from ..core import _dtype
from .._creation import empty, randint
from .._type_info import finfo, iinfo

_INTEGRAL_TYPES = [_dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64]
_FLOATING_TYPES = [_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64]
_BOOLEAN_OR_INTEGRAL_TYPES = [_dtype.bool, *_INTEGRAL_TYPES]


def _uniform_random_(t, low, high):
    if high - low >= finfo(t.dtype).max:  # the width itself would overflow: draw half, double
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` filled with uniform random values in ``[low, high)`` (default
    ``[-9, 9)`` for floats, ``[-9, 10)`` for integers, clamped to what the dtype holds; bools
    ``False``/``True``); ``noncontiguous`` takes every other element of a wider tensor,
    ``exclude_zero`` replaces zeros by 1 (integers) or the dtype's ``tiny``.  Complex and
    float8 dtypes do not exist in nnref, nor memory formats: ``memory_format`` raises
    ``NotImplementedError`` (``torch.testing.make_tensor``, ``torch/testing/_creation.py``)."""

    def modify_low_high(low, high, *, lowest_inclusive, highest_exclusive, default_low, default_high):
        low = low if low is not None else default_low
        high = high if high is not None else default_high
        if any(isinstance(value, float) and math.isnan(value) for value in [low, high]):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low!r} and high={high!r}")
        elif low == high and dtype in _FLOATING_TYPES:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
                          "types is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` "
                          "instead.", FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest_inclusive or low >= highest_exclusive:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but "
                             f"{dtype} only supports [{lowest_inclusive}, {highest_exclusive})")
        low = min(max(low, lowest_inclusive), highest_exclusive)
        high = min(max(high, lowest_inclusive), highest_exclusive)
        if dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
            return math.ceil(low), math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, but "
                         f"got noncontiguous={noncontiguous!r} and memory_format={memory_format!r}")
    if memory_format is not None:
        raise NotImplementedError("nnref tensors have no memory formats: make_tensor(memory_format=) "
                                  "is not available")
    if requires_grad and dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype!r}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:  # drawn twice as wide in the last dimension, then every other element kept
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _dtype.bool:
        low, high = modify_low_high(low, high, lowest_inclusive=0, highest_exclusive=2,
                                    default_low=0, default_high=2)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL_TYPES:
        low, high = modify_low_high(
            low, high, lowest_inclusive=iinfo(dtype).min,
            highest_exclusive=iinfo(dtype).max + (1 if dtype is not _dtype.int64 else 0),
            default_low=-9, default_high=10)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_TYPES:
        low, high = modify_low_high(low, high, lowest_inclusive=finfo(dtype).min,
                                    highest_exclusive=finfo(dtype).max, default_low=-9, default_high=9)
        result = _uniform_random_(empty(shape, device=device, dtype=dtype), low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). "
                        "To request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOLEAN_OR_INTEGRAL_TYPES else finfo(dtype).tiny
    if dtype in _FLOATING_TYPES:
        result.requires_grad = requires_grad
    return result

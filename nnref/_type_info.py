"""``nnref.finfo`` and ``nnref.iinfo``: the limits of a floating-point or integer dtype.

Mirrors ``torch.finfo``/``torch.iinfo`` (``torch/csrc/TypeInfo.cpp``): the same attributes, the
same printed form (``%g`` numbers, the dtype's name), Python ``float``/``int`` values.  The
numbers come from numpy's (and ``ml_dtypes``' for bfloat16) description of the same formats.

Also the dtype rules beyond the teaching core's (``nnref/core/_dtype.py``): Python's ``float``,
``int``, ``bool`` and the legacy names (``'torch.FloatTensor'``) read as dtypes (``as_dtype``,
``from_legacy_name``), a numpy dtype's nnref dtype with PyTorch's refusal, a Python number checked
against a dtype's range (``checked_scalar``) and the bool < int < float categories of casts.
"""
import builtins
import math

import ml_dtypes
import numpy as np

from .core._naming import TorchNamed
from .core import _dtype
from ._half import through_float32

__all__ = ["finfo", "iinfo"]


class finfo(metaclass=TorchNamed):
    """The limits of a floating-point dtype (the default dtype when none is given):
    ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``), ``resolution``
    and ``dtype`` (its name), as ``torch.finfo`` (``torch/csrc/TypeInfo.cpp``)."""
    _torch_name = "torch.finfo"  # PyTorch's name (nnref/_naming.py)

    __hash__ = None  # PyTorch's finfo compares equal by value and cannot be hashed

    def __init__(self, type=None):
        type = _dtype.get_default_dtype() if type is None else type
        if not isinstance(type, _dtype.dtype):
            raise TypeError(f"finfo(): argument 'type' (position 1) must be torch.dtype, not "
                            f"{builtins.type(type).__name__}")
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        info = ml_dtypes.finfo(type.numpy) if type is _dtype.bfloat16 else np.finfo(type.numpy)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo(metaclass=TorchNamed):
    """The limits of an integer dtype: ``bits``, ``max``, ``min`` and ``dtype`` (its name), as
    ``torch.iinfo`` (``torch/csrc/TypeInfo.cpp``)."""
    _torch_name = "torch.iinfo"  # PyTorch's name (nnref/_naming.py)

    __hash__ = None

    def __init__(self, type):
        if not isinstance(type, _dtype.dtype):
            raise TypeError(f"iinfo(): argument 'type' (position 1) must be torch.dtype, not "
                            f"{builtins.type(type).__name__}")
        if type is _dtype.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(type.numpy)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


_PYTHON_TYPES = {builtins.float: _dtype.float64, builtins.int: _dtype.int64, builtins.bool: _dtype.bool}


def as_dtype(value, argument="dtype"):
    """``value`` as an nnref dtype: a dtype itself, or Python's ``float``/``int``/``bool``
    (float64, int64, bool), as ``torch``'s argument parser accepts them; None stays None."""
    if value is None or type(value) is _dtype.dtype:
        return value
    if not isinstance(value, type):
        raise TypeError(f"argument '{argument}' must be nnref.dtype, not {type(value).__name__}")
    if value in _PYTHON_TYPES:
        return _PYTHON_TYPES[value]
    if value is builtins.complex:
        raise TypeError(f"argument '{argument}' is complex, which PyTorch reads as complex128; nnref "
                        "has no complex dtypes (see the Differences page)")
    raise TypeError(f"argument '{argument}' must be nnref.dtype, not {type(value).__name__}")


_BY_LEGACY_NAME = {d._legacy_name: d for d in _dtype.ALL_DTYPES}


def from_legacy_name(name):
    """``'torch.FloatTensor'`` (or ``'nnref.FloatTensor'``) -> ``float32``, for ``Tensor.type(str)``."""
    short = name.rsplit(".", 1)[-1]
    if short not in _BY_LEGACY_NAME:
        raise ValueError(f"invalid type: '{name}'; expected one of "
                         + ", ".join(f"'torch.{n}'" for n in _BY_LEGACY_NAME))
    return _BY_LEGACY_NAME[short]


def _is_signed(self):
    """False for unsigned integers and bool (``torch.dtype.is_signed``)."""
    return self.is_floating_point or bool(np.issubdtype(self.numpy, np.signedinteger))


def _is_complex(self):
    """False: nnref has no complex dtypes (``torch.dtype.is_complex``)."""
    return False


def _itemsize(self):
    """The size of one element in bytes (``torch.dtype.itemsize``)."""
    return self.numpy.itemsize


def _reduce(self):
    """A dtype pickles as its name, the module attribute that holds it (``torch.float32``)."""
    return self.name


_dtype.dtype.is_signed, _dtype.dtype.is_complex = property(_is_signed), property(_is_complex)
_dtype.dtype.itemsize, _dtype.dtype.__reduce__ = property(_itemsize), _reduce


def from_numpy_dtype(np_dtype):
    """The nnref dtype that stores ``np_dtype``; raise TypeError for types nnref lacks."""
    try:
        return _dtype._BY_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        supported = ", ".join(str(d.numpy) for d in _dtype.ALL_DTYPES)
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. "
                        f"The only supported types are: {supported}.") from None


# C++ names of the element types, as PyTorch's overflow message spells them
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}

_LARGEST = {d: builtins.float(ml_dtypes.finfo(d.numpy).max) for d in (_dtype.float16, _dtype.bfloat16, _dtype.float32)}


def checked_scalar(value, dtype, *, checked_16bit=True):
    """The Python number ``value`` as a numpy scalar of ``dtype``, or PyTorch's RuntimeError when
    it does not fit (``c10::checked_convert``, the rule of ``c10::overflows``): an integer
    outside an integer type's range (unsigned types let negatives down to -max wrap), a float
    outside its range or NaN for integer types, a finite number beyond a float type's range
    (float32's, or a 16-bit float's unless ``checked_16bit`` is False: ``fill_`` and ``full``
    round it to inf).  Bool takes anything, as in PyTorch.
    """
    if isinstance(value, builtins.bool) or dtype is _dtype.bool:
        return dtype.numpy.type(value)
    if dtype.is_floating_point:
        checked = dtype is _dtype.float32 and isinstance(value, builtins.float) or dtype.itemsize == 2 and checked_16bit
        overflows = checked and abs(value) != math.inf and abs(value) > _LARGEST[dtype]
    else:
        limits = np.iinfo(dtype.numpy)
        if isinstance(value, builtins.float):
            overflows = not limits.min <= value <= limits.max  # NaN and inf included
        else:
            low = -builtins.int(limits.max) if limits.min == 0 else limits.min
            overflows = not low <= value <= limits.max
            if not overflows and value < limits.min:  # a negative number wraps into an unsigned type
                value += builtins.int(limits.max) + 1
    if overflows:
        raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES[dtype.name]} without overflow")
    return dtype.numpy.type(through_float32(value, dtype.numpy))


def category(d):
    """0 for bool, 1 for integers, 2 for floating point: the order PyTorch promotes across."""
    return 2 if d.is_floating_point else (0 if d is _dtype.bool else 1)

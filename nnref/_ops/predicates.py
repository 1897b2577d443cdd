"""``isnan``, ``isinf``, ``isfinite``: bool tensors that say which values are special.

Integer and bool tensors hold no NaN or infinity, so they are all finite.  No
gradient flows through a comparison, as in PyTorch.
"""
from ..core._device import array_module
from ._common import wrap

__all__ = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal"]


def _test(name, input):
    xp = array_module(input._device)
    if input._dtype.is_floating_point:
        return wrap(getattr(xp, name)(input._data), input)
    return wrap(xp.full(input._data.shape, name == "isfinite"), input)


def isnan(input):
    """A bool tensor, True where the value is NaN (``torch.isnan``,
    ``aten/src/ATen/native/TensorCompare.cpp``)."""
    return _test("isnan", input)


def isinf(input):
    """A bool tensor, True where the value is +inf or -inf (``torch.isinf``,
    ``aten/src/ATen/native/TensorCompare.cpp``)."""
    return _test("isinf", input)


def isfinite(input):
    """A bool tensor, True where the value is neither NaN nor infinite (``torch.isfinite``,
    ``aten/src/ATen/native/TensorCompare.cpp``)."""
    return _test("isfinite", input)


def _compare(input, value):
    xp = array_module(input._device)
    if not input._dtype.is_floating_point:
        return wrap(xp.zeros(input._data.shape, dtype=bool), input)
    return wrap(input._data == value, input)


def isposinf(input):
    """A bool tensor, True where the value is +inf (``torch.isposinf``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _compare(input, float("inf"))


def isneginf(input):
    """A bool tensor, True where the value is -inf (``torch.isneginf``,
    ``aten/src/ATen/native/UnaryOps.cpp``)."""
    return _compare(input, float("-inf"))


def isreal(input):
    """A bool tensor, True everywhere: nnref's tensors are real (``torch.isreal``,
    ``torch/_torch_docs.py``)."""
    xp = array_module(input._device)
    return wrap(xp.ones(input._data.shape, dtype=bool), input)

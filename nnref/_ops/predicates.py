"""``isnan``, ``isinf``, ``isfinite``: bool tensors that say which values are special.

Integer and bool tensors hold no NaN or infinity, so they are all finite.  No
gradient flows through a comparison, as in PyTorch.
"""
from .._device import array_module
from ._common import wrap

__all__ = ["isnan", "isinf", "isfinite"]


def _test(name, input):
    xp = array_module(input._device)
    if input._dtype.is_floating_point:
        return wrap(getattr(xp, name)(input._data), input)
    return wrap(xp.full(input._data.shape, name == "isfinite"), input)


def isnan(input):
    return _test("isnan", input)


def isinf(input):
    return _test("isinf", input)


def isfinite(input):
    return _test("isfinite", input)

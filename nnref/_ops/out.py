"""``out=``: write a function's result into a tensor the caller provides (``torch.add(a, b, out=c)``).

PyTorch's rules (``aten/src/ATen/native/Resize.cpp`` and the autograd codegen): the
result is cast to ``out``'s dtype when that is no lower a category (no float into an
int tensor); an ``out`` of another shape is resized, with a deprecation warning unless it
was empty; and no argument may require grad while grad mode is on, since writing into
``out`` cannot be differentiated.
"""
import functools
import warnings

from ..core._tensor import Tensor
from ..core.autograd.grad_mode import _GradState
from ._common import needs_grad
from .inplace import _write

__all__ = ["with_out"]


def _resize(out, shape):
    if tuple(out._data.shape) == tuple(shape):
        return
    if out._data.size:
        warnings.warn(f"An output with one or more elements was resized since it had shape "
                      f"{list(out.shape)}, which does not match the required output shape "
                      f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release "
                      "outputs will not be resized unless they have zero elements. You can "
                      "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                      "with t.resize_(0).", UserWarning, stacklevel=4)
    if out._is_view():
        raise RuntimeError("nnref cannot resize an out= tensor that is a view of another tensor; "
                           "pass a tensor of the result's shape")
    from ..core._device import array_module
    out._data = array_module(out._device).empty(shape, dtype=out._dtype.numpy)


def with_out(function):
    """``function`` with PyTorch's keyword-only ``out=`` argument."""
    @functools.wraps(function)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return function(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{function.__name__}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        if _GradState.enabled and (out.requires_grad or needs_grad(*tensors)):
            raise RuntimeError(f"{function.__name__}(): functions with out=... arguments don't "
                               "support automatic differentiation, but one of the arguments "
                               "requires grad.")
        result = function(*args, **kwargs)
        _resize(out, result._data.shape)
        _write(out, result)
        return out
    return wrapper

"""``out=``: write a function's result into a tensor the caller provides (``torch.add(a, b, out=c)``).

PyTorch's rules (``aten/src/ATen/native/Resize.cpp`` and the autograd codegen): the
result is cast to ``out``'s dtype when that is no lower a category (no float into an
int tensor); an ``out`` of another shape is resized, with a deprecation warning unless it
was empty; and no argument may require grad while grad mode is on, since writing into
``out`` cannot be differentiated.
"""
import functools
import warnings

from ..core import _device
from ..core._tensor import Tensor
from ..core.autograd.grad_mode import _GradState
from ._common import needs_grad
from .inplace import (_write, check_no_partial_overlap, check_not_inference, check_writable, has_internal_overlap,
                      shares_memory)

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
        raise NotImplementedError("nnref cannot resize an out= tensor that is a view of another tensor; "
                                  "pass a tensor of the result's shape")
    from ..core._device import array_module
    out._data = array_module(out._device).empty(shape, dtype=out._dtype.numpy)


def _tensors(args):
    """The tensors among the arguments, including those in a list (``cat``'s)."""
    for arg in args:
        if isinstance(arg, Tensor):
            yield arg
        elif isinstance(arg, (list, tuple)):
            yield from _tensors(arg)


def _refuse_shared_memory(function, out, tensors):
    if not _device.has_values(out._data):  # ('meta' tensors have no memory to share)
        return
    for tensor in tensors:
        if type(tensor._data) is type(out._data) and shares_memory(out._data, tensor._data):
            raise NotImplementedError(
                f"nnref cannot reproduce {function.__name__}(..., out=...) with an out that shares memory "
                f"with an input: PyTorch writes out while it still reads the input there, so its result "
                f"depends on its loop order. Pass an out tensor of its own.")


def _check_shared_elements(function, out, internal):
    """An ``out`` whose elements share memory (an expanded tensor) is refused, as TensorIterator
    refuses it (``assert_no_internal_overlap``); the kernels that write ``out`` themselves
    (``sum``, ``mv``, ``bmm``: ``internal="unchecked"``) do not check and write each shared
    element once per position, in their loop order, which nnref does not model."""
    if internal == "unchecked" and _device.has_values(out._data) and has_internal_overlap(out._data):
        raise NotImplementedError(
            f"nnref cannot reproduce {function.__name__}(..., out=...) into a tensor whose elements share "
            f"memory (an expanded tensor): PyTorch writes each shared element once per position, in its "
            f"loop order. Pass an out tensor that owns its elements (.clone() it).")
    check_writable(out)


def with_out(function, *, overlap="checked", internal="checked", out_dtypes=None):
    """``function`` with PyTorch's keyword-only ``out=`` argument.

    What an ``out`` sharing memory with an input gives depends on how PyTorch's kernel writes it
    (``overlap``): ``"checked"``, the TensorIterator ops, which refuse a partial overlap
    (``check_no_partial_overlap``); ``"copied"``, the ops whose ``out=`` form computes into new
    memory and copies it over (``slice_scatter``), where it does not matter; ``"unchecked"``, the
    reductions and matrix products, which write ``out`` (a zero first) while still reading, so
    that nnref, which does not model their loop order, refuses any sharing.  ``internal``: whether
    PyTorch refuses an ``out`` whose own elements share memory (``_check_shared_elements``).  ``out_dtypes``, where
    given, are the only dtypes ``out`` may have (``all``/``any``: bool and uint8).
    """
    @functools.wraps(function)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return function(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{function.__name__}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        if out_dtypes is not None and out.dtype not in out_dtypes:
            raise RuntimeError(f"{function.__name__} only supports bool tensor for result, got: "
                               f"{out.dtype._legacy_name[:-6]}")
        tensors = list(_tensors(list(args) + list(kwargs.values())))
        if _GradState.enabled and (out.requires_grad or needs_grad(*tensors)):
            raise RuntimeError(f"{function.__name__}(): functions with out=... arguments don't "
                               "support automatic differentiation, but one of the arguments "
                               "requires grad.")
        check_not_inference(out)
        # The result first (it writes nothing), so that an out of another shape is resized, not
        # judged, as PyTorch resizes it before it looks at its elements.
        result = function(*args, **kwargs)
        if tuple(out._data.shape) == tuple(result._data.shape):
            _check_shared_elements(function, out, internal)
        if overlap == "checked":
            check_no_partial_overlap(out, tensors)
        elif overlap == "unchecked":
            _refuse_shared_memory(function, out, tensors)
        _resize(out, result._data.shape)
        _write(out, result)
        return out
    return wrapper

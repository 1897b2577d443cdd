"""``out=``: write a function's result into a tensor the caller provides (``torch.add(a, b, out=c)``).

PyTorch's rules (``aten/src/ATen/native/Resize.cpp`` and the autograd codegen): the
result is cast to ``out``'s dtype when that is no lower a category (no float into an
int tensor); an ``out`` of another shape is resized, with a deprecation warning unless it
was empty; and no argument may require grad while grad mode is on, since writing into
``out`` cannot be differentiated.
"""
import functools
import warnings

from .. import _meta
from .._type_info import category
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
    if not _meta.has_values(out._data):  # ('meta' tensors have no memory to share)
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
    if internal == "unchecked" and _meta.has_values(out._data) and has_internal_overlap(out._data):
        raise NotImplementedError(
            f"nnref cannot reproduce {function.__name__}(..., out=...) into a tensor whose elements share "
            f"memory (an expanded tensor): PyTorch writes each shared element once per position, in its "
            f"loop order. Pass an out tensor that owns its elements (.clone() it).")
    check_writable(out)


def _capitalised(dtype):
    return dtype._legacy_name[:-len("Tensor")]


# The element types as C++'s typeid spells them (``caffe2::TypeMeta::name``).
_TYPE_META_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                    "uint8": "unsigned char", "bool": "bool"}


def _expected_out_tensor(result, out, inputs):
    return (f"Expected out tensor to have dtype {_TYPE_META_NAMES.get(result.name, result.name)}, but got "
            f"{_TYPE_META_NAMES.get(out.name, out.name)} instead")


# The kernels whose out= must already have the result's dtype (no cast), by function, with the
# message each gives (TensorIterator's ``Found dtype``, ``at::native::resize_output``'s callers,
# and a few of their own); every other out= casts its result as the in-place ops do.
_SAME_DTYPE = dict.fromkeys(
    ("abs", "ceil", "fix", "floor", "frac", "hardshrink", "lerp", "neg", "negative", "round", "sgn",
     "sign", "trunc"),
    lambda result, out, inputs: f"Found dtype {_capitalised(out)} but expected {_capitalised(result)}")
# clamp with number bounds; with tensor bounds it promotes and casts as add does
_SAME_DTYPE.update(dict.fromkeys(("clamp", "clip"), lambda result, out, inputs: len(inputs) == 1 and (
    f"Found dtype {_capitalised(out)} but expected {_capitalised(result)}")))
_SAME_DTYPE["diag"] = lambda result, out, inputs: (
    f"diag: result type {_capitalised(result)} can't be cast to the desired out= type {_capitalised(out)}"
    if category(out) < category(result) else _expected_out_tensor(result, out, inputs))
_SAME_DTYPE.update(dict.fromkeys(
    ("gather", "index_copy", "log_softmax", "softmax", "mm", "msort", "slice_scatter"), _expected_out_tensor))
_SAME_DTYPE.update(dict.fromkeys(("amax", "amin"), lambda result, out, inputs: (
    f"Expected the dtype for input and out to match, but got {_capitalised(result)} for input's dtype and "
    f"{_capitalised(out)} for out's dtype.")))
_SAME_DTYPE.update(dict.fromkeys(("dot", "vdot", "matmul"), lambda result, out, inputs: (
    f"result dtype {_capitalised(out)} does not match input dtype {_capitalised(result)}")))
_SAME_DTYPE.update({
    "heaviside": lambda result, out, inputs: "heaviside is not yet implemented for tensors with different dtypes.",
    "histc": lambda result, out, inputs: (
        f"torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
        f"{_TYPE_META_NAMES.get(result.name, result.name)} and hist {_TYPE_META_NAMES.get(out.name, out.name)}"),
    "index_select": lambda result, out, inputs: "index_select(): self and result must have the same scalar type",
    "inner": lambda result, out, inputs: (
        f"tensordot: Expected the output tensor to have dtype {_capitalised(result)}, but got an output tensor "
        f"with dtype {_capitalised(out)}"),
    "logcumsumexp": lambda result, out, inputs: (
        f"expected scalar_type {_capitalised(result)} but found {_capitalised(out)}"),
    "mv": lambda result, out, inputs: (
        f"addmv input tensors must have the same dtype, but got {_capitalised(out)}, "
        f"{_capitalised(inputs[0].dtype)}, and {_capitalised(inputs[1].dtype)}"),
    "float_power": lambda result, out, inputs: (
        f"the output given to float_power has dtype {_capitalised(out)} but the operation's result "
        f"requires dtype {_capitalised(result)}"),
    "nan_to_num": lambda result, out, inputs: (
        f"nan_to_num: dtype of out: {_capitalised(out)} should be same as input: {_capitalised(result)}"),
})


# The arguments that must be tensors in the ``out=`` form: the number forms of ``where``
# (``where(c, x, 0.)``) are overloads without one (``where.ScalarOther`` has no ``out``).
_OUT_TENSOR_ARGUMENTS = {"where": ("condition", "input", "other")}


# The reductions that compute in out's dtype, as if it were their ``dtype=`` argument
# (``sum(x32, 0, out=y64)`` sums in float64; ``cumsum`` into int64 truncates first); a mean
# does so between float types only (otherwise the cast is refused as for any other op).
_ALWAYS = lambda out, inputs: True  # noqa: E731
_COMPUTE_IN_OUT_DTYPE = dict.fromkeys(("sum", "prod", "nansum", "cumsum", "cumprod"), _ALWAYS)
_COMPUTE_IN_OUT_DTYPE.update(dict.fromkeys(("mean", "nanmean"), lambda out, inputs: (
    out.is_floating_point and bool(inputs) and inputs[0].dtype.is_floating_point)))


def _kernel_missing(kernel, accepts):
    """The ``out`` dtypes whose kernel ATen does not have: ``NotImplementedError`` before any work."""
    def check(out, inputs):
        if not accepts(out, inputs):
            return NotImplementedError(f'"{kernel}" not implemented for \'{_capitalised(out)}\'')
    return check


def _floats_into_floats(out, inputs):
    return out.is_floating_point or not (inputs and inputs[0].dtype.is_floating_point)


_OUT_DTYPE_REFUSED = {
    "nansum": _kernel_missing("nansum_cpu", _floats_into_floats),
    "nanmean": _kernel_missing("nansum_cpu", _floats_into_floats),
    "cumsum": _kernel_missing("cumsum_out_cpu", lambda out, inputs: out.name != "bool"),
    "cumprod": _kernel_missing("cumprod_out_cpu", lambda out, inputs: out.name != "bool"),
}
# The joins refuse an out their inputs cannot be cast to with a TypeError of their own.
_CAT_FAMILY = {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"}


def with_out(function, *, overlap="checked", internal="checked", out_dtypes=None):
    """``function`` with PyTorch's keyword-only ``out=`` argument.

    What an ``out`` sharing memory with an input gives depends on how PyTorch's kernel writes it
    (``overlap``): ``"checked"``, the TensorIterator ops, which refuse a partial overlap
    (``check_no_partial_overlap``); ``"copied"``, the ops whose ``out=`` form computes into new
    memory and copies it over (``slice_scatter``), where it does not matter; ``"unchecked"``, the
    reductions and matrix products, which write ``out`` (a zero first) while still reading, so
    that nnref, which does not model their loop order, refuses any sharing.  ``internal``: whether
    PyTorch refuses an ``out`` whose own elements share memory (``_check_shared_elements``).  ``out_dtypes``, where
    given, are the only dtypes ``out`` may have (``all``/``any``: bool and uint8); the kernels named
    in ``_SAME_DTYPE`` take only the result's own dtype.
    """
    same_dtype = _SAME_DTYPE.get(function.__name__)
    compute_in_out_dtype = _COMPUTE_IN_OUT_DTYPE.get(function.__name__)
    refused = _OUT_DTYPE_REFUSED.get(function.__name__)
    joins = function.__name__ in _CAT_FAMILY
    tensor_arguments = _OUT_TENSOR_ARGUMENTS.get(function.__name__, ())

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
        for position, (name, value) in enumerate(zip(tensor_arguments, args), 1):
            if not isinstance(value, Tensor):
                raise TypeError(f"{function.__name__}(): argument '{name}' (position {position}) must be "
                                f"Tensor, not {type(value).__name__}")
        tensors = list(_tensors(list(args) + list(kwargs.values())))
        if _GradState.enabled and (out.requires_grad or needs_grad(*tensors)):
            raise RuntimeError(f"{function.__name__}(): functions with out=... arguments don't "
                               "support automatic differentiation, but one of the arguments "
                               "requires grad.")
        check_not_inference(out)
        # The result first (it writes nothing), so that an out of another shape is resized, not
        # judged, as PyTorch resizes it before it looks at its elements.
        if refused is not None and (error := refused(out._dtype, tensors)) is not None:
            raise error
        if compute_in_out_dtype and kwargs.get("dtype") is None and compute_in_out_dtype(out._dtype, tensors):
            kwargs["dtype"] = out._dtype
        result = function(*args, **kwargs)
        if same_dtype is not None and out._dtype is not result._dtype:
            message = same_dtype(result._dtype, out._dtype, tensors)
            if message:
                raise RuntimeError(message)
        if joins and category(result._dtype) > category(out._dtype):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                            f"{_capitalised(out._dtype)}")
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

"""In-place methods (``add_``, ``mul_``, ``zero_``, ``copy_``, ``uniform_``, ...).

Mirrors the in-place ops of ``aten/src/ATen/native/native_functions.yaml`` (``fill_``,
``zero_``: ``Fill.cpp``; ``copy_``: ``Copy.cpp``; ``uniform_``, ``normal_``:
``DistributionTemplates.h``).

An in-place op overwrites the tensor's memory and bumps its version counter,
so any backward node that saved the old values refuses to run with stale
data.  When the op is recorded (the tensor is part of a graph), the tensor's
``grad_fn`` is replaced by the node of the op, exactly as in PyTorch; the op
reads a snapshot of the old values so its own backward stays correct.  When the
tensor is a view, its base's history is rewritten instead (``views.py``).
"""
import inspect
import warnings

import numpy as np

from .. import _meta
from ..core._device import array_module, array_module_of
from .._type_info import category, checked_scalar
from .. import _random
from .._half import through_float32
from ..core._tensor import Tensor
from ..core.autograd.grad_mode import _GradState, no_grad
from ..core.autograd.graph import Node
from . import fused
from ._common import needs_grad
from .arithmetic import add, mul
from ..core._ops.inplace import FillBackward2, ZeroBackward0
from ..core import _views
from ..core._seams import install
from ..core._views import check_inplace, rebase_history


def _snapshot(tensor):
    """The tensor's current values in new memory, with the same place in the graph."""
    copy = Tensor._make(tensor._data.copy(), tensor._device)
    copy.grad_fn, copy._output_nr, copy._requires_grad = (
        tensor.grad_fn, tensor._output_nr, tensor._requires_grad)
    return copy


def check_not_inference(tensor):
    """An inference tensor is written only inside ``inference_mode`` (it has no version counter)."""
    if tensor._inference and not _GradState.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed."
                           "You can make a clone to get a normal tensor before doing inplace update."
                           "See https://github.com/pytorch/rfcs/pull/17 for more details.")


def check_writable(tensor):
    """An expanded tensor shares one element among many positions: writing to it is refused,
    and so is writing to an inference tensor outside ``inference_mode``.

    PyTorch's test (``has_internal_overlap``): a dimension of size > 1 with stride 0.  numpy
    also marks such views, and a few others, read-only; CuPy arrays have no such flag.
    """
    check_not_inference(tensor)
    if has_internal_overlap(tensor._data):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                           "refers to a single memory location. Please clone() the tensor before "
                           "performing the operation.")


def has_internal_overlap(data):
    """Some elements of ``data`` share one memory location (numpy's read-only views included)."""
    # An empty tensor has no element to share, whatever strides numpy gave it.
    return bool(data.size) and (any(stride == 0 and size > 1 for stride, size in zip(data.strides, data.shape))
                                or not getattr(data.flags, "writeable", True))


def _non_overlapping_and_dense(data):
    """``is_non_overlapping_and_dense`` (``c10/core/Contiguity.h``): in some order of its
    dimensions the array is contiguous, so its elements fill ``nbytes`` bytes from its start."""
    expected = data.itemsize
    for stride, size in sorted((stride, size) for stride, size in zip(data.strides, data.shape) if size > 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _start(data):
    """The address of the first element (CuPy's ``MemoryPointer`` for a device array)."""
    return data.__array_interface__["data"][0] if isinstance(data, np.ndarray) else data.data.ptr


def check_no_partial_overlap(output, inputs, *, full_too=False):
    """Refuse to write ``output`` while reading an input that shares only some of its memory
    (with ``full_too``, any of it: ``assert_no_overlap``, which ``index_put_`` makes).

    PyTorch's TensorIterator ops and ``copy_`` raise where both tensors fill their byte ranges
    (non-overlapping and dense) and those ranges overlap without coinciding
    (``assert_no_partial_overlap``, ``aten/src/ATen/MemoryOverlap.cpp``); the same memory read
    with the same strides is a full overlap (``a.add_(a)``), which is allowed.  Other layouts are
    "too hard" for that test and PyTorch computes them element by element in its loop order, each
    write visible to the reads after it.  nnref reads its inputs whole first, which gives the same
    result only when every input element is read before it is overwritten: the same strides, the
    input ahead of the output in memory (``x[:, :-1].copy_(x[:, 1:])``).  The other cases of
    shared memory depend on PyTorch's loop order and vector width, which nnref does not model: it
    says so instead of returning another result.
    """
    out = output._data
    if not out.size or not _meta.has_values(out):  # ('meta' tensors have no memory to share)
        return
    may_share = np.may_share_memory if isinstance(out, np.ndarray) else array_module_of(out).may_share_memory
    begin = end = None
    for tensor in inputs:
        if not isinstance(tensor, Tensor) or tensor is output or type(tensor._data) is not type(out):
            continue
        data = tensor._data
        if not data.size or not may_share(out, data):  # (their memory bounds do not meet: the usual case)
            continue
        if begin is None:
            begin = _start(out)
            end = begin + out.nbytes if _non_overlapping_and_dense(out) else _end(out, begin)
        start = _start(data)
        dense = _non_overlapping_and_dense(data)
        stop = start + data.nbytes if dense else _end(data, start)
        if not (start < end and begin < stop):
            continue
        if dense and _non_overlapping_and_dense(out):
            if full_too or (start, stop) != (begin, end) or data.strides != out.strides:
                raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                                   "written-to tensor refer to a single memory location. Please clone() "
                                   "the tensor before performing the operation.")
            continue
        _check_read_before_written(output, tensor, start - begin)


def shares_memory(a, b):
    """Whether two arrays have an element in common: numpy's exact test within a bounded effort
    (beyond it, whether their byte ranges meet); CuPy's ``shares_memory`` on the device."""
    if isinstance(a, np.ndarray):
        try:
            return np.shares_memory(a, b, max_work=10_000)
        except np.exceptions.TooHardError:
            return np.may_share_memory(a, b)
    return bool(array_module_of(a).shares_memory(a, b))


def _end(data, start):
    """One past the last byte ``data`` reaches (its strides may skip memory between elements)."""
    return start + sum((size - 1) * stride for size, stride in zip(data.shape, data.strides) if stride > 0) + data.itemsize


def _check_read_before_written(output, tensor, ahead):
    out = output._data
    xp = array_module(output._device)
    try:
        data = xp.broadcast_to(tensor._data, out.shape)
    except ValueError:
        return  # the op itself reports shapes that do not broadcast
    if ahead >= 0 and data.strides == out.strides and all(stride >= 0 for stride in out.strides):
        return
    if not shares_memory(out, tensor._data):
        return
    raise NotImplementedError(
        "nnref cannot reproduce this in-place operation: the tensor written to and an input share "
        "memory in a layout PyTorch does not check, so PyTorch's result depends on the order in "
        "which its loop visits the elements. clone() the input first (e.g. x.copy_(y.clone())).")


def _write(tensor, result):
    if category(result._dtype) > category(tensor._dtype):
        raise RuntimeError(f"result type {result._dtype._legacy_name[:-6]} can't be cast to the "
                           f"desired output type {tensor._dtype._legacy_name[:-6]}")
    if result._data.shape != tensor._data.shape:
        raise RuntimeError(f"output with shape {list(tensor.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    array_module(tensor._device).copyto(tensor._data, result._data, casting="unsafe")
    tensor._bump_version()


def _save_tensor_as_output(node, tensor):
    """A node that saved its output (``exp_``, ``sigmoid_`` ...) now keeps ``tensor`` itself, whose
    memory holds that output: changing it in place again before backward is then detected."""
    for saved in node._saved or ():
        if saved is not None and saved.is_output:
            saved.tensor, saved.version = tensor._alias_without_history(), tensor._version_counter[0]


def apply_inplace(tensor, op, *operands, **kwargs):
    """Run ``op(tensor, *operands)`` and store the result in ``tensor``'s own memory.

    The written tensor's own overlap is checked before its overlap with the inputs, as
    TensorIterator's ``compute_mem_overlaps`` does: an expanded tensor that also shares memory
    with an input gets the first error."""
    check_writable(tensor)
    check_no_partial_overlap(tensor, operands + tuple(kwargs.values()))
    return _write_result(tensor, op, *operands, **kwargs)


def apply_inplace_from_copies(tensor, op, *operands, **kwargs):
    """``apply_inplace`` for the ops whose PyTorch in-place form first computes what it writes
    into new memory (``ldexp_`` is ``self.mul_(2 ** other)``), so that shared memory is no risk."""
    check_writable(tensor)
    return _write_result(tensor, op, *operands, **kwargs)


def apply_fill_(tensor, op, *operands, **kwargs):
    """``masked_fill_``/``index_fill_`` (``op(input, ..., value)``): one value into chosen places.

    PyTorch also writes it into an expanded tensor, with a deprecation warning
    (``TensorAdvancedIndexing.cpp``): every position of a shared element that is chosen writes
    the same value, so the result does not depend on the loop order.
    """
    data = tensor._data
    if not (has_internal_overlap(data) and getattr(data.flags, "writeable", True)):
        return apply_inplace(tensor, op, *operands, **kwargs)
    operands = inspect.signature(op).bind(tensor, *operands, **kwargs).args[1:]
    check_not_inference(tensor)
    recording = needs_grad(tensor, *(o for o in operands if isinstance(o, Tensor)))
    if recording:  # recorded as PyTorch does; backward then refuses to write into the expanded view
        check_inplace(tensor)
    warnings.warn(f"Use of {op.__name__}_ on expanded tensors is deprecated. Please clone() the tensor "
                  "before performing this operation. This also applies to advanced indexing e.g. "
                  "tensor[mask] = scalar", UserWarning, stacklevel=3)
    filled = op(_snapshot(tensor), *operands)
    with no_grad():
        chosen = op(Tensor._make(array_module(tensor._device).zeros(data.shape, dtype=bool), tensor._device),
                    *operands[:-1], True)._data
    data[chosen] = filled._data[chosen]
    tensor._bump_version()
    if recording:
        rebase_history(tensor, filled.grad_fn)
    return tensor


def _write_result(tensor, op, *operands, **kwargs):
    if needs_grad(tensor, *(o for o in operands if isinstance(o, Tensor))):
        check_inplace(tensor)
        result = op(_snapshot(tensor), *operands, **kwargs)
        _write(tensor, result)
        node = result.grad_fn
        _save_tensor_as_output(node, tensor)
        rebase_history(tensor, node)
        return tensor
    with no_grad():
        _write(tensor, op(tensor, *operands, **kwargs))
    return tensor


def add_(self, other, *args, alpha=1):
    """``Tensor.add_``: ``self += alpha * other`` in place.

    An optimizer's step is mostly ``p.add_(update, alpha=-lr)`` under ``no_grad``: when nothing
    is recorded and both are C-contiguous CPU arrays of one shape and of a dtype BLAS has, its
    ``axpy`` (``fused.add_scaled_``) does it in one pass over memory where it rounds as ATen's
    kernel does on this machine (``fused.axpy_rounds_as_aten``); anything else takes the general
    path, which rounds the same way (``add``).
    """
    if not args and isinstance(other, Tensor):
        a, b = self._data, other._data
        # (A writeable C-contiguous array shares no element between positions: check_writable's
        # other test, made by the general path, which also raises its errors.)
        if (type(a) is np.ndarray and type(b) is np.ndarray and fused.axpy_rounds_as_aten(a.dtype)
                and b.dtype == a.dtype and b.shape == a.shape and a.flags.c_contiguous
                and b.flags.c_contiguous and a.flags.writeable and not self._inference
                and not needs_grad(self, other) and not np.may_share_memory(a, b)):
            fused.add_scaled_(a, alpha, b)
            self._bump_version()
            return self
    return apply_inplace(self, add, other, *args, alpha=alpha)


def mul_(self, other):
    """``Tensor.mul_``: ``self *= other`` in place.  A float32/float64 CPU tensor times a Python
    number with nothing to record (an optimizer's ``buf.mul_(momentum)``) is multiplied in its
    own memory, in one pass; anything else takes the general path (``mul``), which rounds the
    same way: the number in the tensor's dtype, one product."""
    a = self._data
    if (type(other) in (float, int) and type(a) is np.ndarray and a.dtype in fused._AXPY
            and a.flags.writeable and not self._inference and not needs_grad(self)
            and not any(stride == 0 and size > 1 for stride, size in zip(a.strides, a.shape))):
        np.multiply(a, a.dtype.type(other), out=a)
        self._bump_version()
        return self
    return apply_inplace(self, mul, other)


class _OverwrittenBackward(Node):
    """The old values were overwritten, so no gradient flows back to them."""

    def backward(self, grad):
        return (grad * 0,)


class FillBackward3(Node):
    """``fill_(value)`` with a 0-d tensor: every element was ``value``, so it gets the summed grad."""

    def backward(self, grad):
        return grad * 0, grad.sum()


class UniformBackward0(_OverwrittenBackward):
    pass


class NormalBackward0(_OverwrittenBackward):
    pass


def _overwrite(tensor, data, node_class, value=None, *, one_value=False):
    """Write ``data`` over ``tensor``; if recorded, the node links the old tensor (and ``value``).

    ``one_value``: every element gets the same value (``fill_``, ``zero_``), which PyTorch also
    writes into an expanded tensor: its shared elements get that value whatever the order."""
    if one_value and getattr(tensor._data.flags, "writeable", True):
        check_not_inference(tensor)
    else:
        check_writable(tensor)
    recording = needs_grad(tensor, value)
    if recording:
        check_inplace(tensor)
        # The node needs only the old tensor's place in the graph, not its values.
        node = node_class((tensor,) if value is None else (tensor, value))
    tensor._data[...] = data
    tensor._bump_version()
    if recording:
        rebase_history(tensor, node)
    return tensor


def zero_(tensor):
    """Fill the tensor with zeros in place and return it (``torch.Tensor.zero_``,
    ``aten/src/ATen/native/Fill.cpp``)."""
    return _overwrite(tensor, 0, ZeroBackward0, one_value=True)


def fill_(tensor, value):
    """Set every element to ``value`` (a number, or a 0-d tensor that then gets gradients)."""
    if not isinstance(value, Tensor):
        return _overwrite(tensor, checked_scalar(value, tensor._dtype, checked_16bit=False), FillBackward2,
                          one_value=True)
    if value._data.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    # (a 0-d tensor is copied in, as copy_ does: an expanded tensor is refused)
    return _overwrite(tensor, through_float32(value._data, tensor._data.dtype), FillBackward3, value)


def uniform_(tensor, from_=0.0, to=1.0, *, generator=None, **kwargs):
    """Fill with samples from U(from, to): PyTorch's numbers (see ``nnref._random``). PyTorch's
    method calls its bounds ``from`` and ``to``; ``from`` is a Python keyword, so it arrives in
    ``kwargs`` (``uniform_(from=-1, to=1)``)."""
    from_ = kwargs.pop("from", from_)
    if kwargs:
        raise TypeError(f"uniform_() got an unexpected keyword argument {next(iter(kwargs))!r}")
    samples = _random.uniform_like(tensor._data, tensor._device, from_, to, generator)
    return _overwrite(tensor, samples, UniformBackward0)


def normal_(tensor, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples from N(mean, std**2): PyTorch's numbers (see ``nnref._random``)."""
    samples = _random.normal_like(tensor._data, tensor._device, mean, std, generator)
    return _overwrite(tensor, samples, NormalBackward0)


class CopyBackwards(Node):
    """``dst.copy_(src)``: the old ``dst`` gets no gradient, ``src`` gets it (in its own dtype)."""

    def name(self):
        return "torch::autograd::CopyBackwards"

    def backward(self, grad):
        wants_src = self.needs_input_grad[1]
        return grad * 0, (grad.to(self.src_device, self.src_dtype) if wants_src else None)


def copy_(tensor, other, non_blocking=False):
    """Copy ``other``'s values (broadcast, converted) into ``tensor`` (PyTorch's method names the
    source ``other``: ``torch/csrc/autograd/python_variable_methods.cpp``)."""
    src = other
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
    check_writable(tensor)
    check_no_partial_overlap(tensor, (src,))
    data = src._data if src._device == tensor._device else src.to(tensor._device)._data
    xp = array_module(tensor._device)
    try:
        broadcast = xp.broadcast_to(data, tensor._data.shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({list(tensor.shape)}) must match the size of "
                           f"tensor b ({list(src.shape)}): copy_ broadcasts src to the destination's "
                           f"shape") from None
    recording = needs_grad(tensor, src)
    if recording:
        check_inplace(tensor)
        # links the old tensor's place in the graph
        node = CopyBackwards((tensor, src), src_dtype=src._dtype, src_device=src._device)
    xp.copyto(tensor._data, through_float32(broadcast, tensor._data.dtype), casting="unsafe")
    tensor._bump_version()
    if recording:
        rebase_history(tensor, node)
    return tensor


def _view_meta_message(tensor, meta):
    """PyTorch's words (``handle_view_on_rebase``, ``torch/csrc/autograd/variable.cpp``) for an
    in-place change of a view made by a multi-output op, under ``no_grad`` or in inference mode."""
    if meta == _views.MULTI_OUTPUT:
        return (
            f"Output {tensor._output_nr} of {_multi_output_name(tensor)} is a view and is being "
            "modified inplace. This view is the output of a function that returns multiple "
            "views. Such functions do not allow the output views to be modified inplace. You "
            "should replace the inplace operation by an out-of-place one.")
    if meta == _views.NO_GRAD_MODE:
        return (
            "A view was created in no_grad mode and is being modified inplace with grad mode "
            "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
            "You can clarify your code by moving both the view and the inplace either both "
            "inside the no_grad block (if you don't want the inplace to be tracked) or both "
            "outside (if you want the inplace to be tracked).")
    return (  # _views.INFERENCE_MODE
        "A view was created in inference mode and is being modified inplace in normal "
        "mode. Given that this use case is ambiguous and error-prone, it is forbidden. "
        "You can clarify your code by moving both the view and the inplace either both "
        "inside the inference_mode block (if you don't want the inplace to be tracked) "
        "or both outside (if you want the inplace to be tracked).")


def _multi_output_name(tensor):
    node = tensor._grad_fn
    name = node.name() if node is not None else "a function"
    return name[:-len("Backward0")] if name.endswith("Backward0") else name


install(_views, "view_meta_message", _view_meta_message)

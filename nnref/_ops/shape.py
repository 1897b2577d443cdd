"""Shape operations: view/reshape, squeeze/unsqueeze, transpose/permute, expand, cat/stack, clone.

Mirrors ``aten/src/ATen/native/TensorShape.cpp`` (``clone``: ``TensorFactories.cpp``).

Views share memory *and the version counter* with their base, as in PyTorch,
so an in-place change through either is seen by the saved-tensor check.
Each backward undoes its forward's rearrangement.
"""
import math
import numbers
import warnings

from ..core import _dtype
from ..core._device import array_module, array_module_of
from .._layout import check_memory_format, contiguous_format
from ..core._tensor import Tensor, _init, _wrap_dim, bind
from ..core.autograd.graph import Node
from ._common import check_same_device, needs_grad, record, result_type, size_arguments, wrap
from ..core._views import MULTI_OUTPUT, make_view
from ..core._ops.inplace import CloneBackward0
from ..core._ops.shape import (ExpandBackward0, PermuteBackward0, SqueezeBackward0, SqueezeBackward1,
                               TBackward0, TransposeBackward0, UnsqueezeBackward0, UnsafeViewBackward0,
                               ViewBackward0)


def _infer_shape(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


def _try_view(data, shape):
    """``data`` reshaped without copying, or None when its strides do not allow that."""
    try:
        return data.reshape(shape, copy=False)
    except ValueError:
        return None
    except TypeError:
        pass  # NumPy < 2.1 and CuPy have no copy=: reshape, and see whether it had to copy
    view = data.reshape(shape)
    if view.size and not array_module_of(data).may_share_memory(view, data):
        return None  # the strides do not allow a view
    return view


def view(input, *shape, size=None, dtype=None):
    """Same memory, new shape (``view(2, 3)``, ``view((2, 3))``, ``view(size=(2, 3))``); fails where
    the strides make that impossible (use reshape).
    ``view(dtype)`` reads the same bytes as another dtype instead (not differentiable)."""
    if dtype is None and len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        dtype = shape[0]
    if dtype is not None:
        return _view_as_dtype(input, dtype)
    return _view(input, _infer_shape(size_arguments("view", "size", shape, size), input._data.size))


def _view_as_dtype(input, dtype):
    """``view(dtype)``: the bytes reinterpreted; with another element size the last dimension,
    which must be contiguous, shrinks or grows (``aten/src/ATen/native/TensorConversions.cpp``)."""
    data, old = input._data, input._dtype
    if dtype.itemsize != old.itemsize:
        what = f"to view {old._legacy_name[:-6]} as {dtype._legacy_name[:-6]} (different element sizes)"
        if data.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if data.shape[-1] != 1 and data.strides[-1] != old.itemsize:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {data.strides[-1] // old.itemsize}")
        if dtype.itemsize > old.itemsize and data.shape[-1] % (dtype.itemsize // old.itemsize):
            raise RuntimeError(f"self.size(-1) must be divisible by {dtype.itemsize // old.itemsize} {what}, "
                               f"but got {data.shape[-1]}")
    out = make_view(input, data.view(dtype.numpy))
    out._requires_grad = False  # a reinterpretation has no derivative
    return out


def _view(input, shape):
    """:func:`view` to a shape already checked and with no -1 left."""
    data = _try_view(input._data, shape)
    if data is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    out = make_view(input, data)
    return record(out, ViewBackward0, (input,), self_sizes=input._data.shape)


class ReshapeAliasBackward0(Node):
    def backward(self, grad):
        return (grad.reshape(self.self_sizes),)


def reshape(input, *args, shape=None):
    """A view when the memory layout allows it, otherwise a copy (clone, then view).

    Mirrors ``at::native::reshape``: a contiguous tensor is simply viewed
    (``ViewBackward0``); a strided one whose strides still allow the new shape
    becomes a ``_reshape_alias`` (``ReshapeAliasBackward0``); anything else is
    cloned first (``CloneBackward0`` then ``UnsafeViewBackward0``).
    """
    shape = _infer_shape(size_arguments("reshape", "shape", args, shape), input._data.size)
    if input._data.flags.c_contiguous:
        return _view(input, shape)
    data = _try_view(input._data, shape)
    if data is not None:
        out = make_view(input, data)
        return record(out, ReshapeAliasBackward0, (input,), self_sizes=input._data.shape)
    return _unsafe_view(clone(input, memory_format=contiguous_format), shape)


def _unsafe_view(input, shape):
    """A reshape recorded as PyTorch's ``_unsafe_view`` (used inside matmul and reshape,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    out = wrap(input._data.reshape(shape), input)
    return record(out, UnsafeViewBackward0, (input,), self_sizes=input._data.shape)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dimensions ``start_dim..end_dim`` into one."""
    ndim = input._data.ndim
    if ndim == 0:
        return reshape(input, 1)
    start, end = _wrap_dim(start_dim, ndim), _wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input._data.shape
    return reshape(input, shape[:start] + (-1,) + shape[end + 1:])


class SqueezeBackward2(SqueezeBackward0):
    pass


class SqueezeBackward4(SqueezeBackward0):
    """PyTorch's node for the in-place ``squeeze_`` that ``matmul`` applies to its result."""


def squeeze(input, dim=None):
    """Drop dimensions of size 1 (all of them, or only those named by ``dim``)."""
    shape = input._data.shape
    if dim is None:
        node_class, dims = SqueezeBackward0, tuple(i for i, s in enumerate(shape) if s == 1)
    elif isinstance(dim, numbers.Integral):
        node_class, dims = SqueezeBackward1, (_wrap_dim(dim, len(shape)),)
    else:
        node_class, dims = SqueezeBackward2, tuple(_wrap_dim(d, len(shape)) for d in dim)
    return _squeeze(input, dims, node_class)


def _squeeze(input, dims, node_class):
    shape = input._data.shape
    kept = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    out = make_view(input, input._data.reshape(kept))
    return record(out, node_class, (input,), self_sizes=shape)


def squeeze_result(input, dim):
    """``squeeze`` recorded as matmul's in-place ``squeeze_`` (``SqueezeBackward4``)."""
    return _squeeze(input, (_wrap_dim(dim, input._data.ndim),), SqueezeBackward4)


def unsqueeze(input, dim):
    """Insert a dimension of size 1 at ``dim``."""
    dim = _wrap_dim(dim, input._data.ndim + 1)
    xp = array_module(input._device)
    out = make_view(input, xp.expand_dims(input._data, dim))
    return record(out, UnsqueezeBackward0, (input,), dim=dim)


def transpose(input, dim0, dim1):
    """Swap two dimensions (a view)."""
    ndim = input._data.ndim
    dim0, dim1 = _wrap_dim(dim0, ndim), _wrap_dim(dim1, ndim)
    xp = array_module(input._device)
    out = make_view(input, xp.swapaxes(input._data, dim0, dim1))
    return record(out, TransposeBackward0, (input,), dim0=dim0, dim1=dim1)


def t(input):
    """Transpose a matrix (0-D and 1-D tensors are returned as they are)."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input._data.ndim}D; use transpose(dim0, dim1) or permute")
    out = make_view(input, input._data.T)
    return record(out, TBackward0, (input,))


def permute(input, *args, dims=None):
    """Reorder the dimensions (a view): ``permute(1, 0)``, ``permute((1, 0))``, ``permute(dims=(1, 0))``."""
    dims = tuple(_wrap_dim(d, input._data.ndim) for d in size_arguments("permute", "dims", args, dims))
    if sorted(dims) != list(range(input._data.ndim)):
        raise RuntimeError(f"permute(): expected each of the {input._data.ndim} dimensions exactly "
                           f"once, got dims={list(dims)}")
    xp = array_module(input._device)
    out = make_view(input, xp.transpose(input._data, dims))
    return record(out, PermuteBackward0, (input,), dims=dims)


def numpy_T(input):
    """``t.T``: reverse all dimensions (recorded as a permute, like PyTorch)."""
    return permute(input, tuple(reversed(range(input._data.ndim))))


def matrix_T(input, name="tensor.mT"):
    """``t.mT``: swap the last two dimensions."""
    if input._data.ndim < 2:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got "
                           f"{input._data.ndim}-D tensor.")
    return transpose(input, -2, -1)


def matrix_H(input):
    """``t.mH``, the conjugate transpose of each matrix: ``t.mT`` for nnref's real dtypes."""
    return matrix_T(input, "tensor.mH")


def adjoint(input):
    """``torch.adjoint``/``t.adjoint()``: the conjugate transpose of each matrix, a view
    (``aten/src/ATen/native/TensorShape.cpp``)."""
    return matrix_T(input, "tensor.adjoint()")


def conjugate_T(input):
    """``t.H``, the conjugate transpose of a matrix (``aten/src/ATen/native/TensorShape.cpp``)."""
    ndim = input._data.ndim
    if ndim == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning,
                      stacklevel=3)
        return input
    if ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D "
                           f"tensor.{hint}")
    return transpose(input, 0, 1)


def conj(input):
    """``input`` itself: a real tensor is its own conjugate (``torch.conj`` returns ``self`` for
    non-complex tensors; also ``resolve_conj``, ``resolve_neg``, ``conj_physical``)."""
    return input


def is_conj(input):
    """False: only complex tensors carry a lazy conjugation bit (``torch.is_conj``)."""
    return False


def expand(input, *sizes, size=None, implicit=False):
    """Broadcast to a larger size without copying; ``-1`` keeps a dimension. (``implicit`` is
    PyTorch's flag for an expand the tracer inserted; it changes nothing here, nor there.)"""
    if any(isinstance(s, bool) for s in sizes):  # expand(size, True): PyTorch's implicit is keyword-only
        raise TypeError("expand() received an invalid combination of arguments: a size is a bool (implicit= "
                        "is keyword-only)")
    sizes = size_arguments("expand", "size", sizes, size)
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    target = tuple(shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(sizes))
    bad = next((i for i in range(len(shape)) if shape[i] not in (1, target[i + lead])), None)
    if bad is not None or any(s < 0 for s in target):
        bad = 0 if bad is None else bad
        raise RuntimeError(f"The expanded size of the tensor ({target[bad + lead]}) must match the "
                           f"existing size ({shape[bad]}) at non-singleton dimension {bad + lead}.  "
                           f"Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}")
    # Stride 0 where a dimension is new or grows from 1, as PyTorch's expand.  Unlike numpy's
    # broadcast_to the view stays writable: in-place ops refuse real overlaps themselves
    # (check_writable), and a slice of it without overlap may be written, as in PyTorch.
    strides = (0,) * lead + tuple(0 if size == 1 and t != 1 else stride for size, t, stride in
                                  zip(shape, target[lead:], input._data.strides))
    xp = array_module(input._device)
    data = xp.lib.stride_tricks.as_strided(input._data, target, strides)
    out = make_view(input, data)
    return record(out, ExpandBackward0, (input,), self_sizes=shape)


class AliasBackward0(Node):
    def backward(self, grad):
        return (grad,)


def alias(input):
    """A new view of the whole tensor (what ``t[...]`` returns, as in PyTorch)."""
    out = make_view(input, input._data.view())
    return record(out, AliasBackward0, (input,))


def broadcast_to(input, size):
    """``expand`` with PyTorch's ``broadcast_to`` signature (one ``size``, no ``implicit``)."""
    return expand(input, size)


def expand_as(input, other):
    """``input.expand(other.size())``: a broadcast view (``torch.Tensor.expand_as``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    return expand(input, other._data.shape)


def clone(input, *, memory_format=None):
    """A copy with its own memory (recorded, so gradients flow through it); row-major when
    ``memory_format`` is ``torch.contiguous_format``, else with ``input``'s order."""
    contiguous = check_memory_format("clone", memory_format) is contiguous_format
    xp = array_module(input._device)
    out = wrap(xp.array(input._data, order="C" if contiguous else "K", copy=True), input)
    return record(out, CloneBackward0, (input,))


def contiguous(input, *, memory_format=None):
    """``input`` itself when already laid out row-major, else a row-major clone."""
    check_memory_format("contiguous", memory_format)
    return input if input._data.flags.c_contiguous else clone(input, memory_format=contiguous_format)


def is_contiguous(input, *, memory_format=None):
    """True if the elements lie in memory in row-major order without gaps (the numpy array's
    C order): ``c10/core/TensorImpl.h``."""
    check_memory_format("is_contiguous", memory_format)
    return bool(input._data.flags.c_contiguous)


class CatBackward0(Node):
    _all_gradients = True

    def backward(self, grad):
        grads, offset = [], 0
        for size in self.sizes:
            grads.append(grad.narrow(self.dim, offset, size))
            offset += size
        return tuple(grads)


def cat(tensors, dim=0):
    """Join tensors along an existing dimension."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dtype = result_type(*tensors)
    for other in tensors[1:]:
        check_same_device(tensors[0], other)
    dim = _wrap_dim(dim, tensors[0]._data.ndim)
    xp = array_module(tensors[0]._device)
    try:
        data = xp.concatenate([t._data.astype(dtype.numpy, copy=False) for t in tensors], axis=dim)
    except ValueError:
        shapes = [list(t.shape) for t in tensors]
        raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}; got shapes "
                           f"{shapes}") from None
    out = wrap(xp.ascontiguousarray(data) if data.ndim else data, tensors[0])  # (numpy keeps an F-order layout)
    if needs_grad(*tensors):
        out.grad_fn = CatBackward0(tuple(tensors), dim=dim,
                                   sizes=[t._data.shape[dim] for t in tensors])
    return out


class UnbindBackward0(Node):
    """One node for all the slices: their gradients are stacked back along ``dim``."""

    def backward(self, *grads):
        return (stack(grads, self.dim),)

    def _zeros_for_output(self, index):
        """A slice that received no gradient contributes zeros (the engine asks for them)."""
        from .._creation import zeros
        return zeros(self.slice_shape, dtype=self.dtype, device=self.device)


def mark_multi_output(views):
    """``unbind``/``split``: PyTorch refuses in-place changes to such views when recorded."""
    for view in views:
        view._view_meta = MULTI_OUTPUT
    return views


def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple of views (what iterating over a tensor gives)."""
    dim = _wrap_dim(dim, input._data.ndim)
    pieces = mark_multi_output(tuple(make_view(input, input._data[(slice(None),) * dim + (i, Ellipsis)])
                                     for i in range(input._data.shape[dim])))
    if needs_grad(input) and pieces:
        node = UnbindBackward0((input,), dim=dim, num_outputs=len(pieces),
                               slice_shape=pieces[0]._data.shape, dtype=input._dtype,
                               device=input._device)
        for i, piece in enumerate(pieces):
            piece.grad_fn, piece._output_nr = node, i
    return pieces


class StackBackward0(Node):
    _all_gradients = True

    def backward(self, grad):
        return tuple(grad.select(self.dim, i) for i in range(len(self.next_functions)))


def stack(tensors, dim=0):
    """Join same-shaped tensors along a new dimension."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shapes = {t._data.shape for t in tensors}
    if len(shapes) > 1:
        raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                           f"{[list(t.shape) for t in tensors]}")
    dtype = result_type(*tensors)
    dim = _wrap_dim(dim, tensors[0]._data.ndim + 1)
    xp = array_module(tensors[0]._device)
    out = wrap(xp.stack([t._data.astype(dtype.numpy, copy=False) for t in tensors], axis=dim), tensors[0])
    return record(out, StackBackward0, tuple(tensors), dim=dim)


def _iterate(self):
    """The slices along dim 0, made by one ``unbind`` (one ``UnbindBackward0``), as in PyTorch."""
    if self._data.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(unbind(self, 0))


_core_init = Tensor.__init__


def __init__(self, *args, device=None):
    """The legacy constructor (``nnref/core/_tensor.py``); ``Tensor(tensor)`` makes ``self`` a view
    of all of ``tensor``, as PyTorch's legacy constructors do."""
    if len(args) != 1 or not isinstance(args[0], Tensor):
        _core_init(self, *args, device=device)
        return
    if device is not None:
        raise RuntimeError("Legacy tensor constructor of the form torch.Tensor(tensor, "
                           "device=device) is not supported.  Use torch.tensor(...) or "
                           "torch.as_tensor(...) instead.")
    view = alias(args[0])
    _init(self, view._data, view._device)
    self._version_counter, self._grad_fn = view._version_counter, view.grad_fn
    self._base, self._view_version, self._view_meta = view._base, view._view_version, view._view_meta


bind(__iter__=_iterate, __init__=__init__)

"""Shape and view ops (``aten/src/ATen/native/TensorShape.cpp``): the result shares its input's
memory and version counter (``_views.make_view``); each backward puts the gradient back in the
input's shape."""
from .._device import array_module_of
from .._tensor import Tensor, _wrap_dim, bind
from .._views import make_view
from ..autograd.graph import Node
from ._common import record

__all__ = ["view", "reshape", "flatten", "squeeze", "unsqueeze", "transpose", "t", "permute", "expand"]


def _sizes(args):
    """``f(2, 3)`` or ``f((2, 3))``: the sizes (numpy infers a ``-1``)."""
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args)


class ViewBackward0(Node):
    """d view(a, shape) = grad viewed back to a's shape (so for every reshape below)."""
    def backward(self, grad):
        return (grad.reshape(self.self_sizes),)


def view(input, *shape):
    """Same memory, new shape.  ``import nnref`` binds ``nnref/_ops/shape.py:view`` here."""
    data = input._data.reshape(_sizes(shape))
    if data.size and not array_module_of(data).shares_memory(data, input._data):
        raise RuntimeError("view size is not compatible with input tensor's size and stride: use "
                           ".reshape(...) instead.")
    return record(make_view(input, data), ViewBackward0, (input,), self_sizes=input._data.shape)


class UnsafeViewBackward0(ViewBackward0):
    """A reshape of a copy (PyTorch's ``_unsafe_view``)."""


def reshape(input, *shape):
    """A view if the memory allows it, else a copy.  ``import nnref`` binds
    ``nnref/_ops/shape.py:reshape`` here."""
    if input._data.flags.c_contiguous:
        return view(input, *shape)
    out = Tensor._make(input._data.copy().reshape(_sizes(shape)), input._device)
    return record(out, UnsafeViewBackward0, (input,), self_sizes=input._data.shape)


def flatten(input, start_dim=0, end_dim=-1):
    """Dimensions ``start_dim..end_dim`` merged into one (a reshape)."""
    shape = input._data.shape
    start, end = _wrap_dim(start_dim, len(shape)), _wrap_dim(end_dim, len(shape))
    return reshape(input, shape[:start] + (-1,) + shape[end + 1:]) if start < end or not shape else input


class SqueezeBackward0(ViewBackward0):
    """``squeeze()``: a reshape."""


class SqueezeBackward1(ViewBackward0):
    """``squeeze(dim)``: a reshape."""


def squeeze(input, dim=None):
    """The dimensions of size 1 dropped (or ``dim`` only).  ``import nnref`` binds
    ``nnref/_ops/shape.py:squeeze`` here."""
    shape = input._data.shape
    dims = range(len(shape)) if dim is None else (_wrap_dim(dim, len(shape)),)
    kept = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return record(make_view(input, input._data.reshape(kept)),
                  SqueezeBackward0 if dim is None else SqueezeBackward1, (input,), self_sizes=shape)


class UnsqueezeBackward0(Node):
    """d unsqueeze(a, dim) = grad.squeeze(dim)."""
    def backward(self, grad):
        return (grad.squeeze(self.dim),)


def unsqueeze(input, dim):
    """A dimension of size 1 inserted at ``dim``.  ``import nnref`` binds ``nnref/_ops/shape.py:unsqueeze`` here."""
    shape, dim = input._data.shape, _wrap_dim(dim, input._data.ndim + 1)
    out = make_view(input, input._data.reshape(shape[:dim] + (1,) + shape[dim:]))
    return record(out, UnsqueezeBackward0, (input,), dim=dim)


class TransposeBackward0(Node):
    """d transpose(a, i, j) = grad.transpose(i, j)."""
    def backward(self, grad):
        return (grad.transpose(self.dim0, self.dim1),)


def transpose(input, dim0, dim1):
    """Two dimensions swapped.  ``import nnref`` binds ``nnref/_ops/shape.py:transpose`` here."""
    dim0, dim1 = _wrap_dim(dim0, input._data.ndim), _wrap_dim(dim1, input._data.ndim)
    out = make_view(input, input._data.swapaxes(dim0, dim1))
    return record(out, TransposeBackward0, (input,), dim0=dim0, dim1=dim1)


class TBackward0(Node):
    """d a.t() = grad.t()."""
    def backward(self, grad):
        return (grad.t(),)


def t(input):
    """A matrix transposed.  ``import nnref`` binds ``nnref/_ops/shape.py:t`` here."""
    return record(make_view(input, input._data.T), TBackward0, (input,))


class PermuteBackward0(Node):
    """d permute(a, dims) = grad permuted back: input dimension i sits at ``dims.index(i)``."""
    def backward(self, grad):
        return (grad.permute(*(self.dims.index(i) for i in range(len(self.dims)))),)


def permute(input, *dims):
    """The dimensions reordered.  ``import nnref`` binds ``nnref/_ops/shape.py:permute`` here."""
    dims = tuple(_wrap_dim(d, input._data.ndim) for d in _sizes(dims))
    return record(make_view(input, input._data.transpose(dims)), PermuteBackward0, (input,), dims=dims)


class ExpandBackward0(Node):
    """d expand(a, sizes) = grad summed over the dimensions expand grew (``sum_to_size``)."""
    def backward(self, grad):
        return (grad.sum_to_size(self.self_sizes),)


def expand(input, *sizes):
    """Broadcast to ``sizes`` without a copy (``-1`` keeps a dimension).  ``import nnref`` binds
    ``nnref/_ops/shape.py:expand`` here (a writable view)."""
    sizes, shape = _sizes(sizes), input._data.shape
    target = tuple(shape[i - len(sizes)] if s == -1 else s for i, s in enumerate(sizes))
    out = make_view(input, array_module_of(input._data).broadcast_to(input._data, target))
    return record(out, ExpandBackward0, (input,), self_sizes=shape)


bind(view=view, reshape=reshape, flatten=flatten, squeeze=squeeze, unsqueeze=unsqueeze,
     transpose=transpose, t=t, permute=permute, expand=expand)

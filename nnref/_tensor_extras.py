"""Tensor methods beyond the teaching core's: memory queries, PyTorch's predicates for layouts and
devices nnref does not have, ``type_as``, ``x in t``, ``format(t, spec)``, ``copy.copy`` and
``copy.deepcopy``, ``np.asarray(t)``, ``register_post_accumulate_grad_hook``, and a ``Size``'s
``numel``, sums and repeats; the conversions ``long``, ``int``, ... are in
``nnref/_ops/tensor_conversion.py``. Bound onto the core's ``Tensor`` (``nnref/core/_tensor.py``)
as every method defined outside it is, with ``bind``. Mirrors
``torch/csrc/autograd/python_variable.cpp`` and ``c10/core/TensorImpl.h``.
"""
import builtins
import copy
import math
import numbers
from collections import OrderedDict

import numpy as np

from ._ops import tensor_conversion  # noqa: F401 - binds long, int, bool, cuda, ...
from .core._tensor import Size, Tensor, bind
from .core.utils.hooks import RemovableHandle

__all__ = []


def element_size(self):
    """The size of one element in bytes (``torch.Tensor.element_size``,
    ``c10/core/TensorImpl.h``)."""
    return self._dtype.itemsize


def data_ptr(self):
    """The address of the first element: numpy's ``ctypes.data`` (CuPy's ``data.ptr``), 0 when empty."""
    data = self._data
    if not data.size:
        return 0
    return data.ctypes.data if isinstance(data, np.ndarray) else data.data.ptr


def _never(self):
    """False: nnref's tensors are dense, unquantized, unnested and on the CPU, a CUDA GPU or
    ``meta`` (``torch.Tensor.is_sparse`` and its kin, ``torch/csrc/autograd/python_variable.cpp``)."""
    return False


def __copy__(self):
    """A new tensor over the same memory, with the same ``requires_grad`` (as ``copy.copy``)."""
    new = type(self)._make(self._data, self._device)
    new._requires_grad = self.requires_grad
    new.__dict__.update(self.__dict__)
    return new


def type_as(self, other):
    """This tensor in ``other``'s dtype, as ``self.to(other.dtype)``
    (``torch.Tensor.type_as``, ``aten/src/ATen/native/TensorConversions.cpp``)."""
    return self.to(other._dtype)


def is_cuda(self):
    """True if the tensor lives on a ``cuda`` device (``torch.Tensor.is_cuda``,
    ``torch/csrc/autograd/python_variable.cpp``)."""
    return self._device.type == "cuda"


def __contains__(self, element):
    """``x in t``: does any element of ``t`` equal ``x`` (broadcast, as in PyTorch)?"""
    if not isinstance(element, (Tensor, numbers.Number)):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")
    return builtins.bool((self == element).any())


def __format__(self, spec):
    """A 0-d tensor formats like its number; others only without a spec (as ``torch.Tensor``)."""
    if self._data.ndim == 0:
        return format(self.item(), spec)
    return object.__format__(self, spec)


def __deepcopy__(self, memo):
    """An independent leaf: copied values, same ``requires_grad``, deep-copied ``.grad``.

    Mirrors ``torch.Tensor.__deepcopy__`` (what ``copy.deepcopy(model.state_dict())``
    relies on); like PyTorch, only leaves can be deep-copied.
    """
    if self.grad_fn is not None:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol at the moment. Deep-copy t.detach() instead.")
    if id(self) in memo:
        return memo[id(self)]
    new = type(self)._make(self._data.copy(), self._device)
    new._requires_grad = self._requires_grad
    memo[id(self)] = new
    if self._grad is not None:
        new._grad = copy.deepcopy(self._grad, memo)
    new.__dict__.update(copy.deepcopy(self.__dict__, memo))
    return new


def __array__(self, dtype=None, copy=None):
    """``np.asarray(t)``: the values, as ``numpy()`` gives them (``torch.Tensor.__array__``)."""
    array = self.numpy()
    return array if dtype is None else array.astype(dtype)


def register_post_accumulate_grad_hook(self, hook):
    """Call ``hook(tensor)`` each time backward has accumulated this leaf's ``.grad`` (e.g. to
    step an optimizer per parameter during the backward pass); ``torch/_tensor.py``.  The
    core's ``AccumulateGrad`` (``nnref/core/autograd/graph.py``) calls them."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = self.__dict__.setdefault("_post_accumulate_grad_hooks", OrderedDict())
    return RemovableHandle(hooks, hook)


def _size_numel(self):
    """The number of elements a tensor of this size holds, the product of the sizes
    (``torch.Size.numel``, ``torch/csrc/Size.cpp``)."""
    return math.prod(self)


def _size_add(self, other):
    """``size + tuple`` is a Size, as in ``torch/csrc/Size.cpp``."""
    if not isinstance(other, tuple):
        raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
    return Size(tuple.__add__(self, other))


def _size_radd(self, other):
    return Size(tuple.__add__(tuple(other), self)) if isinstance(other, tuple) else NotImplemented


def _size_mul(self, times):
    return Size(tuple.__mul__(self, times))


Size.numel = _size_numel
Size.__add__, Size.__radd__, Size.__mul__, Size.__rmul__ = _size_add, _size_radd, _size_mul, _size_mul


bind(element_size=element_size, data_ptr=data_ptr, __copy__=__copy__, __deepcopy__=__deepcopy__,
     type_as=type_as, is_cuda=property(is_cuda), __array__=__array__,
     register_post_accumulate_grad_hook=register_post_accumulate_grad_hook, __contains__=__contains__, __format__=__format__,
     **dict.fromkeys(("is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_mps",
                      "is_xpu", "is_ipu", "is_xla", "is_vulkan", "is_mtia", "is_maia"), property(_never)))

"""Tensor methods beyond the teaching core's: ``to`` and ``type`` with PyTorch's every argument form,
``numel``, ``len(t)``, ``hash(t)``, ``operator.index(t)``, ``del t.data`` and ``del t.grad``,
``output_nr``, ``retains_grad``, ``is_inference``, memory queries, PyTorch's predicates for layouts
and devices nnref does not have, ``type_as``, ``x in t``, ``format(t, spec)``, ``copy.copy`` and
``copy.deepcopy``, ``np.asarray(t)``, ``register_post_accumulate_grad_hook``, and a ``Size``'s
slices, ``numel``, sums and repeats; the conversions ``long``, ``int``, ... are in
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

from . import _type_info
from ._ops import tensor_conversion  # noqa: F401 - binds long, int, bool, cuda, ...
from .core import _dtype
from .core._device import canonical_device, device as Device
from ._layout import check_memory_format, contiguous_format
from .core._ops import conversion
from .core._tensor import Size, Tensor, bind
from .core.utils.hooks import RemovableHandle

__all__ = []


def to(self, *args, memory_format=None, **kwargs):
    """``Tensor.to`` with the forms the core's (``nnref/core/_ops/conversion.py``) leaves out:
    ``memory_format=`` (``torch.contiguous_format`` asks for a row-major copy), ``non_blocking``
    and ``copy`` given by position (ignored, as nnref copies at once), Python's ``float``/``int``/
    ``bool`` as dtypes and an index as a CUDA device (``torch._C._nn._parse_to``)."""
    contiguous = memory_format is not None and check_memory_format("to", memory_format) is contiguous_format
    dtype = kwargs.get("dtype")
    if dtype is not None and builtins.type(dtype) is not _dtype.dtype:
        kwargs["dtype"] = _type_info.as_dtype(dtype)
    args = _core_arguments(args)
    if contiguous and not self._data.flags.c_contiguous:
        dtype, dev, _ = conversion._parse_to(self, args, kwargs)
        return conversion.to_copy(self, dtype, dev, contiguous=True)
    return conversion.to(self, *args, **kwargs)


_READ_BY_THE_CORE = (_dtype.dtype, str, Device, Tensor)


def _core_arguments(args):
    """``to``'s positional arguments in the forms the core's parser reads: the same tuple when
    they already are (the common case costs one test per argument)."""
    for arg in args:
        if not isinstance(arg, _READ_BY_THE_CORE):
            return [_to_argument(arg) for arg in args if not isinstance(arg, builtins.bool)]
    return args


def _to_argument(arg):
    """A positional argument of ``to`` in the form the core's parser reads."""
    if isinstance(arg, builtins.type) and arg in (builtins.float, builtins.int, builtins.bool, builtins.complex):
        return _type_info.as_dtype(arg)
    if isinstance(arg, numbers.Integral):
        return canonical_device(arg)
    return arg


_core_type = Tensor.type


def type(self, dtype=None, non_blocking=False):
    """``Tensor.type`` also given a legacy type (``nnref.LongTensor``; ``nnref.Tensor`` for the
    default dtype) or its name (``'torch.LongTensor'``), over the core's (``nnref/core/_tensor.py``)."""
    if isinstance(dtype, builtins.type):
        dtype = _dtype.get_default_dtype() if dtype is Tensor else dtype.__name__
    if isinstance(dtype, str):
        dtype = _type_info.from_legacy_name(dtype)
    return _core_type(self, dtype, non_blocking)


def numel(self):
    """The number of elements (``torch.Tensor.numel``; ``nelement`` is its alias),
    ``c10/core/TensorImpl.h``."""
    return builtins.int(self._data.size)


def __len__(self):
    if self._data.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self._data.shape[0]


def __int__(self):
    return builtins.int(self.item())


def __index__(self):
    if self._dtype.is_floating_point or self._data.size != 1:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return builtins.int(self.item())


def __hash__(self):
    return id(self)


def output_nr(self):
    """Which output of ``grad_fn`` this tensor is (0 for leaves)."""
    return self._output_nr if self.grad_fn is not None else 0


def retains_grad(self):
    """True if ``retain_grad()`` was called on this non-leaf tensor
    (``torch.Tensor.retains_grad``, ``torch/csrc/autograd/python_variable.cpp``)."""
    return self._retains_grad


def is_inference(self):
    """True for tensors made inside ``inference_mode()`` (``torch.Tensor.is_inference``)."""
    return self._inference


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
    new = builtins.type(self)._make(self._data, self._device)
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
                           f"in a {builtins.type(element)}.")
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
    new = builtins.type(self)._make(self._data.copy(), self._device)
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


def _delete_data(self):
    """``del t.data`` is refused, as in PyTorch."""
    raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")


def _delete_grad(self):
    """``del t.grad``: the same as ``t.grad = None``."""
    self._grad = None


def _size_getitem(self, index):
    """A slice of a Size is a Size, as in ``torch/csrc/Size.cpp`` (``x.shape[1:]`` prints
    ``torch.Size([3])``)."""
    item = tuple.__getitem__(self, index)
    return Size(item) if isinstance(index, slice) else item


def _size_numel(self):
    """The number of elements a tensor of this size holds, the product of the sizes
    (``torch.Size.numel``, ``torch/csrc/Size.cpp``)."""
    return math.prod(self)


def _size_add(self, other):
    """``size + tuple`` is a Size, as in ``torch/csrc/Size.cpp``."""
    if not isinstance(other, tuple):
        raise TypeError(f"can only concatenate tuple (not {builtins.type(other).__name__}) to torch.Size")
    return Size(tuple.__add__(self, other))


def _size_radd(self, other):
    return Size(tuple.__add__(tuple(other), self)) if isinstance(other, tuple) else NotImplemented


def _size_mul(self, times):
    return Size(tuple.__mul__(self, times))


Size.numel, Size.__getitem__ = _size_numel, _size_getitem
Size.__add__, Size.__radd__, Size.__mul__, Size.__rmul__ = _size_add, _size_radd, _size_mul, _size_mul


bind(data=Tensor.data.deleter(_delete_data), grad=Tensor.grad.deleter(_delete_grad))
bind(to=to, type=type, numel=numel, nelement=numel, __len__=__len__, __int__=__int__, __index__=__index__,
     __hash__=__hash__, output_nr=property(output_nr), retains_grad=property(retains_grad),
     is_inference=is_inference)
bind(element_size=element_size, data_ptr=data_ptr, __copy__=__copy__, __deepcopy__=__deepcopy__,
     type_as=type_as, is_cuda=property(is_cuda), __array__=__array__,
     register_post_accumulate_grad_hook=register_post_accumulate_grad_hook, __contains__=__contains__, __format__=__format__,
     **dict.fromkeys(("is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_mps",
                      "is_xpu", "is_ipu", "is_xla", "is_vulkan", "is_mtia", "is_maia"), property(_never)))

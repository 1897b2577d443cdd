"""``nnref.Tensor``: an n-dimensional array that can remember how it was made.

Mirrors ``torch/_tensor.py`` plus the C++ ``TensorImpl``/``AutogradMeta`` (chapters 01-02): the
values in ``_data``, autograd's bookkeeping beside them.  The maths lives in the files under
``_ops/``, which bind it to methods with :func:`bind`.
"""
import builtins
import numbers
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from ._naming import TorchNamed
from . import _dtype
from ._device import CPU, array_module, canonical_device, to_host
from .autograd.grad_mode import _GradState
from .autograd.graph import AccumulateGrad
from .utils.hooks import RemovableHandle

__all__ = ["Tensor", "Size", "bind"]


class Tensor(metaclass=TorchNamed):
    """A multi-dimensional array with autograd bookkeeping.  ``Tensor(2, 3)`` and
    ``Tensor([1, 2])`` are the legacy constructor (default dtype); prefer :func:`nnref.tensor`."""
    _torch_name = "torch.Tensor"  # PyTorch's name (nnref/_naming.py)

    __slots__ = ("_data", "_dtype", "_device", "_requires_grad", "_grad", "_grad_fn", "_output_nr",
                 "_version_counter", "_backward_hooks", "_retains_grad", "_accumulator_ref",
                 "_base", "_view_version", "_view_meta", "_inference", "__weakref__", "__dict__")
    __array_priority__ = 1000  # numpy defers to our reflected operators (np.float32(2) * t)

    def __init__(self, *args, device=None):
        dtype = _dtype.get_default_dtype()  # Tensor(tensor), a view, is the mirror's (nnref/_ops/shape.py)
        if not args:
            data = np.zeros((0,), dtype=dtype.numpy)
        elif len(args) == 1 and not isinstance(args[0], (numbers.Integral, Size)):
            data = np.asarray(args[0], dtype=dtype.numpy)
        else:
            sizes = args[0] if isinstance(args[0], Size) else args
            data = np.zeros(tuple(builtins.int(s) for s in sizes), dtype=dtype.numpy)
        dev = canonical_device(device)
        _init(self, array_module(dev).asarray(data), dev)

    # -- construction used by every op: no checks, no copies ---------------------------------------
    @classmethod
    def _make(cls, data, device=CPU):
        # Almost always a numpy array: one type test before the two slower ones.
        if type(data) is not np.ndarray and (
                not hasattr(data, "shape") or isinstance(data, np.generic)):
            data = array_module(device).asarray(data)
        t = object.__new__(cls)
        _init(t, data, device)
        return t

    def _alias_without_history(self):
        """Same memory and version counter, no grad_fn: how a node saves its own output."""
        t = Tensor._make(self._data, self._device)
        t._version_counter = self._version_counter
        t._inference = self._inference
        return t

    def _alias_with_grad_fn(self, node):
        t = self._alias_without_history()
        t.grad_fn = node
        return t

    # -- the eight attributes ---------------------------------------------------------------------
    @property
    def data(self):
        """The same values without the history: a new leaf that shares memory."""
        t = self._alias_without_history()
        t._version_counter = [0]  # PyTorch's .data is deliberately invisible to the version check
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"assigned data must be a Tensor, not {type(value).__name__}")
        self._data, self._dtype, self._device = value._data, value._dtype, value._device

    @property
    def dtype(self):
        """The element type, a ``dtype`` (``torch/csrc/autograd/python_variable.cpp``)."""
        return self._dtype

    @property
    def shape(self):
        """Each dimension's size, a ``Size`` (``torch/csrc/autograd/python_variable.cpp``)."""
        return Size(self._data.shape)

    @property
    def device(self):
        """Where the values live, a ``device`` (``torch/csrc/autograd/python_variable.cpp``)."""
        return self._device

    @property
    def requires_grad(self):
        """True if autograd records the ops on it (``torch/csrc/autograd/python_variable.cpp``)."""
        return self._requires_grad or self._grad_fn is not None or (
            self._base is not None and self.grad_fn is not None)

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    @property
    def grad(self):
        """The gradient ``backward()`` accumulated into this leaf (``None`` until then; a
        non-leaf warns unless ``retain_grad()``): ``torch/csrc/autograd/python_variable.cpp``."""
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                "non-leaf Tensor.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"assigned grad has data of a different size: expected "
                                   f"{list(self.shape)}, got {list(value.shape)}")
            if value._dtype is not self._dtype:
                raise RuntimeError(f"assigned grad has data of a different type: expected "
                                   f"{self.type()}, got {value.type()}")
        self._grad = value

    @property
    def grad_fn(self):
        """The node that made this tensor (None for leaves); a view changed in place since gets a
        new one over its base's newest history, as PyTorch's ``VariableHooks::grad_fn`` does."""
        if self._base is not None and self._view_version != self._version_counter[0]:
            self._refresh_view_grad_fn()
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    @property
    def is_leaf(self):
        """True for tensors made by the user or that do not require grad: ``grad_fn is None``."""
        return self.grad_fn is None

    @property
    def _version(self):
        """How many times this tensor's memory was changed in place (shared by its views)."""
        return self._version_counter[0]

    def _is_view(self):
        """True when this tensor is a view of another (``_base``); ``detach()`` is not a view."""
        return self._base is not None

    # -- size and element access ------------------------------------------------------------------
    def size(self, dim=None):
        """The shape, or with ``dim`` the size of that dimension (``torch.Tensor.size``)."""
        return self.shape if dim is None else self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self):
        """The number of dimensions (``c10/core/TensorImpl.h``)."""
        return self._data.ndim

    @property
    def ndim(self):
        """The number of dimensions, as a property (``torch/csrc/autograd/python_variable.cpp``)."""
        return self._data.ndim

    def item(self):
        """The single value as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to "
                               "Scalar; index one element first (t[0].item()) or use t.tolist()")
        return self._data.reshape(()).item()

    def tolist(self):
        """The values as nested lists of Python numbers (``torch/csrc/utils/tensor_list.cpp``)."""
        return to_host(self._data).tolist()

    def numpy(self, *, force=False):
        """The values as a numpy array sharing memory (CPU tensors that do not require grad)."""
        if self._device.type != "cpu":
            raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        if self.requires_grad and not force and _GradState.enabled:  # PyTorch: fine under no_grad
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self._data.size} elements is "
                               "ambiguous; use .any() or .all()")
        return builtins.bool(self.item())

    def __float__(self):
        return builtins.float(self.item())

    # -- type conversions -------------------------------------------------------------------------
    def type(self, dtype=None, non_blocking=False):
        """Without arguments, the legacy type name (``'torch.FloatTensor'``); else a converted copy."""
        if dtype is None:
            prefix = "torch." if self._device.type == "cpu" else "torch.cuda."
            return prefix + self._dtype._legacy_name
        return self.to(dtype)

    def is_floating_point(self):
        """True for the float dtypes (``aten/src/ATen/native/TypeProperties.cpp``)."""
        return self._dtype.is_floating_point

    @property
    def is_meta(self):
        """True on the values-free ``meta`` device (``torch/csrc/autograd/python_variable.cpp``)."""
        return self._device.type == "meta"

    def float(self):
        """``self.to(nnref.float32)`` (``torch/csrc/autograd/python_variable_methods.cpp``)."""
        return self.to(_dtype.float32)

    # -- autograd ---------------------------------------------------------------------------------
    def requires_grad_(self, requires_grad=True):
        """Mark a leaf as needing gradients (only floating point tensors can)."""
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and self._inference and not _GradState.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        if requires_grad and not self._dtype.is_floating_point:
            raise RuntimeError(f"only Tensors of floating point and complex dtype can require "
                               f"gradients (got {self._dtype}); convert first, e.g. t.float()")
        self._requires_grad = builtins.bool(requires_grad)
        return self

    def detach(self):
        """A new leaf sharing memory (and version counter) with this tensor, cut from the graph."""
        return self._alias_without_history()

    def detach_(self):
        """``detach()`` in place; views refuse (``torch/csrc/autograd/VariableTypeManual.cpp``)."""
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf after backward (a no-op on leaves)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        self.grad_fn._set_retains_grad_hook(self._output_nr, self)
        self._retains_grad = True

    def _retain_incoming_grad(self, grad):
        if self._grad is None:
            self._grad = grad.clone() if not grad.requires_grad else grad
        else:
            self._grad = self._grad + grad

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._register_tensor_pre_hook(self._output_nr, hook)
        if self._backward_hooks is None:
            self._backward_hooks = OrderedDict()
        return RemovableHandle(self._backward_hooks, hook)

    def _grad_accumulator(self):
        """The leaf's ``AccumulateGrad`` node, shared by every graph that uses this leaf."""
        accumulator = self._accumulator_ref() if self._accumulator_ref is not None else None
        if accumulator is None:
            accumulator = AccumulateGrad(self)
            self._accumulator_ref = weakref.ref(accumulator)
        return accumulator

    def _accumulate_(self, other):
        """``self += other`` on the raw buffer: gradient accumulation, not a recorded op."""
        array_module(self._device).add(self._data, other._data, out=self._data)

    def _bump_version(self):
        self._version_counter[0] += 1


class Size(tuple, metaclass=TorchNamed):
    """``torch.Size``: a tuple of ints that prints as PyTorch's, ``torch.Size([2, 3])``."""
    _torch_name = "torch.Size"  # PyTorch's name (nnref/_naming.py)

    # Slices, numel, sums and repeats of a Size are bound by the mirror (nnref/_tensor_extras.py).
    def __repr__(self):
        return f"torch.Size({list(self)})"


def _init(t, data, dev):
    t._data = data
    t._dtype = _dtype._BY_NUMPY[data.dtype]
    t._device = dev
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._version_counter = [0]
    t._backward_hooks = None
    t._retains_grad = False
    t._accumulator_ref = None
    t._base = None
    t._view_version = 0
    t._view_meta = None
    t._inference = _GradState.inference


def _wrap_dim(dim, ndim):
    bound = builtins.max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, "
                         f"{bound - 1}], but got {dim})")
    return dim % bound


def bind(**methods):
    """Attach ``methods`` to :class:`Tensor`, each under its keyword's name: the one way a method
    written outside this file reaches the class.  This file says what a tensor *is*; the files
    that compute with tensors, core and mirror alike, import it and bind what a tensor *does*
    (``bind(add=add, __add__=add)``), as PyTorch generates ``python_variable_methods.cpp`` from
    ``native_functions.yaml``.  So no import goes back from here to them.
    """
    for name, method in methods.items():
        setattr(Tensor, name, method)

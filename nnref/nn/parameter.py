"""``nnref.nn.parameter`` (``torch/nn/parameter.py``): ``Parameter`` lives in the teaching core
(``nnref/core/nn/parameter.py``); this public module re-exports it and adds ``Buffer`` (which
the core's ``Module.__setattr__`` knows by its ``_is_buffer`` mark) and the lazy modules'
``UninitializedParameter`` and ``UninitializedBuffer``, and binds ``Parameter.__deepcopy__``.
"""
import inspect

from .._creation import empty
from ..autograd.profiler import _register_shapeless
from ..core._seams import install
from ..core._naming import TorchNamed
from ..core._tensor import Size, Tensor
from ..core.nn import parameter as _core_parameter
from ..core.nn.modules import _apply
from ..core.nn.modules.module import bind
from ..core.nn.parameter import Parameter

__all__ = ["Parameter"]

install(_core_parameter, "empty", empty)  # Parameter() follows set_default_device


def _parameter_deepcopy(self, memo):
    """A new Parameter holding a clone, same ``requires_grad`` (``torch/nn/parameter.py``)."""
    if id(self) not in memo:
        memo[id(self)] = type(self)(self.data.clone(), self.requires_grad)
    return memo[id(self)]


bind(Parameter, __deepcopy__=_parameter_deepcopy)


class _BufferMeta(TorchNamed):
    """``isinstance(t, Buffer)`` is True for any tensor marked as a buffer (``torch/nn/parameter.py``)."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that registers itself as a buffer when assigned to a module attribute
    (``self.mask = nn.Buffer(t)``); ``persistent=False`` keeps it out of the ``state_dict``.
    Like PyTorch's, ``Buffer(t)`` returns a plain tensor (a detached alias of ``t``) marked as a buffer."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


__all__ += ["UninitializedParameter", "UninitializedBuffer"]

_USE_MESSAGE = (
    "Attempted to use an uninitialized parameter{where}. This error happens when you are using a "
    "`LazyModule` or explicitly manipulating `torch.nn.parameter.{cls}` objects. "
    "When using LazyModules Call `forward` with a dummy batch to initialize the parameters before "
    "calling torch functions")
_SHAPE_MESSAGE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
    "in `load_state_dict` when trying to load an uninitialized parameter into an initialized one. "
    "Call `forward` to initialize the parameters before accessing their attributes.")


class _NoData:
    """The storage of an uninitialized tensor: any use of its values raises ``ValueError``."""

    __slots__ = ()

    def __getattr__(self, name):
        raise ValueError(_USE_MESSAGE.format(where="", cls="UninitializedParameter"))

    def __array__(self, *args, **kwargs):
        raise ValueError(_USE_MESSAGE.format(where="", cls="UninitializedParameter"))

    def __len__(self):
        raise ValueError(_USE_MESSAGE.format(where="", cls="UninitializedParameter"))


# The Tensor methods an uninitialized tensor answers (PyTorch's ``_allowed_methods``, those nnref
# has): the rest raise, naming the method as PyTorch's ``__torch_function__`` does.
_ALLOWED_METHODS = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half", "float", "double",
                              "char", "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize"})
_blocked_methods = None


def _blocked_method_names():
    global _blocked_methods
    if _blocked_methods is None:  # Tensor's methods are all bound once nnref is imported
        _blocked_methods = frozenset(
            name for name in dir(Tensor) if not name.startswith("_") and name not in _ALLOWED_METHODS
            and callable(inspect.getattr_static(Tensor, name)))
    return _blocked_methods


class _UninitializedTensorMixin:
    """A tensor with a dtype and device but no shape or values yet (``UninitializedTensorMixin``).

    ``materialize(shape)`` gives it zero-filled storage and turns it into ``cls_to_become``
    in place, so every reference to it (a module's ``_parameters``, an optimizer's
    ``param_groups``) sees the real tensor from then on.
    """

    def __getattribute__(self, name):
        if not name.startswith("_") and name in _blocked_method_names():
            def uninitialized(*args, **kwargs):
                where = f" in <method '{name}' of 'torch._C.TensorBase' objects>"
                raise ValueError(_USE_MESSAGE.format(where=where, cls=type(self).__name__))
            return uninitialized
        return super().__getattribute__(name)

    @property
    def data(self):
        """PyTorch's ``.data`` of an uninitialized parameter: a plain empty tensor (size ``[0]``)
        of its dtype, which ``weight.data.normal_()`` fills without error before the first
        ``forward`` (the parameter's own storage is set by ``materialize``); a buffer's is an
        uninitialized buffer again."""
        if isinstance(self, Parameter):
            return empty(0, dtype=self._dtype, device=self._device)
        return _uninitialized(type(self), False, self._device, self._dtype)

    @data.setter
    def data(self, value):
        Tensor.data.fset(self, value)

    def materialize(self, shape, device=None, dtype=None):
        """Give it storage of ``shape`` (on ``device``, of ``dtype``) and turn it into
        ``cls_to_become`` in place (``torch/nn/parameter.py``)."""
        real = empty(shape, dtype=dtype or self._dtype, device=device or self._device)
        self._data, self._dtype, self._device = real._data, real._dtype, real._device
        self.__class__ = self.cls_to_become

    def to(self, *args, **kwargs):
        """Only the device and dtype it will be materialised with change: there are no values to
        move yet, so ``LazyLinear(4).to('cuda')`` works before the first ``forward``."""
        device, dtype, _ = _apply._parse_to(*args, **kwargs)
        return _uninitialized(type(self), self.requires_grad, device or self._device, dtype or self._dtype)

    @property
    def shape(self):
        """Raises: an uninitialised parameter has no shape until ``materialize``
        (``torch/nn/parameter.py``)."""
        raise RuntimeError(_SHAPE_MESSAGE)

    def size(self, dim=None):
        """``torch.Size([0])``, the size of the empty storage behind it (``size`` is one of
        PyTorch's allowed methods, while ``shape`` raises)."""
        if dim is None:
            return Size((0,))
        if dim not in (0, -1):
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
        return 0

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, protocol):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self._device, self._dtype)
        return memo[id(self)]


def _refuse_operator(method):
    def operator(self, *args):
        raise ValueError(_USE_MESSAGE.format(where=f" in {method}", cls=type(self).__name__))
    return operator


# Python's operators on an uninitialized tensor: PyTorch names the method they reach.
for _dunder, _method in {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul", "__rmul__": "mul",
                         "__truediv__": "div", "__neg__": "neg", "__matmul__": "matmul", "__gt__": "gt",
                         "__lt__": "lt", "__ge__": "ge", "__le__": "le"}.items():
    setattr(_UninitializedTensorMixin, _dunder,
            _refuse_operator(f"<method '{_method}' of 'torch._C.TensorBase' objects>"))
_UninitializedTensorMixin.__getitem__ = _refuse_operator("<slot wrapper '__getitem__' of 'torch._C.TensorBase' objects>")
del _dunder, _method


def _uninitialized(cls, requires_grad, device, dtype):
    from .._creation import empty as _empty
    template = _empty(0, dtype=dtype, device=device)  # settles the default dtype and device
    t = cls._make(template._data, template._device)
    t._data = _NoData()
    Tensor.requires_grad_(t, requires_grad)  # (its own requires_grad_ raises, as PyTorch's)
    return t


class UninitializedParameter(_UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet: what a lazy module (``nn.LazyLinear``)
    registers until its first ``forward`` sees the input and materialises it."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(_UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (lazy modules' running statistics)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass


_register_shapeless(_UninitializedTensorMixin)  # the profiler records its tensors' shapes as []


def is_lazy(param):
    """True for an uninitialized parameter or buffer."""
    return isinstance(param, _UninitializedTensorMixin)


__all__ += ["Buffer"]

from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)

"""Factory functions: ``tensor``, ``zeros``, ``arange``, ``randn``, ``from_numpy``, the legacy types.

Mirrors ``torch/_refs/__init__.py``'s factories and ``torch/csrc/utils/tensor_new.cpp``
(for ``tensor``'s dtype inference: bools stay bool, integers become int64,
anything with a float becomes the default float dtype).
"""
import builtins
import functools
import numbers
import warnings

import numpy as np

from .core._naming import TorchNamed
from .core import _dtype
from ._device_extras import check_dtype_on_device, get_default_device
from .core._device import array_module, canonical_device
from . import _random, _type_info
from .core._device import to_host
from .core._ops.arithmetic import _scalar_dtype
from .core._tensor import Size, Tensor
from ._layout import check_memory_format, strided
from ._cupy import cuda_unavailable_reason
from ._half import through_float32

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "full", "empty", "eye", "arange",
           "linspace", "rand", "randn", "randint", "randperm", "normal", "zeros_like", "ones_like", "full_like",
           "empty_like", "rand_like", "randn_like", "randint_like", "FloatTensor", "DoubleTensor", "LongTensor",
           "IntTensor", "BoolTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor",
           "BFloat16Tensor"]


def _finish(data, dtype, device, requires_grad):
    """A tensor of ``dtype`` on ``device`` holding ``data``: an array, or a function
    ``data(xp, dev)`` that makes one with the device's array module (so GPU tensors
    are made on the GPU, not copied there)."""
    dtype = _type_info.as_dtype(dtype)
    dev = canonical_device(get_default_device() if device is None else device)
    check_dtype_on_device(dtype, dev)
    xp = array_module(dev)
    if callable(data):
        data = data(xp, dev)
    t = Tensor._make(xp.asarray(through_float32(data, dtype.numpy), dtype=dtype.numpy), dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


_PYTHON_SCALARS = {builtins.bool: _dtype.bool, builtins.int: _dtype.int64, builtins.float: None}


def _inferred_dtype(data):
    """The dtype ``tensor(data)`` gets when none is given (``infer_scalar_type`` in tensor_new.cpp).

    Python bools stay bool, ints become int64, floats the default dtype; numpy
    arrays and scalars and tensors keep their own dtype; a list takes the
    promotion of everything inside it (so ``[np.float64(1), 2]`` is float64).
    """
    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return _type_info.from_numpy_dtype(data.dtype)
    if isinstance(data, (list, tuple)):
        if not data:
            return _dtype.get_default_dtype()
        result = None
        kinds = set(map(type, data))  # one pass in C; only unusual items are visited one by one
        for kind in kinds & _PYTHON_SCALARS.keys():
            result = _promote(result, _PYTHON_SCALARS[kind] or _dtype.get_default_dtype())
        if kinds - _PYTHON_SCALARS.keys():
            for item in data:
                if type(item) not in _PYTHON_SCALARS:
                    result = _promote(result, _inferred_dtype(item))
        return result
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    try:
        return _scalar_dtype(data)  # a Python number: the core's rule, which ops use for them too
    except TypeError:
        # PyTorch's type and words (torch/csrc/utils/tensor_new.cpp, infer_scalar_type)
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}") from None


def _promote(a, b):
    return b if a is None else _dtype.promote_types(a, b)


def _to_nested_lists(data):
    """Replace tensors inside a (nested) list by their values, so numpy can read it."""
    if isinstance(data, Tensor):
        return to_host(data._data)
    if isinstance(data, (list, tuple)) and not all(type(x) in _PYTHON_SCALARS for x in data):
        return [_to_nested_lists(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data``; the dtype is inferred unless given."""
    dtype = _type_info.as_dtype(dtype)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.clone().detach() or sourceTensor.clone().detach()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    dtype = dtype or _inferred_dtype(data)
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # out of range: inf, silently (PyTorch)
            array = np.array(through_float32(_to_nested_lists(data), dtype.numpy), dtype=dtype.numpy)
    except ValueError as exc:
        raise ValueError(f"could not build a tensor from this data ({exc}); nested lists must be "
                         "rectangular, e.g. [[1, 2], [3, 4]]") from None
    return _finish(array, dtype, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor``, but without a copy where none is needed: a matching tensor is returned
    itself, and a numpy array already of that dtype is shared (as ``from_numpy``), as in PyTorch."""
    dtype = _type_info.as_dtype(dtype)
    if isinstance(data, Tensor):
        return data.to(dtype or data._dtype, device or data._device)
    if (isinstance(data, np.ndarray) and (dtype is None or dtype.numpy == data.dtype)
            and canonical_device(device).type == "cpu"):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``obj`` (a tensor, numpy array, number or nested list) as a tensor: sharing memory with a
    tensor or numpy array unless ``copy=True`` or the dtype or device differ, which ``copy=False``
    refuses (``torch.asarray``, ``torch/_torch_docs.py``)."""
    dtype = _type_info.as_dtype(dtype)
    if copy is False:
        source = (obj._dtype if isinstance(obj, Tensor) else
                  _type_info.from_numpy_dtype(obj.dtype) if isinstance(obj, np.ndarray) else None)
        if source is not None and dtype is not None and dtype is not source:
            raise ValueError(f"can't alias tensor with dtype '{source._legacy_name[:-6]}' into dtype "
                             f"'{dtype._legacy_name[:-6]}'.")
    result = as_tensor(obj, dtype, device)
    if copy and (result is obj or result._data is obj):  # shared: copy it
        result = result.clone()
    if requires_grad:
        result.requires_grad_(True)
    return result


def from_numpy(array):
    """A tensor sharing memory with a numpy array (changes show through both)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _type_info.from_numpy_dtype(array.dtype)
    return Tensor._make(array)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, numbers.Integral) or s < 0:
            raise RuntimeError(f"sizes must be non-negative integers, got {list(size)}")
    return tuple(builtins.int(s) for s in size)


def zeros(*size, dtype=None, device=None, requires_grad=False, **keywords):
    """A tensor of ``size`` filled with 0 (``torch.zeros``,
    ``aten/src/ATen/native/TensorFactories.cpp``); the size as separate ints or one sequence."""
    dtype = _type_info.as_dtype(dtype)
    size = _size_keyword("zeros", size, keywords)
    dtype, shape = dtype or _dtype.get_default_dtype(), _size(size)
    return _finish(lambda xp, dev: xp.zeros(shape, dtype.numpy), dtype, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, **keywords):
    """A tensor of ``size`` filled with 1 (``torch.ones``,
    ``aten/src/ATen/native/TensorFactories.cpp``); the size as separate ints or one sequence."""
    dtype = _type_info.as_dtype(dtype)
    size = _size_keyword("ones", size, keywords)
    dtype, shape = dtype or _dtype.get_default_dtype(), _size(size)
    return _finish(lambda xp, dev: xp.ones(shape, dtype.numpy), dtype, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=None, **keywords):
    """Uninitialised in PyTorch; zero-filled here, so results never depend on stale memory."""
    check_memory_format("empty", memory_format)
    dtype = _type_info.as_dtype(dtype)
    size = _size_keyword("empty", size, keywords)
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def _size_keyword(name, size, keywords):
    """``zeros(size=(2, 3))``: PyTorch accepts the shape as the keyword ``size`` too."""
    if "size" in keywords:
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        size = (keywords.pop("size"),)
    if keywords:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(keywords))}'")
    return size


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value``, of its dtype unless ``dtype`` is given
    (``torch.full``, ``aten/src/ATen/native/TensorFactories.cpp``)."""
    dtype = _type_info.as_dtype(dtype)
    if not isinstance(fill_value, (numbers.Number, np.generic, Tensor)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not {type(fill_value).__name__}")
    dtype = dtype or _inferred_dtype(fill_value)
    shape = _size((size,))
    value = _type_info.checked_scalar(fill_value, dtype, checked_16bit=False) if isinstance(fill_value, (int, float)) else fill_value
    return _finish(lambda xp, dev: xp.full(shape, value), dtype, device, requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """The ``n`` x ``m`` identity matrix (``m`` defaults to ``n``): ``torch.eye`` of
    ``aten/src/ATen/native/TensorFactories.cpp``."""
    dtype = _type_info.as_dtype(dtype)
    return _finish(lambda xp, dev: xp.eye(n, n if m is None else m), dtype or _dtype.get_default_dtype(),
                   device, requires_grad)


def arange(start=None, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """``start, start+step, ...`` below ``end``; int64 when all bounds are integers.
    ``arange(end)``, ``arange(end=n)`` and ``arange(start, end, step)`` are PyTorch's overloads."""
    dtype = _type_info.as_dtype(dtype)
    if end is None:
        if start is None:
            raise TypeError("arange() missing required argument 'end': call arange(end) or "
                            "arange(start, end, step)")
        start, end = 0, start
    elif start is None:
        start = 0
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = _dtype.int64 if integral else _dtype.get_default_dtype()
    if dtype is _dtype.bool:
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    if step == 0:
        raise RuntimeError("step must be nonzero")
    return _finish(lambda xp, dev: xp.arange(start, end, step), dtype, device, requires_grad)


def _scalar_bounds(name, start, end):
    """``start`` and ``end`` as numbers: PyTorch also takes 0-dim tensors for them, nothing larger."""
    bounds = []
    for which, value in (("start", start), ("end", end)):
        if isinstance(value, Tensor):
            if value.dim():
                raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got "
                                   f"{which} with {value.dim()} dimension(s).")
            value = value.item()
        bounds.append(value)
    return bounds


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end``, both included
    (``torch.linspace``, ``aten/src/ATen/native/RangeFactories.cpp``)."""
    start, end = _scalar_bounds("linspace", start, end)
    dtype = _type_info.as_dtype(dtype) or _dtype.get_default_dtype()
    if dtype in (_dtype.float32, _dtype.float64) and steps > 0 and not isinstance(start, complex) \
            and not isinstance(end, complex):
        from ._ops.fused import linspace_values  # ATen's rounding: numpy's linspace differs by an ulp
        return _finish(lambda xp, dev: linspace_values(start, end, steps, dtype.numpy, xp), dtype, device,
                       requires_grad)
    return _finish(lambda xp, dev: xp.linspace(start, end, steps), dtype, device, requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``steps`` values from ``base ** start`` to ``base ** end``, evenly spaced in the exponent
    (``torch.logspace``, ``aten/src/ATen/native/RangeFactories.cpp``)."""
    start, end = _scalar_bounds("logspace", start, end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _type_info.as_dtype(dtype)
    return _finish(lambda xp, dev: xp.power(float(base), xp.linspace(start, end, steps)),
                   dtype or _dtype.get_default_dtype(), device, requires_grad)


def _random_factory(size, dtype, device, requires_grad, sample):
    """A new tensor of ``size`` filled by ``sample(template_array, device)`` (the draw happens on
    the tensor's device: PyTorch's kernels for the CPU, CuPy's generator on a GPU)."""
    shape = _size(size)
    return _finish(lambda xp, dev: sample(xp.empty(shape, dtype.numpy), dev), dtype, device,
                   requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, **keywords):
    """Samples from U(0, 1): PyTorch's numbers after the same ``manual_seed``."""
    dtype = _type_info.as_dtype(dtype)
    size = _size_keyword("rand", size, keywords)
    dtype = dtype or _dtype.get_default_dtype()
    return _random_factory(size, dtype, device, requires_grad,
                           lambda a, dev: _random.uniform_like(a, dev, 0.0, 1.0, generator))


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, **keywords):
    """Samples from N(0, 1): PyTorch's numbers after the same ``manual_seed``."""
    dtype = _type_info.as_dtype(dtype)
    size = _size_keyword("randn", size, keywords)
    dtype = dtype or _dtype.get_default_dtype()
    return _random_factory(size, dtype, device, requires_grad,
                           lambda a, dev: _random.normal_like(a, dev, 0.0, 1.0, generator))


def randint(low=None, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """Integers in ``[low, high)``: PyTorch's overloads ``randint(high, size)`` (from 0) and
    ``randint(low, high, size)``, each argument by position or keyword (``randint(10, size=(5,))``,
    ``randint(high=10, size=(5,))``)."""
    dtype = _type_info.as_dtype(dtype)
    if size is None and high is not None:  # randint(high, size): both moved one place left
        low, high, size = None, low, high
    elif high is None:  # randint(high, size=...): the one bound given first is the upper one
        low, high = None, low
    if high is None or size is None:
        raise TypeError("randint() missing required arguments: call randint(high, size) or "
                        "randint(low, high, size), e.g. randint(10, (5,)) or randint(10, size=(5,))")
    low = 0 if low is None else low
    dtype = dtype or _dtype.int64
    return _random_factory((size,), dtype, device, requires_grad,
                           lambda a, dev: _random.randint_like(a, dev, low, high, generator))


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1`` (PyTorch's CPU shuffle, so the same order)."""
    dtype = _type_info.as_dtype(dtype)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dtype = dtype or _dtype.int64

    def sample(xp, dev):
        # Shuffled on the CPU generator whatever the device (a GPU tensor receives the result).
        return xp.asarray(_random.randperm(_random.cpu_generator(generator), n))
    return _finish(sample, dtype, device, requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """``normal(mean, std, size)`` with numbers, or elementwise means/stds given as tensors
    (``normal(mean)`` with a tensor of means draws with std 1, as PyTorch's overload does)."""
    dtype = _type_info.as_dtype(dtype)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None or dtype is not None or device is not None or requires_grad:
            raise TypeError("normal() received an invalid combination of arguments: with a tensor mean or std "
                            "the shape, dtype and device are the tensor's (size, dtype, device and "
                            "requires_grad go with number mean and std only)")
        template = mean if isinstance(mean, Tensor) else std
        shape = np.broadcast_shapes(*(x.shape for x in (mean, std) if isinstance(x, Tensor)))
        out = randn(*shape, generator=generator, dtype=template._dtype, device=template._device)
        return out * std + mean  # PyTorch: normal_(0, 1) then mul by std and add mean
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments: give a size when "
                        "mean and std are numbers, e.g. normal(0.0, 1.0, (3,))")
    dtype = dtype or _dtype.get_default_dtype()
    return _random_factory((size,), dtype, device, requires_grad,
                           lambda a, dev: _random.normal_like(a, dev, mean, std, generator))


def _like(factory):
    def like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, **kwargs):
        check_memory_format(factory.__name__ + "_like", memory_format)
        dtype = _type_info.as_dtype(dtype)
        return factory(input._data.shape, dtype=dtype or input._dtype,
                       device=device or input._device, requires_grad=requires_grad, **kwargs)
    like.__name__ = factory.__name__ + "_like"
    like.__doc__ = f"``{factory.__name__}`` with the shape, dtype and device of ``input``."
    return like


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)
rand_like, randn_like = _like(rand), _like(randn)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False, memory_format=None):
    """Random integers in ``[low, high)`` with ``input``'s shape (``high`` alone means
    ``low=0``), ``torch.randint_like`` of ``aten/src/ATen/native/TensorFactories.cpp``."""
    check_memory_format("randint_like", memory_format)
    dtype = _type_info.as_dtype(dtype)
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, generator=generator, dtype=dtype or input._dtype,
                   device=device or input._device, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """A tensor of ``input``'s shape (and dtype and device, unless given) filled with
    ``fill_value`` (``torch.full_like``, ``aten/src/ATen/native/TensorFactories.cpp``)."""
    check_memory_format("full_like", memory_format)
    dtype = _type_info.as_dtype(dtype)
    return full(input._data.shape, fill_value, dtype=dtype or input._dtype,
                device=device or input._device, requires_grad=requires_grad)


def _new(factory):
    """``tensor.new_zeros(2, 3)`` and friends (``_C.TensorBase.new_*``): the factory, with this
    tensor's dtype and device unless others are given."""
    def method(self, *args, dtype=None, device=None, requires_grad=False, **keywords):
        dtype = _type_info.as_dtype(dtype)
        return factory(*args, dtype=dtype or self._dtype, device=device or self._device,
                       requires_grad=requires_grad, **keywords)
    method.__name__ = "new_" + factory.__name__
    method.__doc__ = f"``{factory.__name__}`` with this tensor's dtype and device unless given."
    return method


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A copy of ``data`` with this tensor's dtype and device unless given (even for Python ints)."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        data = data.detach().cpu().numpy()
    return tensor(data, dtype=_type_info.as_dtype(dtype) or self._dtype, device=device or self._device,
                  requires_grad=requires_grad)


for _factory in (zeros, ones, empty, full):
    setattr(Tensor, f"new_{_factory.__name__}", _new(_factory))
Tensor.new_tensor = new_tensor


class _LegacyTensorType(TorchNamed):
    """``isinstance(t, nnref.FloatTensor)`` is true for float32 CPU tensors, as in PyTorch."""

    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and instance._dtype is cls.dtype


def _legacy_new(dt, args, device):
    """``torch.FloatTensor(...)`` and ``t.new(...)``: sizes, data, or a tensor of ``dt`` to alias."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0]._dtype is not dt:
            raise TypeError(f"expected a {dt} tensor, got {args[0]._dtype}")
        return Tensor(args[0], device=device)  # an alias, as PyTorch's
    if len(args) == 1 and isinstance(args[0], numbers.Real) and not isinstance(args[0], numbers.Integral):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    if len(args) == 1 and not isinstance(args[0], (numbers.Integral, Size)):
        return _finish(np.asarray(through_float32(args[0], dt.numpy), dtype=dt.numpy), dt, device, False)
    return zeros(*(args or (0,)), dtype=dt, device=device)  # no arguments: empty, size (0,)


def new(self, *args, device=None):
    """A tensor of this one's dtype and device from sizes or data, by the legacy constructor's
    rules (``torch.Tensor.new``, ``torch/csrc/utils/tensor_new.cpp``: ``legacy_tensor_new``)."""
    if device is None and not (len(args) == 1 and isinstance(args[0], Tensor)):
        device = self._device  # (a tensor argument is aliased where it is)
    return _legacy_new(self._dtype, args, device)


def _legacy_type(name, dt):
    def __new__(cls, *args, device=None):
        return _legacy_new(dt, args, device)
    return _LegacyTensorType(name, (), {"__new__": __new__, "dtype": dt, "_torch_name": f"torch.{name}",
                                        "__doc__": f"Legacy constructor that always makes {dt} tensors."})


FloatTensor = _legacy_type("FloatTensor", _dtype.float32)
DoubleTensor = _legacy_type("DoubleTensor", _dtype.float64)
HalfTensor = _legacy_type("HalfTensor", _dtype.float16)
LongTensor = _legacy_type("LongTensor", _dtype.int64)
IntTensor = _legacy_type("IntTensor", _dtype.int32)
BoolTensor = _legacy_type("BoolTensor", _dtype.bool)
ByteTensor = _legacy_type("ByteTensor", _dtype.uint8)
CharTensor = _legacy_type("CharTensor", _dtype.int8)
ShortTensor = _legacy_type("ShortTensor", _dtype.int16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", _dtype.bfloat16)


def with_factory_keywords(factory):
    """``factory`` taking PyTorch's ``layout=`` (``None`` or ``torch.strided``) and
    ``pin_memory=`` keywords: page-locked memory as ``Tensor.pin_memory()`` gives it."""
    @functools.wraps(factory)
    def wrapper(*args, layout=None, pin_memory=False, **kwargs):
        if layout is not None and layout is not strided:
            raise NotImplementedError(f"{factory.__name__}(): nnref has only the strided layout "
                                      f"(torch.strided), not {layout!r}")
        # nnref's one accelerator is CUDA: accelerator.is_available() is this test
        if pin_memory and cuda_unavailable_reason() is not None:
            raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no "
                               "pinned memory allocator is available on this system.")
        return factory(*args, **kwargs)
    return wrapper

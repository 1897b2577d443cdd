"""The ``'meta'`` device's arrays: a shape and a dtype, no values; every op is a shape function.

Mirrors PyTorch's meta device (``c10/core/DeviceType.h`` ``DeviceType::Meta``): its kernels
(``torch/_meta_registrations.py`` and the ``torch/_refs`` decompositions) compute only the
shape and dtype of a result.  nnref reaches the same point through its one switch,
``array_module(device)``: on ``'meta'`` it returns :data:`meta` below, a namespace with the
numpy names nnref's ops call, each answering with a :class:`MetaArray`.  So every op of
nnref, its autograd nodes included, runs on meta tensors unchanged.

How the shapes are found, by kind of function:

* ufuncs (``add``, ``exp``, comparisons, ...): broadcast shape; the dtype from the ufunc run
  on 0-d arrays of ones of the operands' dtypes (NEP 50 rules, Python scalars as they are).
* reductions (``sum``, ``max``, ``argmax``, ``ufunc.reduce``, ...): the axis rule; the dtype
  from the same function on an all-ones array of shape ``(1,) * ndim``.
* views (``reshape``, ``transpose``, ``moveaxis``, ``broadcast_to``, ``diagonal``, basic
  indexing, ``as_strided``, ``sliding_window_view``, ...): numpy's own function on a
  zero-stride placeholder, ``np.broadcast_to(np.empty((), dtype), shape)``, which allocates
  one element whatever the shape, so its shape is numpy's (and its errors too).
* copies (``matmul``, ``concatenate``, ``where``, ``take``, ``pad``, ``einsum``, advanced
  indexing, ...): one shape rule each.
* a few rarely used functions (:data:`_PROBED`) run numpy on zero-stride placeholders,
  only while their inputs hold at most :data:`PROBE_LIMIT` elements; above it they raise.
* results whose shape depends on the values (``nonzero``, ``unique``, ``bincount``,
  boolean masks, one-argument ``where``, ``repeat`` by an array) raise NotImplementedError,
  as PyTorch's meta tensors do.

No value can be read: ``__array__``, ``item``, ``tolist``, ``float()``, ``int()``,
``bool()``, ``__index__`` raise, and a name the namespace does not know raises
NotImplementedError naming it, so an op nnref cannot run on meta fails loudly.
"""
import builtins
import math
import numbers
import types

import numpy as np

__all__ = ["MetaArray", "meta", "PROBE_LIMIT", "has_values"]

PROBE_LIMIT = 2**16  # elements of all inputs together, for the functions run on placeholders

NO_DATA = "Cannot copy out of meta tensor; no data!"
ITEM = "Tensor.item() cannot be called on meta tensors"
NONZERO = ("The register_meta function for torch.nonzero() raises unimplemented by default, as a "
           "correct data-independent implementation does not exist. This implementation returns a "
           "fake value, assuming all elements of the tensor are non-zero. To enable this "
           "registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' "
           "to True.")


def _data_dependent(name):
    return NotImplementedError(
        f"{name}: the size of its result depends on the values, which a 'meta' tensor does not "
        f"have (PyTorch has no meta kernel for it either)")


def _no_rule(name):
    return NotImplementedError(f"nnref's 'meta' device has no shape rule for numpy's {name}, so this "
                               f"op cannot run on meta tensors")


_ELEMENT = bytes(16)  # the one element every placeholder's entries share (the widest dtype's size)


def _placeholder(shape, dtype):
    """A read-only array of ``shape`` whose elements all share one element (all strides 0):
    ``np.broadcast_to(np.empty((), dtype), shape)``, built directly since it is made per op."""
    shape = tuple(shape)
    return np.ndarray(shape, dtype, buffer=_ELEMENT, strides=(0,) * len(shape))


def _ones(dtype, ndim=0):
    return np.ones((1,) * ndim, dtype)


def _wrap(result):
    """numpy results (placeholders' views, or probes) as MetaArrays; other values as they are."""
    if isinstance(result, (np.ndarray, np.generic)):
        return MetaArray(np.shape(result), result.dtype)
    if isinstance(result, tuple):
        items = [_wrap(r) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    if isinstance(result, list):
        return [_wrap(r) for r in result]
    return result


def _as_placeholder(value):
    if isinstance(value, MetaArray):
        return _placeholder(value.shape, value.dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_as_placeholder(v) for v in value)
    return value


def _shape_of(value):
    return value.shape if hasattr(value, "shape") else np.shape(value)


def _dtype_probe(value):
    """A 0-d array of ones of an operand's dtype (Python and numpy scalars stay as they are)."""
    if isinstance(value, (MetaArray, np.ndarray)):
        return _ones(value.dtype).reshape(())
    return value


def _normalize_axis(axis, ndim):
    if axis < -ndim or axis >= ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _reduced_shape(shape, axis, keepdims):
    ndim = len(shape)
    if axis is None:
        axes = set(range(ndim))
    else:
        axes = {_normalize_axis(a, ndim) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))}
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


class _Flags:
    """A meta array is laid out as a C-contiguous array of its shape would be."""

    c_contiguous = True
    writeable = True

    def __init__(self, shape):
        self.f_contiguous = builtins.sum(s != 1 for s in shape) <= 1

    def __getitem__(self, name):
        return {"C_CONTIGUOUS": True, "F_CONTIGUOUS": self.f_contiguous, "WRITEABLE": True}[name]


class MetaArray:
    """An array of a ``'meta'`` tensor: ``shape`` and ``dtype`` (and what follows from them), no values."""

    __slots__ = ("shape", "dtype", "__weakref__")
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, shape, dtype):
        self.shape = tuple(builtins.int(s) for s in shape)
        self.dtype = np.dtype(dtype)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)
    flags = property(lambda self: _Flags(self.shape))
    base = None

    @property
    def strides(self):
        """The strides of a C-contiguous array of this shape (PyTorch's meta tensors have strides)."""
        strides, step = [], self.dtype.itemsize
        for s in reversed(self.shape):
            strides.append(step)
            step *= builtins.max(s, 1)
        return tuple(reversed(strides))

    def _view(self, function, *args, **kwargs):
        return _wrap(function(_placeholder(self.shape, self.dtype), *args, **kwargs))

    def __repr__(self):
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"

    # -- no values ------------------------------------------------------------------------------
    def __array__(self, *args, **kwargs):
        raise NotImplementedError(NO_DATA)

    def item(self, *args):
        raise RuntimeError(ITEM)

    def tolist(self):
        raise NotImplementedError(NO_DATA)

    def tobytes(self, *args, **kwargs):
        raise NotImplementedError(NO_DATA)

    def get(self, *args, **kwargs):
        raise NotImplementedError(NO_DATA)

    def __bool__(self):
        raise RuntimeError(ITEM)

    __float__ = __int__ = __index__ = __complex__ = __bool__

    def __format__(self, spec):
        raise RuntimeError(ITEM)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __copy__(self):
        return MetaArray(self.shape, self.dtype)

    def __deepcopy__(self, memo):
        return MetaArray(self.shape, self.dtype)

    def __reduce__(self):
        return (MetaArray, (self.shape, self.dtype))

    # -- views ----------------------------------------------------------------------------------
    def reshape(self, *shape, order="C", copy=None):
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], numbers.Integral) else shape
        return self._view(np.reshape, shape, copy=False)

    def transpose(self, *axes):
        return self._view(np.transpose, axes[0] if len(axes) == 1 else (axes or None))

    def swapaxes(self, a, b):
        return self._view(np.swapaxes, a, b)

    def squeeze(self, axis=None):
        return self._view(np.squeeze, axis)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return self._view(np.diagonal, offset, axis1, axis2)

    def ravel(self, order="C"):
        return MetaArray((self.size,), self.dtype)

    flatten = ravel

    def view(self, dtype=None, type=None):
        return self._view(lambda p: p.view(dtype) if dtype is not None else p)

    T = property(lambda self: self._view(np.transpose))
    mT = property(lambda self: self._view(np.swapaxes, -1, -2))
    real = property(lambda self: meta.real(self))
    imag = property(lambda self: meta.imag(self))

    def __getitem__(self, key):
        return _getitem(self, key)

    def __setitem__(self, key, value):
        target = _getitem(self, key)
        value_shape = _shape_of(value)
        if np.broadcast_shapes(value_shape, target.shape) != target.shape:
            raise ValueError(f"could not broadcast input array from shape {value_shape} into shape "
                             f"{target.shape}")

    # -- copies ---------------------------------------------------------------------------------
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return MetaArray(self.shape, dtype)

    def copy(self, order="C"):
        return MetaArray(self.shape, self.dtype)

    def fill(self, value):
        """Nothing to fill."""

    def __getattr__(self, name):
        # ndarray methods that are numpy functions of the array: sum, max, argsort, cumsum, ...
        if name.startswith("_") or name not in _METHODS:
            raise AttributeError(f"'MetaArray' object has no attribute '{name}'")
        function = getattr(meta, name)
        return lambda *args, **kwargs: function(self, *args, **kwargs)

    # -- numpy's protocols: numpy functions called on a meta array run the namespace's -------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            kwargs["out"] = kwargs["out"][0] if len(kwargs["out"]) == 1 else kwargs["out"]
        function = getattr(meta, ufunc.__name__)
        return (function if method == "__call__" else getattr(function, method))(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        namespace = meta
        for part in func.__module__.split(".")[1:]:
            if part not in ("linalg", "lib", "stride_tricks"):
                continue
            namespace = getattr(namespace, part)
        function = getattr(namespace, func.__name__)
        if function is func:  # a numpy name passed through unchanged cannot take a meta array
            raise _no_rule(func.__name__)
        return function(*args, **kwargs)


_METHODS = {"sum", "prod", "mean", "std", "var", "max", "min", "argmax", "argmin", "any", "all",
            "cumsum", "cumprod", "argsort", "sort", "clip", "round", "conj", "conjugate", "take",
            "repeat", "dot", "nonzero", "trace"}


def has_values(array):
    """False for an array without values (a meta array): value checks (index bounds,
    probabilities, ...) are skipped there, as PyTorch's meta kernels skip them."""
    return not isinstance(array, MetaArray)


def _operator(name, reflected=False, inplace=False):
    def apply(self, other):
        function = getattr(meta, name)
        if inplace:
            return function(self, other, out=self)
        return function(other, self) if reflected else function(self, other)
    return apply


for _name, _ufunc in {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
                      "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
                      "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
                      "lshift": "left_shift", "rshift": "right_shift"}.items():
    setattr(MetaArray, f"__{_name}__", _operator(_ufunc))
    setattr(MetaArray, f"__r{_name}__", _operator(_ufunc, reflected=True))
    setattr(MetaArray, f"__i{_name}__", _operator(_ufunc, inplace=True))
for _name, _ufunc in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
                      "eq": "equal", "ne": "not_equal"}.items():
    setattr(MetaArray, f"__{_name}__", _operator(_ufunc))
for _name, _ufunc in {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}.items():
    setattr(MetaArray, f"__{_name}__", lambda self, _u=_ufunc: getattr(meta, _u)(self))
MetaArray.__divmod__ = lambda self, other: meta.divmod(self, other)


# -- indexing ----------------------------------------------------------------------------------------
def _is_index_array(item):
    return isinstance(item, (MetaArray, np.ndarray, list)) or type(item) in (bool, np.bool_)


def _getitem(array, key):
    """numpy's indexing rules on shapes: basic indexing on a placeholder; index arrays broadcast
    together and land where the first one is, or in front when they are not adjacent."""
    key = key if isinstance(key, tuple) else (key,)
    if not builtins.any(_is_index_array(k) for k in key):
        return _wrap(_placeholder(array.shape, array.dtype)[key])
    items = []
    for k in key:
        if isinstance(k, list):
            k = np.asarray(k)
        if isinstance(k, (MetaArray, np.ndarray)) and k.dtype == np.bool_:
            if isinstance(k, MetaArray):
                raise NotImplementedError(NONZERO)
            items.extend(k.nonzero())  # a host mask: its count is known
            continue
        if type(k) in (bool, np.bool_):
            raise _no_rule("indexing with a bool scalar mixed with index arrays")
        items.append(k)
    consumed = builtins.sum(1 for k in items if k is not None and k is not Ellipsis)
    expanded = []
    for k in items:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (array.ndim - consumed))
        else:
            expanded.append(k)
    advanced = [i for i, k in enumerate(expanded)
                if isinstance(k, (MetaArray, np.ndarray)) or isinstance(k, numbers.Integral)]
    arrays = [k for k in expanded if isinstance(k, (MetaArray, np.ndarray))]
    for k in arrays:
        if k.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
    try:
        broadcast = np.broadcast_shapes(*(k.shape for k in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with shapes "
                         + " ".join(str(k.shape) for k in arrays)) from None
    basic = _placeholder(array.shape, array.dtype)[
        tuple(0 if i in advanced else k for i, k in enumerate(expanded))]
    if advanced == list(range(advanced[0], advanced[-1] + 1)):
        at = builtins.sum(1 for k in expanded[:advanced[0]] if k is None or isinstance(k, slice))
        shape = basic.shape[:at] + broadcast + basic.shape[at:]
    else:
        shape = broadcast + basic.shape
    return MetaArray(shape, array.dtype)


# -- ufuncs ------------------------------------------------------------------------------------------
class ufunc:
    """A numpy ufunc on shapes: broadcast shape, dtype as numpy resolves it for the operands' dtypes."""

    def __init__(self, np_ufunc):
        self._ufunc = np_ufunc
        self.__name__ = np_ufunc.__name__
        self.nin, self.nout = np_ufunc.nin, np_ufunc.nout

    def __repr__(self):
        return f"<meta ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=True, **kwargs):
        inputs = args[:self.nin]
        if out is None and len(args) > self.nin:
            out = args[self.nin:]
        shape = np.broadcast_shapes(*(_shape_of(a) for a in inputs), _shape_of(where))
        with np.errstate(all="ignore"):
            probe = self._ufunc(*(_dtype_probe(a) for a in inputs), **kwargs)
        probes = probe if isinstance(probe, tuple) else (probe,)
        if out is not None:
            outs = out if isinstance(out, tuple) else (out,)
            for o, p in zip(outs, probes):
                if np.broadcast_shapes(shape, o.shape) != o.shape:
                    raise ValueError(f"non-broadcastable output operand with shape {o.shape} doesn't "
                                     f"match the broadcast shape {shape}")
            with np.errstate(all="ignore"):  # numpy's casting check, on 0-d stand-ins of the outputs
                self._ufunc(*(_dtype_probe(a) for a in inputs),
                            out=tuple(_ones(o.dtype).reshape(()) for o in outs), **kwargs)
            return out
        results = tuple(MetaArray(shape, p.dtype) for p in probes)
        return results if self.nout > 1 else results[0]

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, **kwargs):
        shape = _reduced_shape(array.shape, axis, keepdims)
        probe = self._ufunc.reduce(_ones(array.dtype, array.ndim), axis=axis, dtype=dtype,
                                   keepdims=keepdims, **kwargs)
        return out if out is not None else MetaArray(shape, probe.dtype)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        probe = self._ufunc.accumulate(_ones(array.dtype, array.ndim), axis=axis, dtype=dtype)
        return out if out is not None else MetaArray(array.shape, probe.dtype)

    def outer(self, a, b, **kwargs):
        probe = self._ufunc(_dtype_probe(a), _dtype_probe(b), **kwargs)
        return MetaArray(tuple(_shape_of(a)) + tuple(_shape_of(b)), probe.dtype)

    def at(self, array, indices, values=None):
        """An unbuffered in-place update: only the shapes are checked, there is nothing to change."""
        target = _getitem(array, indices)
        if values is not None:
            np.broadcast_shapes(_shape_of(values), target.shape)


# -- functions ---------------------------------------------------------------------------------------
def _creation(shape, dtype=float, *args, **kwargs):
    return MetaArray(_shape_arg(shape), dtype)


def _shape_arg(shape):
    return (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)


def _like(prototype, dtype=None, order="K", subok=True, shape=None, **kwargs):
    return MetaArray(prototype.shape if shape is None else _shape_arg(shape),
                     prototype.dtype if dtype is None else dtype)


def _full(shape, fill_value, dtype=None, order="C", **kwargs):
    return MetaArray(_shape_arg(shape), np.full((), _dtype_probe(fill_value), dtype).dtype)


def _full_like(prototype, fill_value, dtype=None, **kwargs):
    return MetaArray(prototype.shape, prototype.dtype if dtype is None else dtype)


def _asarray(obj, dtype=None, order=None, copy=None, **kwargs):
    """Host data becomes a meta array of its shape and dtype (``tensor(data, device='meta')``)."""
    if isinstance(obj, MetaArray):
        return obj if dtype is None or np.dtype(dtype) == obj.dtype else obj.astype(dtype)
    if hasattr(obj, "__cuda_array_interface__") or type(obj).__name__ == "ndarray" and not isinstance(
            obj, np.ndarray):  # a CuPy array: its shape and dtype, without copying its values
        return MetaArray(obj.shape, obj.dtype if dtype is None else dtype)
    if isinstance(obj, (list, tuple)) and builtins.any(isinstance(v, MetaArray) for v in obj):
        return _stack(obj, dtype=dtype)
    host = np.asarray(obj, dtype=dtype)
    return MetaArray(host.shape, host.dtype)


def _ascontiguousarray(a, dtype=None, **kwargs):
    a = _asarray(a, dtype)
    return MetaArray(a.shape or (1,), a.dtype)


def _arange(start, stop=None, step=1, dtype=None, **kwargs):
    if stop is None:
        start, stop = 0, start
    if builtins.all(isinstance(v, numbers.Integral) for v in (start, stop, step)):
        n = len(range(start, stop, step))
    else:
        n = builtins.max(0, math.ceil((stop - start) / step))
    return MetaArray((n,), np.arange(start, start, step, dtype=dtype).dtype)


def _eye(n, m=None, k=0, dtype=float, **kwargs):
    return MetaArray((n, n if m is None else m), dtype)


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    return MetaArray((num,), np.linspace(0.0, 1.0, 0, dtype=dtype).dtype)


def _result_dtype(*arrays):
    return np.result_type(*(a.dtype if isinstance(a, (MetaArray, np.ndarray)) else a for a in arrays))


def _reduction(np_function):
    """``sum``/``max``/``argmax``/... : the axis rule for the shape, numpy on ones for the dtype."""
    def reduce(a, axis=None, *args, out=None, keepdims=False, **kwargs):
        a = _asarray(a)
        if np_function in (np.argmax, np.argmin) and axis is None:
            shape = (1,) * a.ndim if keepdims else ()
        else:
            shape = _reduced_shape(a.shape, axis, keepdims)
        probe = np_function(_ones(a.dtype, a.ndim), axis, *args, keepdims=keepdims, **kwargs)
        return out if out is not None else MetaArray(shape, np.asarray(probe).dtype)
    return reduce


def _along_axis(np_function, default_axis):
    """``cumsum``/``argsort``/``sort``/...: the input's shape (flattened when ``axis=None``)."""
    def apply(a, axis=default_axis, *args, **kwargs):
        a = _asarray(a)
        if axis is not None:
            _normalize_axis(axis, builtins.max(a.ndim, 1))
        probe = np_function(_ones(a.dtype, a.ndim), axis, *args, **kwargs)
        return MetaArray(a.shape if axis is not None or a.ndim == 1 else (a.size,), probe.dtype)
    return apply


def _view_function(np_function):
    """numpy's own function on zero-stride placeholders: its result is a view, so no copy is made."""
    def apply(*args, **kwargs):
        return _wrap(np_function(*_as_placeholder(args), **_as_placeholder(kwargs)))
    return apply


def _same_shape(np_function):
    """``tril``/``roll``/``nan_to_num``/...: the input's shape and dtype."""
    def apply(a, *args, **kwargs):
        a = _asarray(a)
        return MetaArray(a.shape, a.dtype)
    apply.__name__ = np_function.__name__
    return apply


def _matmul_shape(sa, sb, name="matmul"):
    if not sa or not sb:
        raise ValueError(f"{name}: Input operand {0 if not sa else 1} does not have enough dimensions")
    a2 = sa if len(sa) > 1 else (1,) + sa
    b2 = sb if len(sb) > 1 else sb + (1,)
    if a2[-1] != b2[-2]:
        raise ValueError(f"{name}: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                         f"signature (n?,k),(k,m?)->(n?,m?) (size {b2[-2]} is different from {a2[-1]})")
    shape = np.broadcast_shapes(a2[:-2], b2[:-2])
    return shape + (a2[-2],) * (len(sa) > 1) + (b2[-1],) * (len(sb) > 1)


def _matmul(a, b, out=None, **kwargs):
    dtype = np.matmul(_ones(_result_dtype(a), 2), _ones(_result_dtype(b), 2)).dtype
    shape = _matmul_shape(_shape_of(a), _shape_of(b))
    return out if out is not None else MetaArray(shape, dtype)


def _dot(a, b, out=None):
    sa, sb = _shape_of(a), _shape_of(b)
    dtype = _result_dtype(a, b)
    if not sa or not sb:
        return MetaArray(np.broadcast_shapes(sa, sb), dtype)
    if len(sb) == 1:
        if sa[-1] != sb[0]:
            raise ValueError(f"shapes {sa} and {sb} not aligned")
        return MetaArray(sa[:-1], dtype)
    if sa[-1] != sb[-2]:
        raise ValueError(f"shapes {sa} and {sb} not aligned")
    return MetaArray(sa[:-1] + sb[:-2] + sb[-1:], dtype)


def _concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = [_asarray(a) for a in arrays]
    dtype = _result_dtype(*arrays) if dtype is None else np.dtype(dtype)
    if axis is None:
        return MetaArray((builtins.sum(a.size for a in arrays),), dtype)
    first = arrays[0].shape
    if not first:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = _normalize_axis(axis, len(first))
    for a in arrays[1:]:
        if len(a.shape) != len(first) or builtins.any(
                x != y for i, (x, y) in enumerate(zip(a.shape, first)) if i != axis):
            raise ValueError("all the input array dimensions except for the concatenation axis must "
                             f"match exactly, but shapes {first} and {a.shape} differ")
    size = builtins.sum(a.shape[axis] for a in arrays)
    return MetaArray(first[:axis] + (size,) + first[axis + 1:], dtype)


def _stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = [_asarray(a) for a in arrays]
    if len({a.shape for a in arrays}) != 1:
        raise ValueError("all input arrays must have the same shape")
    first = arrays[0].shape
    axis = _normalize_axis(axis, len(first) + 1)
    return MetaArray(first[:axis] + (len(arrays),) + first[axis:],
                     _result_dtype(*arrays) if dtype is None else dtype)


def _where(condition, *values):
    if not values:
        raise NotImplementedError(NONZERO)
    x, y = values
    dtype = np.where(True, _dtype_probe(x), _dtype_probe(y)).dtype
    return MetaArray(np.broadcast_shapes(_shape_of(condition), _shape_of(x), _shape_of(y)), dtype)


def _clip(a, a_min=None, a_max=None, out=None, **kwargs):
    a_min, a_max = kwargs.pop("min", a_min), kwargs.pop("max", a_max)
    bounds = [v for v in (a_min, a_max) if v is not None]
    dtype = np.clip(_dtype_probe(a), *(_dtype_probe(v) for v in (a_min, a_max))).dtype
    shape = np.broadcast_shapes(_shape_of(a), *(_shape_of(v) for v in bounds))
    return out if out is not None else MetaArray(shape, dtype)


def _take(a, indices, axis=None, out=None, mode="raise"):
    a, shape = _asarray(a), tuple(_shape_of(indices))
    if axis is None:
        result = shape
    else:
        axis = _normalize_axis(axis, a.ndim)
        result = a.shape[:axis] + shape + a.shape[axis + 1:]
    return out if out is not None else MetaArray(result, a.dtype)


def _take_along_axis(a, indices, axis=-1):
    if axis is None:
        return MetaArray(indices.shape, a.dtype)
    axis = _normalize_axis(axis, a.ndim)
    if indices.ndim != a.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    others = np.broadcast_shapes(tuple(1 if i == axis else s for i, s in enumerate(a.shape)),
                                 tuple(1 if i == axis else s for i, s in enumerate(indices.shape)))
    return MetaArray(others[:axis] + (indices.shape[axis],) + others[axis + 1:], a.dtype)


def _put_along_axis(a, indices, values, axis):
    """An in-place scatter: only the shapes are checked."""
    target = _take_along_axis(a, indices, axis)
    np.broadcast_shapes(_shape_of(values), target.shape)


def _copyto(dst, src, casting="same_kind", where=True):
    if np.broadcast_shapes(_shape_of(src), _shape_of(where), dst.shape) != dst.shape:
        raise ValueError(f"could not broadcast input array from shape {_shape_of(src)} into shape "
                         f"{dst.shape}")


def _pad(array, pad_width, mode="constant", **kwargs):
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64).reshape(-1, 2)
                             if np.ndim(pad_width) else np.asarray(pad_width), (array.ndim, 2))
    return MetaArray(tuple(s + builtins.int(lo) + builtins.int(hi)
                           for s, (lo, hi) in zip(array.shape, widths.tolist())), array.dtype)


def _tile(a, reps):
    reps = _shape_arg(reps)
    shape = (1,) * (len(reps) - a.ndim) + a.shape
    reps = (1,) * (len(shape) - len(reps)) + reps
    return MetaArray(tuple(s * r for s, r in zip(shape, reps)), a.dtype)


def _repeat(a, repeats, axis=None):
    if not isinstance(repeats, numbers.Integral):
        raise _data_dependent("repeat by an array of counts")
    a = _asarray(a)
    if axis is None:
        return MetaArray((a.size * repeats,), a.dtype)
    axis = _normalize_axis(axis, a.ndim)
    return MetaArray(a.shape[:axis] + (a.shape[axis] * repeats,) + a.shape[axis + 1:], a.dtype)


def _einsum(subscripts, *operands, out=None, **kwargs):
    """Letters of the inputs get their sizes; ``...`` broadcasts; the output is given after
    ``->`` or, numpy's implicit mode, the letters used once, in alphabetical order."""
    inputs, arrow, output = subscripts.replace(" ", "").partition("->")
    sizes, ellipsis = {}, ()
    for spec, operand in zip(inputs.split(","), operands):
        shape = _shape_of(operand)
        if "..." in spec:
            head, tail = spec.split("...")
            ellipsis = np.broadcast_shapes(ellipsis, shape[len(head):len(shape) - len(tail)])
            spec, shape = head + tail, shape[:len(head)] + shape[len(shape) - len(tail):]
        if len(spec) != len(shape):
            raise ValueError("operand has more dimensions than subscripts given in einstein sum, "
                             "but no '...' ellipsis provided to broadcast the extra dimensions.")
        for letter, size in zip(spec, shape):
            if sizes.get(letter, size) not in (size, 1) and size != 1:
                raise ValueError("operands could not be broadcast together with remapped shapes")
            sizes[letter] = builtins.max(sizes.get(letter, size), size)
    if not arrow:
        letters = inputs.replace(",", "").replace(".", "")
        output = ("..." if "..." in inputs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    head, dots, tail = output.partition("...")
    shape = tuple(sizes[c] for c in head) + (ellipsis if dots else ()) + tuple(sizes[c] for c in tail)
    return out if out is not None else MetaArray(shape, _result_dtype(*operands))


def _searchsorted(a, v, side="left", sorter=None):
    return MetaArray(_shape_of(v), np.intp)


def _outer(a, b, out=None):
    return MetaArray((math.prod(_shape_of(a)), math.prod(_shape_of(b))), _result_dtype(a, b))


def _diff(a, n=1, axis=-1, **kwargs):
    axis = _normalize_axis(axis, a.ndim)
    return MetaArray(a.shape[:axis] + (builtins.max(a.shape[axis] - n, 0),) + a.shape[axis + 1:], a.dtype)


def _diag(v, k=0):
    if v.ndim == 1:
        n = v.shape[0] + builtins.abs(k)
        return MetaArray((n, n), v.dtype)
    return meta.diagonal(v, k)


def _broadcast_arrays(*args, **kwargs):
    shape = np.broadcast_shapes(*(_shape_of(a) for a in args))
    return tuple(MetaArray(shape, _asarray(a).dtype) for a in args)


def _count_nonzero(a, axis=None, keepdims=False):
    return MetaArray(_reduced_shape(a.shape, axis, keepdims), np.intp)


def _probed(np_function):
    """numpy on zero-stride placeholders, for inputs of at most PROBE_LIMIT elements in all."""
    def apply(*args, **kwargs):
        metas = [a for a in _leaves((args, kwargs)) if isinstance(a, MetaArray)]
        size = builtins.sum(a.size for a in metas)
        if size > PROBE_LIMIT:
            raise NotImplementedError(
                f"nnref's 'meta' device finds the shape of numpy's {np_function.__name__} by running it "
                f"on placeholder arrays, which it does only for inputs of at most {PROBE_LIMIT} "
                f"elements (these have {size})")
        return _wrap(np_function(*_as_placeholder(args), **_as_placeholder(kwargs)))
    return apply


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return _leaves(list(value.values()))
    return [value]


def _raise_data_dependent(name):
    def apply(*args, **kwargs):
        if name in ("nonzero", "flatnonzero", "argwhere"):
            raise NotImplementedError(NONZERO)  # PyTorch's words for its nonzero family
        raise _data_dependent(f"numpy's {name}")
    return apply


class _Generator:
    """The random generator of the ``'meta'`` device: draws nothing, returns meta arrays
    (PyTorch's meta random kernels only allocate; the CPU generator does not move)."""

    def random(self, size=None, dtype=np.float64, out=None):
        return out if out is not None else MetaArray(_shape_arg(size or ()), dtype)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        return self.random(size, dtype, out)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64):
        return MetaArray(_shape_arg(size or ()), dtype)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        return MetaArray(_shape_arg(size or ()), dtype)


_VIEWS = ("transpose", "moveaxis", "swapaxes", "expand_dims", "squeeze", "broadcast_to", "diagonal",
          "flip", "rot90", "split", "array_split", "atleast_1d", "reshape", "ravel", "real", "imag")
_REDUCTIONS = ("sum", "prod", "mean", "std", "var", "max", "min", "amax", "amin", "argmax", "argmin",
               "any", "all", "nansum", "nanmean", "nanmax", "nanmin", "median", "ptp")
_ALONG_AXIS = {"cumsum": 0, "cumprod": 0, "argsort": -1, "sort": -1, "partition": -1}
_SAME_SHAPE = ("tril", "triu", "roll", "nan_to_num", "copy", "round", "around", "conj", "conjugate")
_PROBED = ("trace", "cross", "triu_indices", "tril_indices", "ravel_multi_index", "isin", "kron",
           "unravel_index", "meshgrid", "indices")
_DATA_DEPENDENT = ("nonzero", "flatnonzero", "argwhere", "unique", "bincount", "compress", "extract",
                   "histogram", "unique_values", "unique_counts", "unique_inverse", "unique_all")


def _reshape(a, shape, order="C", copy=None, **kwargs):
    return _asarray(a).reshape(kwargs.get("newshape", shape))


def _ravel(a, order="C"):
    return _asarray(a).ravel()


class _Namespace(types.ModuleType):
    """numpy's names for the ``'meta'`` device; a name without a shape rule raises NotImplementedError."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(np, name, None)
        if isinstance(value, np.ufunc):
            found = ufunc(value)
        elif isinstance(value, type) or name in _PASSTHROUGH:
            found = value  # dtypes, np.floating, errstate: no arrays involved
        elif name in _DTYPE_FUNCTIONS:
            found = _on_dtypes(value)
        elif name in _REDUCTIONS:
            found = _reduction(value)
        elif name in _ALONG_AXIS:
            found = _along_axis(value, _ALONG_AXIS[name])
        elif name in _SAME_SHAPE:
            found = _same_shape(value)
        elif name in _VIEWS:
            found = {"reshape": _reshape, "ravel": _ravel}.get(name) or _view_function(value)
        elif name in _PROBED:
            found = _probed(value)
        elif name in _DATA_DEPENDENT:
            found = _raise_data_dependent(name)
        else:
            raise _no_rule(name)
        setattr(self, name, found)
        return found


class _Linalg(types.ModuleType):
    """``numpy.linalg`` has no shape rules here: nnref's decompositions need values."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _no_rule(f"linalg.{name}")


_PASSTHROUGH = {"issubdtype", "errstate", "dtype", "iinfo", "finfo", "promote_types", "pi", "e", "inf",
                "nan", "newaxis"}
_DTYPE_FUNCTIONS = {"result_type", "min_scalar_type", "can_cast"}


def _on_dtypes(np_function):
    """``result_type``/``can_cast``...: numpy's answer with each meta array replaced by its dtype."""
    def apply(*args, **kwargs):
        return np_function(*(a.dtype if isinstance(a, MetaArray) else a for a in args), **kwargs)
    return apply

meta = _Namespace("nnref.meta", __doc__)
for _name, _value in {
        "ndarray": MetaArray, "asarray": _asarray, "array": _asarray, "asanyarray": _asarray,
        "ascontiguousarray": _ascontiguousarray,
        "zeros": _creation, "ones": _creation, "empty": _creation,
        "full": _full, "zeros_like": _like, "ones_like": _like, "empty_like": _like,
        "full_like": _full_like, "arange": _arange, "eye": _eye, "linspace": _linspace,
        "matmul": _matmul, "dot": _dot, "concatenate": _concatenate, "stack": _stack, "where": _where,
        "clip": _clip, "take": _take, "take_along_axis": _take_along_axis,
        "put_along_axis": _put_along_axis, "copyto": _copyto, "pad": _pad, "tile": _tile,
        "repeat": _repeat, "einsum": _einsum, "searchsorted": _searchsorted, "outer": _outer,
        "diff": _diff, "diag": _diag, "broadcast_arrays": _broadcast_arrays,
        "count_nonzero": _count_nonzero, "shape": _shape_of, "ndim": lambda a: len(_shape_of(a)),
        "size": lambda a, axis=None: math.prod(_shape_of(a)) if axis is None else _shape_of(a)[axis],
        "shares_memory": lambda a, b, max_work=None: a is b,
        "random": types.SimpleNamespace(default_rng=lambda seed=None: _Generator()),
        "lib": types.SimpleNamespace(stride_tricks=types.SimpleNamespace(
            as_strided=lambda x, shape=None, strides=None, **kw: MetaArray(
                x.shape if shape is None else shape, x.dtype),
            sliding_window_view=_view_function(np.lib.stride_tricks.sliding_window_view))),
        "linalg": _Linalg("nnref.meta.linalg"),
}.items():
    setattr(meta, _name, _value)

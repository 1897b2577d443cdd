"""A strict stand-in for CuPy, for tests only: CuPy's rules about host and device arrays, on the CPU.

No GPU is lent where nnref is built, so the ``'cuda'`` path would otherwise only be read, never
run.  The device tests map ``'cuda'`` to this module (``tests/device/conftest.py``: a fixture
swaps it in for CuPy while one test runs, and puts CuPy's place back afterwards), so every
device test runs the GPU code path end to end and fails wherever a real GPU would refuse to mix
host (numpy) and device arrays.  It computes with numpy and is NOT a GPU: it is never installed
outside tests and never shown in the book.

Each rule below is CuPy's (CuPy 14.2: the installed package's docstrings and ``dir()``, and the
source on GitHub, cupy/cupy); the stand-in refuses what CuPy refuses and accepts what it accepts.

R1  A device array is its own type, not a ``numpy.ndarray`` (``cupy.ndarray`` derives from
    nothing in numpy), so nnref's ``array_module_of`` picks this module and ``to_host`` calls
    ``.get()``.
R2  No implicit conversion to the host: ``ndarray.__array__`` raises ``TypeError("Implicit
    conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array
    explicitly.")`` (``cupy/_core/core.pyx``, ``_ndarray_base.__array__``), so ``np.asarray(x)``
    and every numpy routine that would convert ``x`` fail.
R3  ``.get()`` and ``asnumpy`` are the way back; ``get`` "Returns a copy of the array on host
    memory" (its docstring).  ``float()``, ``int()``, ``bool()``, ``.item()`` and ``.tolist()``
    copy to the host too and are allowed.
R4  Elementwise kernels (ufuncs and the operators ``+ - * / ...``) take device arrays, Python
    scalars (bool, int, float, complex) and NumPy scalars (``numpy.generic``) only; anything
    else, a ``numpy.ndarray`` (even 0-d) or a list included, raises ``TypeError('Unsupported
    type <class ...>')`` (``cupy/_core/_kernel.pyx`` ``_preprocess_arg`` with ``_scalar.pyx``
    ``scalar_to_numpy_scalar``, which knows only the Python and NumPy scalar types).
R5  A numpy ufunc (or its ``outer``/``at``/``reduce``/``accumulate``/``reduceat``) called on a
    device array runs CuPy's of the same name (``np.exp(x)`` is a device array), and a numpy
    operand then raises TypeError ("numpy.ndarray is handled and then TypeError is raised due to
    implicit host-to-device conversion", ``cupy/_core/core.pyx`` ``__array_ufunc__``).  One
    exception: for the six comparisons a 0-d numpy array is read as its number, CuPy's
    workaround for numpy/numpy#12142 (numpy turns ``np.float32(0) < x`` into a comparison with
    a 0-d array).  A numpy function runs CuPy's function of the same name through
    ``__array_function__``, when CuPy has one.
R6  CuPy's other functions take device arrays; a ``numpy.ndarray`` argument raises TypeError.
    Only ``array``, ``asarray`` and ``asanyarray`` take host data ("an arbitrary object"), which
    they copy to the device.
R7  Results are device arrays: reductions and indexing every axis with integers give 0-d device
    arrays, never numpy scalars; ``out=`` returns that very array.
R8  Indexing: index lists and numpy index arrays are copied to the device
    (``cupy/_core/_routines_indexing.pyx`` ``_prepare_slice_list``: "Convert list/NumPy/
    CUDA-Array-Interface arrays to cupy.ndarray"), so ``x[np_index]`` works.  Assigning to a
    basic index (``x[1:3] = v``) fills from a device array or a scalar; a non-scalar numpy array
    raises ``ValueError('non-scalar numpy.ndarray cannot be used for fill')`` (``_scatter_op``
    calls ``fill``); assigning to an advanced index copies a numpy value to the device
    (``_scatter_op_single``: ``core.array(value)``).
R9  No ``__index__``: a 0-d device integer cannot be a Python index (``range(n)``,
    ``list[i]``); ``dir(cupy.ndarray)`` has no ``__index__``.
R10 Only CuPy's names: the array has no ``ctypes``, ``resize``, ``setflags``, ``getfield``,
    ``setfield``, ``to_device``, and its ``flags`` are ``c_contiguous``, ``f_contiguous`` and
    ``owndata`` (no ``writeable``); the module lacks the numpy names CuPy lacks (``errstate``,
    ``insert``, ``matrix``, ...).  Both lists are ``dir()`` of numpy 2 against CuPy 14.2.
R11 ``add.at`` (scatter-add, atomicAdd) takes int32, float16, float32, float64, uint32 and
    uint64 arrays only, not int64 or bool (``_scatter_op_single``: "cupy.add.at only supports
    int32, float16, float32, float64, uint32, uint64, as data type"); ``subtract.at`` int32 and
    uint32, ``maximum.at``/``minimum.at`` int32, float32, float64, uint32, uint64.
R12 Device dtypes are bool, (u)int8..64, float16/32/64 and complex64/128: no longdouble, object,
    string, datetime or bfloat16.
R13 ``random.default_rng(seed)`` takes an int or a sequence of ints and its Generator has
    ``random``, ``standard_normal``, ``uniform``, ``integers`` (CuPy's signatures: ``uniform``
    and ``standard_normal`` take ``dtype``) and CuPy's other distributions, but no
    ``permutation``, ``choice``, ``shuffle`` or ``normal`` (``dir(cupy.random.Generator)``).
    The numbers differ from CuPy's (XORWOW): only reproducibility is checked, not values.
R14 Arrays are unhashable and have ``__array_priority__`` 100, as ``cupy.ndarray``.
R15 ``cuda.Device(i)`` is a context manager for the current GPU; this stand-in has one, 0.
R16 A ufunc call takes the keywords ``out``, ``dtype`` and ``casting`` only: ``where=`` (and
    numpy's ``order``, ``subok``, ``signature``) raise ``TypeError('Wrong arguments {...}')``
    (``cupy/_core/_kernel.pyx``, ``ufunc.__call__``; seen on the first real GPU run, an H200
    with CuPy 14.2, where ``xp.log1p(z, out=data, where=smooth)`` failed).  ``copyto`` does
    take ``where=``.
R17 ``cupyx.scipy.special`` holds SciPy's special functions (``erf``, ...) as CuPy ufuncs: device
    arrays in and out, under R4, R5 and R16 (the CuPy documentation's ``cupyx.scipy.special``).

What it cannot show is listed in book/differences.md and the GPU chapter ("what a real GPU
would still reveal"): speed, asynchronous execution, nondeterministic atomic adds, CUDA's
float16 and transcendental rounding, wrap-around of out-of-range index arrays, memory limits.
"""
import builtins
import numbers
import types

import numpy as np

__all__ = ["ndarray", "ufunc", "asnumpy", "get_array_module"]

_NAME = "strict CuPy stand-in (CPU, tests only)"

# R4: the scalar types a kernel accepts (cupy/_core/_scalar.pyx: Python and NumPy scalar type sets)
_PYTHON_SCALARS = (bool, int, float, complex)

# R12: the dtypes a device array can hold
_DEVICE_KINDS = {"b", "i", "u", "f", "c"}
_NO_DEVICE_DTYPES = {np.dtype(np.longdouble), np.dtype(np.clongdouble)}

# R10: numpy 2 names that CuPy 14.2 does not have (dir(numpy) - dir(cupy)).
_NUMPY_ONLY = {
    "False_", "ScalarType", "True_", "asmatrix", "block", "bmat", "busday_count", "busday_offset",
    "busdaycalendar", "bytes_", "char", "character", "clongdouble", "complex256", "core",
    "ctypeslib", "datetime64", "datetime_as_string", "datetime_data", "dtypes", "einsum_path",
    "emath", "errstate", "f2py", "flexible", "float128", "frompyfunc", "fromregex", "geomspace",
    "get_include", "getbufsize", "geterr", "geterrcall", "histogram_bin_edges", "info", "insert",
    "is_busday", "isnat", "little_endian", "longdouble", "ma", "matrix", "matvec", "memmap",
    "nanpercentile", "nanquantile", "ndenumerate", "nditer", "nested_iters", "object_", "polyder",
    "polydiv", "polyint", "rec", "recarray", "record", "sctypeDict", "setbufsize", "seterr",
    "seterrcall", "show_runtime", "spacing", "str_", "strings", "test", "timedelta64", "typecodes",
    "unstack", "vecdot", "vecmat", "void"}

# R10: cupy.ndarray's public attributes (dir(cupy.ndarray), CuPy 14.2), those it shares with numpy.
_ARRAY_METHODS = {
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "byteswap", "choose",
    "clip", "compress", "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal", "dot", "dump",
    "dumps", "flatten", "max", "mean", "min", "nonzero", "partition", "prod", "ptp", "put", "ravel",
    "repeat", "reshape", "round", "searchsorted", "sort", "squeeze", "std", "sum", "swapaxes",
    "take", "tobytes", "tofile", "trace", "transpose", "var", "view"}
_ARRAY_VIEWS = {"T", "mT", "real", "imag"}

# R11: the dtypes CuPy's scatter kernels (ufunc.at) accept, per ufunc
_AT_DTYPES = {
    "add": {np.int32, np.float16, np.float32, np.float64, np.uint32, np.uint64},
    "subtract": {np.int32, np.uint32},
    "maximum": {np.int32, np.float32, np.float64, np.uint32, np.uint64},
    "minimum": {np.int32, np.float32, np.float64, np.uint32, np.uint64},
}


def _unsupported(value, where):
    return TypeError(f"Unsupported type {type(value)} ({where}). CuPy refuses host (numpy) arrays "
                     f"here: create the array with xp = array_module_of(...) instead of np, or "
                     f"move it to the device with xp.asarray first. [{_NAME}]")


# -- moving between the wrapper and numpy ------------------------------------------------------------
def _device_operand(value, where):
    """R4: a kernel operand: a device array's memory, or a Python/NumPy scalar; nothing else."""
    if isinstance(value, ndarray):
        return value._host
    if type(value) in _PYTHON_SCALARS or isinstance(value, np.generic):
        return value
    raise _unsupported(value, where)


def _device_argument(value, where):
    """R6: any argument of a CuPy function: device arrays unwrapped, host arrays refused."""
    if isinstance(value, ndarray):
        return value._host
    if isinstance(value, np.ndarray):
        raise _unsupported(value, where)
    if isinstance(value, (list, tuple)):
        return type(value)(_device_argument(v, where) for v in value)
    if isinstance(value, dict):
        return {k: _device_argument(v, where) for k, v in value.items()}
    return value


def _to_device(value, keep=()):
    """R7: results as device arrays; ``keep`` maps input memory back to its own wrapper (``out=``)."""
    if isinstance(value, np.ndarray):
        for wrapper in keep:
            if wrapper._host is value:
                return wrapper
        return ndarray._wrap(value)
    if isinstance(value, np.generic):
        return ndarray._wrap(np.asarray(value))
    if isinstance(value, tuple):
        items = [_to_device(v, keep) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        return [_to_device(v, keep) for v in value]
    return value


def _wrappers(values):
    found = []
    for v in values:
        if isinstance(v, ndarray):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            found.extend(_wrappers(v))
    return found


class _Flags:
    """R10: CuPy's ``ndarray.flags``: contiguity and ownership, nothing about writeability."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, host):
        self.c_contiguous = bool(host.flags.c_contiguous)
        self.f_contiguous = bool(host.flags.f_contiguous)
        self.owndata = bool(host.flags.owndata)

    def __getitem__(self, name):
        return getattr(self, {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
                              "OWNDATA": "owndata"}[name])


class _MemoryPointer:
    """What ``cupy.ndarray.data`` is: a pointer with ``ptr``; no bytes to read on the host."""

    __slots__ = ("ptr",)

    def __init__(self, host):
        self.ptr = host.ctypes.data


def _is_advanced(key):
    parts = key if isinstance(key, tuple) else (key,)
    return any(isinstance(p, (ndarray, np.ndarray, list)) or type(p) in (bool, np.bool_) for p in parts)


def _index(key):
    """R8: index arrays may be device arrays, lists or numpy arrays (CuPy copies the latter)."""
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    if isinstance(key, ndarray):
        return key._host
    return key


# -- the device array --------------------------------------------------------------------------------
class ndarray:
    """A device array of the stand-in: numpy memory that only this module's functions may touch."""

    __slots__ = ("_host", "__weakref__")
    __array_priority__ = 100  # R14, cupy.ndarray.__array_priority__
    __hash__ = None  # R14

    def __init__(self, shape, dtype=float, order="C"):
        self._host = np.empty(shape, dtype, order=order)

    @classmethod
    def _wrap(cls, host):
        dtype = host.dtype
        if dtype.kind not in _DEVICE_KINDS or dtype in _NO_DEVICE_DTYPES:  # R12
            raise TypeError(f"Unsupported dtype {dtype}: CuPy arrays hold bool, integer, float16/32/64 "
                            f"and complex64/128 values. [{_NAME}]")
        array = object.__new__(cls)
        array._host = host
        return array

    # R2/R3: the only ways back to the host
    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
                        f"construct a NumPy array explicitly. [{_NAME}]")

    def get(self, stream=None, order="C", out=None, blocking=True):
        if out is not None:
            if not isinstance(out, np.ndarray):
                raise TypeError(f"Only numpy.ndarray can be obtained from cupy.ndarray [{_NAME}]")
            if out.dtype != self.dtype or out.shape != self.shape:
                raise TypeError(f"{out.dtype}{out.shape} array cannot be obtained from "
                                f"{self.dtype}{self.shape} array [{_NAME}]")
            out[...] = self._host
            return out
        return np.array(self._host, order=order, copy=True)

    def set(self, arr, stream=None):
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"Only numpy.ndarray can be set to cupy.ndarray [{_NAME}]")
        if arr.dtype != self.dtype or arr.shape != self.shape:
            raise TypeError(f"{arr.dtype}{arr.shape} array cannot be set to {self.dtype}{self.shape} "
                            f"array [{_NAME}]")
        self._host[...] = arr

    def item(self):
        return self._host.item()

    def tolist(self):
        return self._host.tolist()

    def __float__(self):
        return float(self._host)

    def __int__(self):
        return int(self._host)

    def __complex__(self):
        return complex(self._host)

    def __bool__(self):
        return bool(self._host)

    def fill(self, value):
        if isinstance(value, np.ndarray):
            if value.shape != ():
                raise ValueError(f"non-scalar numpy.ndarray cannot be used for fill [{_NAME}]")
            value = value.item()
        self._host.fill(_device_operand(value, "ndarray.fill"))

    # metadata
    @property
    def shape(self):
        return self._host.shape

    @shape.setter
    def shape(self, shape):
        """A reshape without a copy, or AttributeError ('incompatible shape'), as CuPy's setter."""
        try:
            self._host = self._host.reshape(shape, copy=False)
        except ValueError as err:
            raise AttributeError(f"incompatible shape [{_NAME}]") from err
        except TypeError:  # numpy before 2.1 has no copy=, and no deprecated setter yet
            self._host.shape = shape
    dtype = property(lambda self: self._host.dtype)
    ndim = property(lambda self: self._host.ndim)
    size = property(lambda self: self._host.size)
    itemsize = property(lambda self: self._host.itemsize)
    nbytes = property(lambda self: self._host.nbytes)
    strides = property(lambda self: self._host.strides)
    flags = property(lambda self: _Flags(self._host))
    data = property(lambda self: _MemoryPointer(self._host))
    device = property(lambda self: cuda.Device(0))

    @property
    def base(self):
        base = self._host.base
        return ndarray._wrap(base) if isinstance(base, np.ndarray) else None

    def __getattr__(self, name):
        if name in _ARRAY_VIEWS:
            return ndarray._wrap(getattr(self._host, name))
        if name not in _ARRAY_METHODS:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}' [{_NAME}]")
        method = getattr(self._host, name)

        def call(*args, **kwargs):
            args = _device_argument(args, f"ndarray.{name}")
            kwargs = _device_argument(kwargs, f"ndarray.{name}")
            return _to_device(method(*args, **kwargs), [self] + _wrappers(kwargs.values()))
        return call

    def __len__(self):
        return len(self._host)

    def __iter__(self):
        return (ndarray._wrap(np.asarray(row)) for row in self._host)

    def __repr__(self):
        return repr(self._host)

    def __str__(self):
        return str(self._host)

    def __format__(self, spec):
        return format(self._host.item() if self._host.ndim == 0 else self._host, spec)

    def __copy__(self):
        return ndarray._wrap(self._host.copy())

    def __deepcopy__(self, memo):
        return ndarray._wrap(self._host.copy())

    def __reduce__(self):
        return (_from_host, (self._host.copy(),))

    # R8
    def __getitem__(self, key):
        return _to_device(self._host[_index(key)])

    def __setitem__(self, key, value):
        if isinstance(value, np.ndarray) and not _is_advanced(key):
            if value.shape != ():
                raise ValueError(f"non-scalar numpy.ndarray cannot be used for fill [{_NAME}]")
        elif isinstance(value, list) and not _is_advanced(key):
            raise _unsupported(value, "ndarray.__setitem__ (fill)")
        elif isinstance(value, ndarray):
            value = value._host
        self._host[_index(key)] = value

    # R5 (cupy/_core/core.pyx, _ndarray_base.__array_ufunc__ and __array_function__)
    def __array_ufunc__(self, np_ufunc, method, *inputs, **kwargs):
        if method not in ("__call__", "outer", "at", "reduce", "accumulate", "reduceat"):
            return NotImplemented
        inout = inputs
        if "out" in kwargs:
            out = kwargs["out"]
            if len(out) != 1:
                raise ValueError("The 'out' parameter must have exactly one array value")
            inout += out
            kwargs["out"] = out[0]
        function = getattr(cupy, np_ufunc.__name__, None)
        if function is None:
            return NotImplemented
        if method != "__call__":
            function = getattr(function, method)
        for x in inout:  # numpy arrays go on, to be refused by the kernel
            if not isinstance(x, (ndarray, np.ndarray)) and not _is_scalar(x):
                return NotImplemented
        if np_ufunc.__name__ in _COMPARISONS:
            # CuPy's workaround for numpy/numpy#12142: numpy turns a scalar on the left of a
            # comparison into a 0-d array, which CuPy reads back as the number it was
            inputs = tuple(x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x for x in inputs)
        return function(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        namespace = cupy
        for part in func.__module__.split(".")[1:]:
            namespace = getattr(namespace, part, None)
            if namespace is None:
                return NotImplemented
        function = getattr(namespace, func.__name__, None)
        if function is None or function is func:
            return NotImplemented
        if any(not issubclass(t, (ndarray, np.ndarray)) for t in types_):
            return NotImplemented
        return function(*args, **kwargs)


_COMPARISONS = {"greater", "greater_equal", "less", "less_equal", "equal", "not_equal"}


def _is_scalar(x):
    return type(x) in _PYTHON_SCALARS or isinstance(x, np.generic)


def _from_host(host):
    return ndarray._wrap(host)


def _operator(np_ufunc, reflected=False, inplace=False):
    def apply(self, other):
        left, right = (other, self) if reflected else (self, other)
        if inplace:
            return getattr(cupy, np_ufunc.__name__)(left, right, out=self)
        return getattr(cupy, np_ufunc.__name__)(left, right)
    return apply


for _name, _np_ufunc in {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
                         "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
                         "matmul": np.matmul, "and": np.bitwise_and, "or": np.bitwise_or,
                         "xor": np.bitwise_xor, "lshift": np.left_shift, "rshift": np.right_shift}.items():
    setattr(ndarray, f"__{_name}__", _operator(_np_ufunc))
    setattr(ndarray, f"__r{_name}__", _operator(_np_ufunc, reflected=True))
    setattr(ndarray, f"__i{_name}__", _operator(_np_ufunc, inplace=True))
for _name, _np_ufunc in {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
                         "eq": np.equal, "ne": np.not_equal}.items():
    setattr(ndarray, f"__{_name}__", _operator(_np_ufunc))
for _name, _np_ufunc in {"neg": np.negative, "pos": np.positive, "abs": np.absolute,
                         "invert": np.invert}.items():
    setattr(ndarray, f"__{_name}__", lambda self, _f=_np_ufunc: getattr(cupy, _f.__name__)(self))
ndarray.__divmod__ = lambda self, other: cupy.divmod(self, other)


# -- ufuncs and functions -------------------------------------------------------------------------
class ufunc:
    """R4: CuPy's elementwise kernel: device arrays and scalars in, device arrays out."""

    def __init__(self, np_ufunc):
        self._ufunc = np_ufunc
        self.__name__ = self.name = np_ufunc.__name__
        self.nin, self.nout, self.nargs = np_ufunc.nin, np_ufunc.nout, np_ufunc.nargs

    def __repr__(self):
        return f"<ufunc '{self.name}' [{_NAME}]>"

    def __call__(self, *args, out=None, **kwargs):
        unknown = {k: v for k, v in kwargs.items() if k not in ("dtype", "casting")}
        if unknown:
            raise TypeError(f"Wrong arguments {unknown} [{_NAME}]")
        where = f"ufunc {self.name}"
        args = [_device_operand(a, where) for a in args]
        outs = () if out is None else (out if isinstance(out, tuple) else (out,))
        for o in outs:
            if not isinstance(o, ndarray):
                raise _unsupported(o, f"{where}, out=")
        if outs:
            kwargs["out"] = tuple(o._host for o in outs) if len(outs) > 1 else outs[0]._host
        return _to_device(self._ufunc(*args, **kwargs), outs)

    def at(self, a, indices, b=None):
        if not isinstance(a, ndarray):
            raise _unsupported(a, f"ufunc {self.name}.at")
        allowed = _AT_DTYPES.get(self.name)
        if allowed is None or a.dtype.type not in allowed:
            raise TypeError(f"cupy.{self.name}.at only supports "
                            f"{', '.join(sorted(np.dtype(t).name for t in allowed or ()))} as data type, "
                            f"not {a.dtype} [{_NAME}]")
        value = () if b is None else (b._host if isinstance(b, ndarray) else b,)  # R8: values copied
        self._ufunc.at(a._host, _index(indices), *value)

    def _method(self, method, *args, out=None, **kwargs):
        args = [_device_argument(a, f"ufunc {self.name}.{method}") for a in args]
        if out is not None:
            if not isinstance(out, ndarray):
                raise _unsupported(out, f"ufunc {self.name}.{method}, out=")
            kwargs["out"] = out._host
        keep = [] if out is None else [out]
        return _to_device(getattr(self._ufunc, method)(*args, **kwargs), keep)

    def reduce(self, *args, **kwargs):
        return self._method("reduce", *args, **kwargs)

    def accumulate(self, *args, **kwargs):
        return self._method("accumulate", *args, **kwargs)

    def reduceat(self, *args, **kwargs):
        return self._method("reduceat", *args, **kwargs)

    def outer(self, *args, **kwargs):
        return self._method("outer", *args, **kwargs)


def _function(name, np_function):
    """R6: a CuPy function built from numpy's: device arrays in, device arrays out."""
    def call(*args, **kwargs):
        inputs = _wrappers(args) + _wrappers(kwargs.values())
        args, kwargs = _device_argument(args, name), _device_argument(kwargs, name)
        return _to_device(np_function(*args, **kwargs), inputs)

    call.__name__ = call.__qualname__ = np_function.__name__ if hasattr(np_function, "__name__") else name
    call.__doc__ = f"CuPy's {name}, computed by numpy on the CPU [{_NAME}]."
    return call


def _kernel_function(np_function):
    """R4 for CuPy functions that are elementwise kernels (``where(c, x, y)``, ``clip``): their
    operands follow the kernels' rule, so a list or 0-d numpy array is refused there too."""
    def call(*args, **kwargs):
        name = np_function.__name__
        operands = [a for a in args if a is not None]
        operands += [kwargs[k] for k in ("a_min", "a_max", "min", "max", "out") if kwargs.get(k) is not None]
        for operand in operands:
            _device_operand(operand, name)
        return _function(name, np_function)(*args, **kwargs)
    call.__name__ = np_function.__name__
    return call


def _asarray(a, dtype=None, order=None, copy=None, *, blocking=False):
    """R6: ``cupy.asarray``: host data copied to the device; a device array of that dtype as it is."""
    if isinstance(a, ndarray):
        if (dtype is None or np.dtype(dtype) == a.dtype) and not copy:
            return a
        return ndarray._wrap(np.array(a._host, dtype=dtype, copy=True if copy else None))
    return _array(a, dtype=dtype, order=order if order in ("C", "F") else "K")


def _leaves(obj):
    if isinstance(obj, (list, tuple)):
        return [leaf for item in obj for leaf in _leaves(item)]
    return [obj]


def _array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    """R6: ``cupy.array``: host data copied to the device.  A sequence of device arrays is joined
    on the device only when they all share one shape and dtype (``_get_concat_shape`` in
    ``core.pyx``); anything else goes through numpy, where a device array refuses (R2)."""
    if isinstance(obj, ndarray):
        return ndarray._wrap(np.array(obj._host, dtype=dtype, copy=copy, order=order, ndmin=ndmin))
    leaves = _leaves(obj) if isinstance(obj, (list, tuple)) else []
    if any(isinstance(leaf, ndarray) for leaf in leaves):
        if not all(isinstance(leaf, ndarray) for leaf in leaves) or len(
                {(leaf.shape, leaf.dtype) for leaf in leaves}) != 1:
            raise TypeError("Implicit conversion to a NumPy array is not allowed: cupy.array of a "
                            "sequence mixing device arrays with other values, or of device arrays "
                            f"of different shapes or dtypes [{_NAME}]")
        obj = _device_argument(obj, "array")
    return ndarray._wrap(np.array(obj, dtype=dtype, order=order, ndmin=ndmin, copy=True))


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """R3: a host copy of a device array; host data as a numpy array."""
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    return np.asarray(a, order=order)


def get_array_module(*args):
    return cupy if any(isinstance(a, ndarray) for a in args) else np


def _module_names():
    return _UFUNC_NAMES


_UFUNC_NAMES = {name for name in dir(np) if isinstance(getattr(np, name), np.ufunc)} - _NUMPY_ONLY


class _Namespace(types.ModuleType):
    """A module of the stand-in built from a numpy module: its functions made strict (R6)."""

    def __init__(self, name, numpy_module, special=()):
        super().__init__(name, f"numpy's {numpy_module.__name__} behind CuPy's rules [{_NAME}]")
        self._numpy = numpy_module
        for key, value in dict(special).items():
            setattr(self, key, value)

    def __getattr__(self, name):
        if name.startswith("__") or name in _NUMPY_ONLY:
            raise AttributeError(f"module 'cupy' has no attribute '{name}' [{_NAME}]")
        value = getattr(self._numpy, name)  # AttributeError for names numpy lacks too
        if isinstance(value, np.ufunc):
            value = ufunc(value)
        elif callable(value) and not isinstance(value, type):
            value = _function(name, value)
        elif isinstance(value, types.ModuleType):
            raise AttributeError(f"the stand-in has no cupy.{name} [{_NAME}]")
        setattr(self, name, value)
        return value


# -- random numbers (R13) ------------------------------------------------------------------------------
class Generator:
    """``cupy.random.Generator``'s methods, drawn by numpy's PCG64 (CuPy draws with XORWOW)."""

    def __init__(self, numpy_generator):
        self._numpy = numpy_generator

    def random(self, size=None, dtype=np.float64, out=None):
        values = self._numpy.random(size, dtype=dtype)
        return self._deliver(values, out)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        values = self._numpy.standard_normal(size, dtype=dtype)
        return self._deliver(values, out)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64):
        low, high = (_device_operand(v, "Generator.uniform") for v in (low, high))
        return ndarray._wrap(np.asarray(self._numpy.uniform(low, high, size)).astype(dtype, copy=False))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        low, high = (v if v is None else _device_operand(v, "Generator.integers") for v in (low, high))
        return ndarray._wrap(np.asarray(self._numpy.integers(low, high, size, dtype=dtype,
                                                             endpoint=endpoint)))

    def _deliver(self, values, out):
        if out is None:
            return ndarray._wrap(np.asarray(values))
        if not isinstance(out, ndarray):
            raise _unsupported(out, "Generator, out=")
        out._host[...] = values
        return out


def default_rng(seed=None):
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, (ndarray, np.ndarray)):
        raise _unsupported(seed, "random.default_rng")
    if seed is not None and not isinstance(seed, numbers.Integral):
        seed = [builtins.int(s) for s in seed]  # a sequence of ints, as numpy.random.SeedSequence takes
    return Generator(np.random.default_rng(seed))


# -- cupy.cuda (R15) -----------------------------------------------------------------------------------
class _Device:
    """``cupy.cuda.Device``: selects the current GPU within a ``with`` block; there is one, 0."""

    def __init__(self, device=None):
        self.id = 0 if device is None else builtins.int(device)
        if self.id != 0:
            raise RuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {self.id} [{_NAME}]")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        """Every operation of the stand-in has finished when it returns: nothing to wait for."""

    def __repr__(self):
        return f"<CUDA Device {self.id} [{_NAME}]>"


def _device_properties(index):
    _Device(index)
    return {"name": _NAME.encode(), "totalGlobalMem": 0}


cuda = types.SimpleNamespace(
    Device=_Device,
    runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, getDeviceProperties=_device_properties),
)

random = types.SimpleNamespace(default_rng=default_rng, Generator=Generator)

cupy = _Namespace("strictcuda", np, special={
    "ndarray": ndarray, "ufunc": ufunc, "asnumpy": asnumpy, "get_array_module": get_array_module,
    "where": _kernel_function(np.where), "clip": _kernel_function(np.clip),
    "array": _array, "asarray": _asarray, "asanyarray": _asarray, "random": random, "cuda": cuda,
    "linalg": _Namespace("strictcuda.linalg", np.linalg), "fft": _Namespace("strictcuda.fft", np.fft),
    "lib": types.SimpleNamespace(stride_tricks=_Namespace("strictcuda.lib.stride_tricks",
                                                          np.lib.stride_tricks)),
    "__version__": "stand-in"})
cupy.__file__ = __file__


def _cupyx():
    """R17: ``cupyx.scipy.special`` (``erf``, ...): CuPy's SciPy functions, whose ufuncs follow R4,
    R5 and R16 (computed here by SciPy's)."""
    import scipy.special
    special = _Namespace("strictcuda.cupyx.scipy.special", scipy.special)
    scipy_module = types.ModuleType("strictcuda.cupyx.scipy")
    scipy_module.special = special
    root = types.ModuleType("strictcuda.cupyx")
    root.scipy = scipy_module
    return {"cupyx": root, "cupyx.scipy": scipy_module, "cupyx.scipy.special": special}

"""What PyTorch's C++ argument parser does around the functions it binds: numpy's names for four
arguments, and PyTorch's ``TypeError`` for a number (or anything else) where every overload
takes a Tensor.

``x.sum(axis=1)``, ``torch.cat(ts, axis=0)``, ``y.argmax(axis=1, keepdims=True)``: d2l and
numpy-minded code write them, and ``torch/csrc/utils/python_arg_parser.cpp``
(``numpy_compatibility_arg_names``) maps ``axis`` to ``dim``, ``keepdims`` to ``keepdim``,
``x``/``a``/``x1`` to ``input`` and ``x2`` to ``other`` for every function and method bound
from C++.  Functions PyTorch writes in Python (``Tensor.split``, ``Tensor.norm``,
``torch.unique``, ``torch.nn.functional``...) take only their own names, and are left alone.

``torch.matmul(x, 0.5)``, ``torch.clamp(0.5, x)`` and ``x.matmul(0.5)`` never reach an operator
in PyTorch: the parser (``PythonArgParser::raw_parse``) matches the call against the function's
signatures (``nnref._tensor_only``, generated from PyTorch's) and raises ``TypeError`` naming the
argument, or listing the overloads (``torch/csrc/utils/invalid_arguments.cpp``).  The wrapper checks only
the arguments that are a Tensor in every overload, with one type test each; a call that fails
that test is parsed as PyTorch parses it, which either accepts it or raises PyTorch's message.
"""
import functools
import inspect
import operator
import os

import numpy as np

from .core._device import device as _device
from .core._dtype import dtype as _dtype
from .core._tensor import Tensor

__all__ = ["accept_numpy_names", "apply_to_namespace", "parse_signature"]

_ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}

# Methods and functions PyTorch implements in Python (torch/_tensor.py, torch/functional.py).
PYTHON_LEVEL = {"split", "norm", "unique", "unique_consecutive", "unflatten", "tensordot", "einsum",
                "meshgrid", "cdist", "chain_matmul", "block_diag", "cartesian_prod", "broadcast_tensors",
                "atleast_1d", "atleast_2d", "atleast_3d", "stft", "istft", "lu", "align_to", "rename",
                "refine_names", "register_hook", "backward", "to", "type", "size"}

# should_allow_numbers_as_tensors: these functions' Tensor parameters also take a Python number.
_NUMBERS_AS_TENSORS = {f"{name}{suffix}" for name in ("add", "div", "divide", "mul", "multiply", "sub", "subtract",
                                                      "true_divide", "floor_divide") for suffix in ("", "_", "_out")
                       } | {"to", "_to_copy", "copy_"}

# FunctionParameter::type_name, by the type the signature strings spell.
_TYPE_NAMES = {
    "Tensor": "Tensor", "Scalar": "Number", "int64_t": "int", "SymInt": "int", "double": "float",
    "complex": "complex", "TensorList": "tuple of Tensors", "c10::List<::std::optional<Tensor>>":
    "tuple of Tensors", "IntArrayRef": "tuple of ints", "SymIntArrayRef": "tuple of ints",
    "ArrayRef<double>": "tuple of floats", "Generator": "torch.Generator", "bool": "bool",
    "Storage": "torch.Storage", "PyObject*": "object", "ScalarType": "torch.dtype", "Layout": "torch.layout",
    "MemoryFormat": "torch.memory_format", "QScheme": "torch.qscheme", "Device": "torch.device",
    "Stream": "torch.Stream", "std::string": "str", "c10::string_view": "str", "Dimname": "name",
    "DimnameList": "tuple of names", "ScalarList": "tuple of Scalars"}
_NUMPY_SCALARS = (np.bool_, np.integer, np.floating, np.complexfloating)


# PyTorch's classes written in C++, whose type names are dotted; nnref's are Python classes whose
# repr is PyTorch's name (nnref.core._naming.TorchNamed).
_TORCH_C_TYPES = {"torch.dtype", "torch.device", "torch.layout", "torch.memory_format", "torch.Size",
                  "torch._C.Generator", "torch.finfo", "torch.iinfo"}


def _tp_name(obj):
    """``Py_TYPE(obj)->tp_name``: a class defined in Python by its name, a C type with its module
    (``numpy.float32``, ``torch.dtype``) unless it is a builtin."""
    kind = type(obj)
    if repr(kind)[8:-2] in _TORCH_C_TYPES:
        return repr(kind)[8:-2]
    if kind.__flags__ & (1 << 9) or kind.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return kind.__name__
    return f"{kind.__module__}.{kind.__name__}"


def _is_long(obj):  # THPUtils_checkLong
    return isinstance(obj, np.integer) or (isinstance(obj, int) and not isinstance(obj, bool))


def _is_double(obj):  # THPUtils_checkDouble
    return isinstance(obj, (float, int, np.integer, np.floating, np.bool_))


def _is_scalar(obj):  # THPUtils_checkScalar
    return isinstance(obj, (int, float, complex, *_NUMPY_SCALARS))


def _is_index(obj):  # THPUtils_checkIndex: anything with __index__ but a bool
    if isinstance(obj, bool):
        return False
    try:
        operator.index(obj)
    except Exception:  # noqa: BLE001 - PyNumber_Index's failure, whatever it raised, means "no"
        return False
    return True


def _is_number_tensor(obj):  # a zero-dimensional tensor without grad binds to a number
    return isinstance(obj, Tensor) and obj.dim() == 0 and not obj.requires_grad


class _Parameter:
    """``FunctionParameter``: one ``type name=default`` of a signature string."""
    __slots__ = ("name", "kind", "size", "allow_none", "optional", "keyword_only", "numbers_as_tensors",
                 "text")

    def __init__(self, spec, keyword_only, numbers_as_tensors):
        kind, _, rest = spec.partition(" ")
        self.allow_none = "?" in kind
        kind = kind.replace("?", "")
        self.size = int(kind[kind.index("[") + 1:-1]) if "[" in kind else 0
        self.kind = kind.partition("[")[0]
        self.name, eq, default = rest.partition("=")
        self.optional = bool(eq)
        self.allow_none = self.allow_none or default == "None"
        self.keyword_only, self.numbers_as_tensors = keyword_only, numbers_as_tensors
        self.text = f"{self.type_name} {self.name}" + (f" = {default}" if eq else "")

    @property
    def type_name(self):
        return _TYPE_NAMES[self.kind]

    @property
    def is_tensor(self):
        """Only a Tensor binds here (not a number, not None)."""
        return self.kind == "Tensor" and not self.numbers_as_tensors

    @property
    def is_tensors(self):
        """Only a tuple or list of Tensors binds here."""
        return self.kind == "TensorList" and not self.allow_none

    def check(self, obj, argnum):
        """``FunctionParameter::check``: ``(matches, index of the failing element or -1)``."""
        kind = self.kind
        if kind == "Tensor":
            return isinstance(obj, Tensor) or (self.numbers_as_tensors and _is_scalar(obj)), -1
        if kind in ("Scalar", "complex", "double"):
            return ((kind == "Scalar" and _is_scalar(obj)) or (kind != "double" and isinstance(obj, complex))
                    or _is_double(obj) or _is_number_tensor(obj)), -1
        if kind == "int64_t":
            return _is_long(obj) or (_is_number_tensor(obj) and not obj.dtype.is_floating_point), -1
        if kind == "SymInt":
            return _is_index(obj), -1
        if kind == "bool":
            return isinstance(obj, bool), -1
        if kind in ("TensorList", "c10::List<::std::optional<Tensor>>"):
            if not isinstance(obj, (tuple, list)):
                return False, -1
            for index, item in enumerate(obj):
                if not isinstance(item, Tensor):
                    raise TypeError(f"expected Tensor as element {index} in argument {argnum}, "
                                    f"but got {_tp_name(item)}")
            return True, -1
        if kind in ("IntArrayRef", "SymIntArrayRef"):
            if isinstance(obj, (tuple, list)):
                if not obj or _is_index(obj[0]):
                    return True, -1
                return False, 0 if kind == "SymIntArrayRef" else -1
            return self.size > 0 and (_is_long(obj) if kind == "IntArrayRef" else _is_index(obj)), -1
        if kind == "ArrayRef<double>":
            return isinstance(obj, (tuple, list)) and (not obj or _is_double(obj[0])
                                                       or isinstance(obj[0], complex)), -1
        if kind == "ScalarList":
            return isinstance(obj, (tuple, list)) and all(_is_scalar(item) for item in obj), -1
        if kind in ("std::string", "c10::string_view"):
            return isinstance(obj, str), -1
        if kind == "ScalarType":
            return isinstance(obj, _dtype) or obj in (float, int, bool, complex), -1
        if kind == "Device":
            return _is_long(obj) or isinstance(obj, (str, _device)), -1
        # Generators, layouts, memory formats, names...: nnref's own objects, taken as given
        return True, -1


class _Signature:
    """``FunctionSignature``: one overload, parsed from its string."""

    def __init__(self, string):
        self.name, _, rest = string.partition("(")
        body, _, tail = rest.rpartition(")")
        self.hidden = tail in ("|deprecated", "|hidden")  # tried, never listed
        numbers = self.name in _NUMBERS_AS_TENSORS
        self.params, keyword_only = [], False
        for spec in body.split(", ") if body else ():
            if spec == "*":
                keyword_only = True
            else:
                self.params.append(_Parameter(spec, keyword_only, numbers))
        self.min_args = sum(not p.optional for p in self.params)
        self.max_args = len(self.params)
        self.max_pos_args = sum(not p.keyword_only for p in self.params)
        positional = [p.text for p in self.params if not p.keyword_only]
        keywords = [p.text for p in self.params if p.keyword_only]
        self.text = "(" + ", ".join(positional + (["*, " + keywords[0]] + keywords[1:] if keywords else [])) + ")"

    def parse(self, args, kwargs, raise_exception):
        """``FunctionSignature::parse``: True if the call binds; raises PyTorch's ``TypeError``
        instead of returning False when ``raise_exception``."""
        nargs, remaining, arg_pos = len(args), len(kwargs), 0
        varargs = self.max_pos_args == 1 and self.params[0].kind in ("IntArrayRef", "SymIntArrayRef")
        if nargs > self.max_pos_args and not varargs:
            return raise_exception and self._extra_args(nargs)
        for i, param in enumerate(self.params):
            obj, is_kwd = _MISSING, False
            if arg_pos < nargs:
                if param.keyword_only:
                    return raise_exception and self._extra_args(nargs)
                obj = args[arg_pos]
            elif kwargs:
                obj = kwargs.get(param.name, _MISSING)
                for numpy_name in _NUMPY_NAMES.get(param.name, ()):
                    if obj is _MISSING:
                        obj = kwargs.get(numpy_name, _MISSING)
                is_kwd = True
            if (obj is _MISSING and param.optional) or (obj is None and param.allow_none):
                pass
            elif obj is _MISSING:
                return raise_exception and self._missing_args(i)
            else:
                matches, failed = param.check(obj, i)
                if not matches:
                    if varargs and arg_pos == 0 and not is_kwd and \
                            param.check(args, i)[0]:
                        arg_pos = nargs  # permute(1, 2, 3) is permute((1, 2, 3))
                        continue
                    if not raise_exception:
                        return False
                    if varargs and arg_pos == 0 and not is_kwd and nargs > 1:
                        self._extra_args(nargs)
                    self._wrong_type(param, obj, arg_pos, is_kwd, failed, args)
            if not is_kwd:
                arg_pos += 1
            elif obj is not _MISSING:
                remaining -= 1
        if remaining > 0:
            return raise_exception and self._extra_kwargs(kwargs, nargs)
        return True

    def _extra_args(self, nargs):
        if self.min_args != self.max_pos_args:
            raise TypeError(f"{self.name}() takes from {self.min_args} to {self.max_pos_args} positional "
                            f"arguments but {nargs} were given")
        raise TypeError(f"{self.name}() takes {self.max_pos_args} positional argument"
                        f"{'' if self.max_pos_args == 1 else 's'} but {nargs} {'was' if nargs == 1 else 'were'} given")

    def _missing_args(self, index):
        missing = [f'"{p.name}"' for p in self.params[index:] if not p.optional]
        # PyTorch's plural is the wrong way round ("missing 1 required positional arguments")
        raise TypeError(f"{self.name}() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) == 1 else ''}: {', '.join(missing)}")

    def _wrong_type(self, param, obj, arg_pos, is_kwd, failed, args):
        if is_kwd:
            raise TypeError(f"{self.name}(): argument '{param.name}' must be {param.type_name}, "
                            f"not {_tp_name(obj)}")
        where = f"{self.name}(): argument '{param.name}' (position {arg_pos + 1}) must be {param.type_name}"
        if failed != -1:
            sequence = obj if isinstance(obj, (tuple, list)) else args
            raise TypeError(f"{where}, but found element of type {_tp_name(sequence[failed])} at pos {failed}")
        raise TypeError(f"{where}, not {_tp_name(obj)}")

    def _extra_kwargs(self, kwargs, nargs):
        names = [p.name for p in self.params]
        for key in kwargs:
            if key not in names:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{key}'")
            if names.index(key) < nargs:
                raise TypeError(f"{self.name}() got multiple values for argument '{key}'")
        raise TypeError("invalid keyword arguments")


_MISSING = object()


@functools.lru_cache(maxsize=None)
def parse_signature(string):
    """The parsed form of one of ``nnref._tensor_only``'s signature strings."""
    return _Signature(string)


def _parse(signatures, args, kwargs):
    """``PythonArgParser::raw_parse``: return if some signature binds the call, else raise
    PyTorch's ``TypeError`` (``print_error``)."""
    if len(signatures) == 1:
        signatures[0].parse(args, kwargs, True)
        return
    if any(signature.parse(args, kwargs, False) for signature in signatures):
        return
    count = len(args) + len(kwargs)
    plausible = [s for s in signatures if s.min_args <= count <= s.max_args and not s.hidden]
    if len(plausible) == 1:
        plausible[0].parse(args, kwargs, True)
    options = [s.text for s in signatures if not s.hidden]
    raise TypeError(_invalid_args(args, kwargs, signatures[0].name + "()", options))


def _invalid_args(args, kwargs, function_name, options):
    """``torch::format_invalid_args`` (``torch/csrc/utils/invalid_arguments.cpp``), whose own
    reading of the printed overloads takes ``Tensor min = None`` for a parameter named ``None``
    of type ``Tensor min =``: so only overloads without defaults get their mismatches marked."""
    message = f"{function_name} received an invalid combination of arguments - "
    described = "(" + ", ".join([_tp_name(a) for a in args] + [f"{k}={_tp_name(v)}" for k, v in kwargs.items()]) + ")"
    if len(options) == 1:
        option = _option(options[0])
        unmatched = _unmatched_kwargs(option, kwargs) if kwargs else []
        if unmatched:
            return message + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = _formatted_arg_desc(option, args, kwargs) if _count_matches(option, args, kwargs) else described
        return message + f"got {got}, but expected {options[0]}"
    message += f"got {described}, but expected one of:\n"
    for text in options:
        option = _option(text)
        message += f" * {text}\n"
        if _count_matches(option, args, kwargs):
            unmatched = _unmatched_kwargs(option, kwargs) if kwargs else []
            if unmatched:
                message += "      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched) + "\n"
            else:
                message += ("      didn't match because some of the arguments have invalid types: "
                            + _formatted_arg_desc(option, args, kwargs) + "\n")
    return message


def _option(text):
    """``_parseOption``: ``[(name, type name)]`` split at each argument's last space."""
    return [(arg[arg.rfind(" ") + 1:], arg[:arg.rfind(" ")] if " " in arg else arg)
            for arg in text[1:-1].split(", ")]


def _count_matches(option, args, kwargs):  # _argcountMatch
    return len(args) + len(kwargs) == len(option)


def _unmatched_kwargs(option, kwargs):  # _tryMatchKwargs
    names = [name for name, _ in option[max(len(option) - len(kwargs), 0):]]
    return [key for key in kwargs if key not in names]


def _type_matches(type_name, obj):  # invalid_arguments.cpp's SimpleType and MultiType
    accepted = {"float": ("float", "int", "long"), "int": ("int", "long")}.get(type_name, (type_name,))
    return _tp_name(obj) in accepted


def _arg_desc(obj):
    if isinstance(obj, (tuple, list)):
        items = ", ".join(_tp_name(item) for item in obj)
        return f"{_tp_name(obj)} of " + (f"({items}{',' if len(obj) == 1 else ''})"
                                         if isinstance(obj, tuple) else f"[{items}]")
    return _tp_name(obj)


def _formatted_arg_desc(option, args, kwargs):
    """The arguments, each marked as matching its overload's parameter or not: in colour when
    both stdout and stderr are terminals, else between ``!``."""
    colour = os.isatty(1) and os.isatty(2)
    red, reset_red, green, reset_green = ("\33[31;1m", "\33[0m", "\33[32;1m", "\33[0m") if colour else (
        "!", "!", "", "")
    parts, keyword_values = [], list(kwargs.items())
    for i in range(len(args) + len(kwargs)):
        if i < len(args):
            prefix, obj = "", args[i]
        else:
            name = option[i][0]
            prefix, obj = f"{name}=", kwargs.get(name, keyword_values[i - len(args)][1])
        if _type_matches(option[i][1], obj):
            parts.append(f"{green}{prefix}{_arg_desc(obj)}{reset_green}")
        else:
            parts.append(f"{red}{prefix}{_arg_desc(obj)}{reset_red}")
    return "(" + ", ".join(parts) + ")"


def _not_tensors(value):
    return type(value) not in (tuple, list) or not all(isinstance(item, Tensor) for item in value)


class _Guard:
    """Which arguments of a function bound from C++ must be a Tensor (or a tuple or list of
    them) whatever the overload: the positions (and, with ``out=``, those of the overloads that
    have ``out``) and the keywords."""

    def __init__(self, strings, method=False):
        self.signatures = [parse_signature(s) for s in strings]
        self.offset = int(method)  # a method's self comes first, and its signatures leave it out
        self.positions = self._positions(self.signatures, _Parameter.is_tensor.fget)
        self.list_positions = self._positions(self.signatures, _Parameter.is_tensors.fget)
        self.out_positions = tuple(sorted(set(self._positions(
            [s for s in self.signatures if any(p.name == "out" for p in s.params)], _Parameter.is_tensor.fget))
            - set(self.positions)))
        self.keywords, self.list_keywords = self._keywords(_Parameter.is_tensor.fget), self._keywords(
            _Parameter.is_tensors.fget)

    def _positions(self, signatures, test):
        longest = max((s.max_pos_args for s in signatures), default=0)
        return tuple(i + self.offset for i in range(longest)
                     if all(test(s.params[i]) for s in signatures if i < s.max_pos_args))

    def parse(self, args, kwargs):
        """``_parse`` of the call, without a method's self."""
        _parse(self.signatures, args[self.offset:], kwargs)

    def _keywords(self, test):
        named = {}
        for signature in self.signatures:
            for param in signature.params:
                named.setdefault(param.name, []).append(test(param))
        names = {name for name, tests in named.items() if all(tests)}
        return frozenset(names | {alias for alias, name in _ALIASES.items() if name in names})

    def __bool__(self):
        return bool(self.positions or self.list_positions or self.out_positions or self.keywords
                    or self.list_keywords)

    def check(self, args, kwargs):
        """Parse the call as PyTorch does if an argument it must get as a Tensor is not one.
        Plain loops and one type test per argument: this runs on every call."""
        positions = self.positions
        if kwargs:
            # isdisjoint walks the call's few keywords; & and intersection would build sets
            if not self.keywords.isdisjoint(kwargs):
                for key in self.keywords.intersection(kwargs):
                    if type(kwargs[key]) is not Tensor and not isinstance(kwargs[key], Tensor):
                        return self.parse(args, kwargs)
            if self.list_keywords and not self.list_keywords.isdisjoint(kwargs):
                for key in self.list_keywords.intersection(kwargs):
                    if _not_tensors(kwargs[key]):
                        return self.parse(args, kwargs)
            if self.out_positions and "out" in kwargs:
                positions = positions + self.out_positions
        count = len(args)
        for i in positions:
            if i < count and type(args[i]) is not Tensor and not isinstance(args[i], Tensor):
                return self.parse(args, kwargs)
        if self.list_positions:
            for i in self.list_positions:
                if i < count and _not_tensors(args[i]):
                    return self.parse(args, kwargs)


def accept_numpy_names(function, signatures=None, method=False):
    """``function`` (a ``Tensor`` method if ``method``), also taking numpy's names for its ``dim``,
    ``keepdim``, ``input`` and ``other`` arguments and, given its PyTorch ``signatures``, refusing
    what PyTorch's parser refuses; ``function`` itself when there is nothing to do."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return function
    aliases = {alias: name for alias, name in _ALIASES.items()
               if name in parameters and alias not in parameters}
    names = frozenset(aliases)
    guard = (_Guard(signatures, method) if signatures else None) or None
    if not aliases and guard is None:
        return function

    def renamed(kwargs):
        if not names.isdisjoint(kwargs):  # isdisjoint walks the call's few keywords
            for alias in names.intersection(kwargs):
                kwargs[aliases[alias]] = kwargs.pop(alias)
        return kwargs

    if guard is None:
        @functools.wraps(function)
        def call(*args, **kwargs):
            return function(*args, **renamed(kwargs)) if kwargs else function(*args)
        return call

    positions = guard.positions
    if guard.list_positions:
        @functools.wraps(function)
        def call(*args, **kwargs):  # cat, stack...: each tensor of a tuple or list is tested
            guard.check(args, kwargs)
            return function(*args, **renamed(kwargs)) if kwargs else function(*args)
        return call

    @functools.wraps(function)
    def call(*args, **kwargs):
        if kwargs:
            guard.check(args, kwargs)
            if not names.isdisjoint(kwargs):
                renamed(kwargs)
            return function(*args, **kwargs)
        for i in positions:
            # type() first: an exact Tensor, nearly every call, costs one test
            if i < len(args) and type(args[i]) is not Tensor and not isinstance(args[i], Tensor):
                guard.parse(args, kwargs)
        return function(*args)
    return call


_wrapped = {}  # (id(function), its signatures, a method?) -> (function, its wrapper): one per binding


def apply_to_namespace(namespace, names, signatures=None, methods=False):
    """Replace each function ``namespace[name]`` by :func:`accept_numpy_names` of it, given its
    PyTorch signatures ``signatures[name]`` (``nnref._tensor_only.SIGNATURES``, or
    ``METHOD_SIGNATURES`` for the ``Tensor`` ``methods``) if any."""
    signatures = signatures or {}
    for name in names:
        function = namespace.get(name) if isinstance(namespace, dict) else getattr(namespace, name, None)
        if (name in PYTHON_LEVEL and name not in signatures) or name.startswith("_") or not inspect.isfunction(
                function):
            continue
        key = (id(function), signatures.get(name), methods)
        if key not in _wrapped:
            _wrapped[key] = (function, accept_numpy_names(function, signatures.get(name), methods))
        wrapped = _wrapped[key][1]
        if wrapped is not function:
            if isinstance(namespace, dict):
                namespace[name] = wrapped
            else:
                setattr(namespace, name, wrapped)

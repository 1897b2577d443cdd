"""``nnref.nn.modules.container`` (``torch/nn/modules/container.py``): ``Sequential``,
``ModuleList`` and ``ModuleDict`` live in the teaching core (``nnref/core/nn/modules/container.py``);
this public module re-exports them, binds their operators (``+``, ``*``, ``+=``), item
assignment, ``pop`` and ``ModuleList``'s compressed repr, and defines ``ParameterList`` and ``ParameterDict``, which keep
their items in the ordinary ``_parameters`` dict.
"""
import operator
from collections import OrderedDict, abc as container_abcs
from itertools import chain

from ...core._tensor import Tensor
from ...core.nn.modules.container import ModuleDict, ModuleList, Sequential
from ..parameter import Parameter
from .module import Module, _typename, bind

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _addindent(s_, numSpaces):
    # PyTorch's container.py keeps its own copy of this helper, which (unlike module.py's)
    # also indents blank lines; ModuleList's repr uses it.
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(numSpaces * " ") + line for line in s]
    return first + "\n" + "\n".join(s)


# -- the operators, item assignment and pop of Sequential and ModuleList, bound below --------------------------------------------


def _sequential_add(self, other):
    if isinstance(other, Sequential):
        ret = Sequential()
        for layer in self:
            ret.append(layer)
        for layer in other:
            ret.append(layer)
        return ret
    raise ValueError("add operator supports only objects of Sequential class, but "
                     f"{str(type(other))} is given.")


def _sequential_iadd(self, other):
    if isinstance(other, Sequential):
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self
    raise ValueError("add operator supports only objects of Sequential class, but "
                     f"{str(type(other))} is given.")


def _sequential_check_factor(self, other):
    if not isinstance(other, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
    if other <= 0:
        raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")


def _sequential_mul(self, other):
    """``Sequential`` of the layers repeated ``other`` times: the same modules (shared
    parameters), not copies."""
    self._check_factor(other)
    combined = Sequential()
    offset = 0
    for _ in range(other):
        for module in self:
            combined.add_module(str(offset), module)
            offset += 1
    return combined


def _sequential_rmul(self, other):
    return self.__mul__(other)


def _sequential_imul(self, other):
    self._check_factor(other)
    length = offset = len(self)
    for _ in range(other - 1):
        for i in range(length):
            self.add_module(str(i + offset), self._modules[str(i)])
        offset += length
    return self


def _sequential_dir(self):
    """``dir(seq)`` lists its attributes but not the numbered children ``'0'``, ``'1'``, ..."""
    return [key for key in Module.__dir__(self) if not key.isdigit()]


def _module_list_dir(self):
    """``dir(modules)``, without the numbered children (as ``Sequential``'s)."""
    return [key for key in Module.__dir__(self) if not key.isdigit()]


def _sequential_extend(self, sequential):
    """Append every module of ``sequential`` (any iterable of modules)."""
    for layer in sequential:
        self.append(layer)
    return self


def _sequential_pop(self, key):
    """Remove the module at ``key`` and return it."""
    v = self[key]
    del self[key]
    return v


def _sequential_setitem(self, idx, module):
    key = self._get_item_by_idx(self._modules.keys(), idx)
    return setattr(self, key, module)


bind(Sequential, __dir__=_sequential_dir, extend=_sequential_extend, __add__=_sequential_add,
     __iadd__=_sequential_iadd, _check_factor=_sequential_check_factor, __mul__=_sequential_mul,
     __rmul__=_sequential_rmul, __imul__=_sequential_imul, pop=_sequential_pop,
     __setitem__=_sequential_setitem)


def _module_list_add(self, other):
    combined = ModuleList()
    for i, module in enumerate(chain(self, other)):
        combined.add_module(str(i), module)
    return combined


def _module_list_repr(self):
    """Like ``Module.__repr__``, but a run of identical modules prints once: ``(0-2): 3 x ...``."""
    list_of_reprs = [repr(item) for item in self]
    if len(list_of_reprs) == 0:
        return self._get_name() + "()"

    start_end_indices = [[0, 0]]
    repeated_blocks = [list_of_reprs[0]]
    for i, r in enumerate(list_of_reprs[1:], 1):
        if r == repeated_blocks[-1]:
            start_end_indices[-1][1] += 1
            continue
        start_end_indices.append([i, i])
        repeated_blocks.append(r)

    lines = []
    main_str = self._get_name() + "("
    for (start_id, end_id), b in zip(start_end_indices, repeated_blocks):
        local_repr = f"({start_id}): {b}"
        if start_id != end_id:
            n = end_id - start_id + 1
            local_repr = f"({start_id}-{end_id}): {n} x {b}"
        local_repr = _addindent(local_repr, 2)
        lines.append(local_repr)

    main_str += "\n  " + "\n  ".join(lines) + "\n"
    main_str += ")"
    return main_str


def _module_list_setitem(self, idx, module):
    idx = self._get_abs_string_index(idx)
    return setattr(self, str(idx), module)


def _module_list_iadd(self, modules):
    return self.extend(modules)


def _module_list_pop(self, key):
    """Remove the module at ``key`` and return it."""
    v = self[key]
    del self[key]
    return v


bind(ModuleList, __dir__=_module_list_dir, __add__=_module_list_add, __repr__=_module_list_repr,
     pop=_module_list_pop, __setitem__=_module_list_setitem, __iadd__=_module_list_iadd)


def _tensor_entry_repr(p, type_text):
    """One line of a parameter container's repr: ``Parameter containing: [... of size 2x3]``."""
    size_str = "x".join(str(size) for size in p.size())
    device_str = f" ({p.device})" if p.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"{kind} containing: [{type_text} of size {size_str}{device_str}]"


class ParameterList(Module):
    """A list of parameters that registers them; tensors put in it become Parameters."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx):
        """The key (``"0"``, ``"1"``, ...) of position ``idx``."""
        idx = operator.index(idx)
        if not (-len(self) <= idx < len(self)):
            raise IndexError(f"index {idx} is out of range")
        if idx < 0:
            idx += len(self)
        return str(idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            out = self.__class__()
            for i in range(start, stop, step):
                out.append(self[i])
            return out
        idx = self._get_abs_string_index(idx)
        return getattr(self, str(idx))

    def __setitem__(self, idx, param):
        # Every way of adding an item ends here, so this is the one place that wraps tensors.
        idx = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        return setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        keys = super().__dir__()
        return [key for key in keys if not key.isdigit()]

    def append(self, value):
        """Add ``value`` at the end."""
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        """Append every item of the iterable ``values`` (a tensor is not unpacked)."""
        if not isinstance(values, container_abcs.Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        child_lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                child_lines.append("  (" + str(k) + "): " + _tensor_entry_repr(p, str(p.dtype)))
            else:
                child_lines.append("  (" + str(k) + "): Object of type: " + type(p).__name__)
        return "\n".join(child_lines)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters that registers them; tensors put in it become Parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                            "non-string keys.")
        return key

    def __getitem__(self, key):
        attr = self._key_to_attr(key)
        return getattr(self, attr)

    def __setitem__(self, key, value):
        # Every way of adding an item ends here, so this is the one place that wraps tensors.
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self._keys[key]
        attr = self._key_to_attr(key)
        delattr(self, attr)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def copy(self):
        """A new ParameterDict holding the same parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def __contains__(self, key):
        return key in self._keys

    def setdefault(self, key, default=None):
        """The value of ``key``, first set to ``default`` if absent, as ``dict.setdefault``
        (``torch/nn/modules/container.py``)."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        """Remove every entry (``torch/nn/modules/container.py``)."""
        for k in self._keys.copy():
            del self[k]

    def pop(self, key):
        """Remove ``key`` and return its value (``torch/nn/modules/container.py``)."""
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        """Remove and return the last (key, value) pair inserted
        (``torch/nn/modules/container.py``)."""
        k, _ = self._keys.popitem()
        # __getitem__ and __delitem__ below need the key to be present.
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key, default=None):
        """The value of ``key``, or ``default`` if absent (``torch/nn/modules/container.py``)."""
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        """A new ParameterDict with ``keys``, each set to ``default``
        (``torch/nn/modules/container.py``)."""
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        """The keys, in insertion order (``torch/nn/modules/container.py``)."""
        return self._keys.keys()

    def items(self):
        """The (key, value) pairs, in insertion order (``torch/nn/modules/container.py``)."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """The values, in insertion order (``torch/nn/modules/container.py``)."""
        return (self[k] for k in self._keys)

    def update(self, parameters):
        """Add or overwrite entries; a plain (unordered) mapping is added in sorted key order."""
        if not isinstance(parameters, container_abcs.Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value "
                            "pairs, but got " + type(parameters).__name__)

        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, container_abcs.Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, p in enumerate(parameters):
                if not isinstance(p, container_abcs.Iterable):
                    raise TypeError("ParameterDict update sequence element #" + str(j)
                                    + " should be Iterable; is" + type(p).__name__)
                if not len(p) == 2:
                    raise ValueError("ParameterDict update sequence element #" + str(j) + " has length "
                                     + str(len(p)) + "; 2 is required")
                self[p[0]] = p[1]

    def extra_repr(self):
        child_lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                child_lines.append("  (" + str(k) + "): " + _tensor_entry_repr(p, _typename(p)))
            else:
                child_lines.append("  (" + str(k) + "): Object of type: " + type(p).__name__)
        return "\n".join(child_lines)

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other):
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other):
        self.update(other)
        return self

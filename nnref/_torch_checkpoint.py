"""PyTorch's zip checkpoints, read and written without running code (``torch/serialization.py``).

``torch.save`` writes a ZIP archive ``<name>/data.pkl`` + ``<name>/data/<key>``
(+ ``byteorder``, ``version``, ...).  ``data.pkl`` is a pickle in which every
tensor is a call ``torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, requires_grad, backward_hooks)`` and every storage a *persistent id*
``('storage', torch.FloatStorage, key, location, numel)`` naming the entry
``data/<key>`` that holds its bytes.

Reading uses a restricted unpickler, like ``torch.load(weights_only=True)``
(``torch/_weights_only_unpickler.py``): it runs Python's own pickle machine
with a reduced opcode table and admits exactly these globals, none of which
is ever called: ``collections.OrderedDict``, ``torch._utils._rebuild_tensor``,
``_rebuild_tensor_v2`` and ``_rebuild_parameter``, ``torch.Size``,
``torch.device``, the storage types (``torch.FloatStorage``...) and the dtypes
(``torch.float32``...).  Everything else ("os.system", any class) is refused,
unless the program allowlisted it (``serialization.add_safe_globals``): then,
as in PyTorch, the file may create instances of that class and set their state
or call that function, and nothing else (the modules ``sys``, ``os``, ``posix``
and ``nt`` stay refused even when allowlisted).
Dicts are kept as lists of pairs until the whole pickle is read, then built
with the hash-flooding check every loader uses.

Writing emits the same opcodes directly (no ``pickle.Pickler``, which would
need PyTorch importable to name its functions), with each storage's data
aligned to 64 bytes as PyTorch aligns it.
"""
from collections import OrderedDict
import io
import math
import pickle
import struct
import sys

import numpy as np

from .core import _dtype
from .core._device import device as Device
from .core._tensor import Size, Tensor
from ._checkpoint_io import (MAX_NESTING, _MAX_DIMS, CheckpointError, RaisedWhileUnpickling, build_mapping,
                             place, unsupported_type, user_allowed_globals, write_zip)

__all__ = ["WeightsOnlyUnpicklingError", "read_torch_zip", "write_torch_zip", "torch_zip_prefix", "unsafe_globals"]

# torch's legacy storage class names, by the dtype whose elements they hold.
_STORAGE_DTYPES = {"FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
                   "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32",
                   "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
                   "BoolStorage": "bool", "ComplexFloatStorage": "complex64",
                   "ComplexDoubleStorage": "complex128"}
_STORAGE_OF = {dtype: storage for storage, dtype in _STORAGE_DTYPES.items()}
_TORCH_DTYPE_NAMES = set(_STORAGE_DTYPES.values())
_DTYPES = {d.name: d for d in _dtype.ALL_DTYPES}
_MAX_PICKLE_BYTES = 32 * 2**20


def torch_zip_prefix(archive):
    """``'<name>/'`` when the archive is a torch.save file (one ``<name>/data.pkl``), else None."""
    prefixes = [n[:-len("data.pkl")] for n in archive.names
                if n.endswith("/data.pkl") and n.count("/") == 1]
    return prefixes[0] if len(prefixes) == 1 else None


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------

class WeightsOnlyUnpicklingError(CheckpointError, pickle.UnpicklingError):
    """PyTorch's refusal of a pickle that names a class or function (``torch.load``'s default
    ``weights_only=True``): a ``pickle.UnpicklingError``, as PyTorch raises, and a
    ``CheckpointError``, as every other refusal of nnref's loader."""


_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to "
    "`True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source.")
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html.")
# Globals of these modules are refused even when allowlisted (``_blocklisted_modules``).
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


def _weights_only_refusal(qualified):
    """PyTorch's message (``torch/serialization.py``, ``_get_wo_message`` and the weights-only
    unpickler's ``Unsupported global``)."""
    return WeightsOnlyUnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, "
        f"\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) {_UNSAFE_MESSAGE}"
        "\n\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the "
        f"following error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {qualified} was not an "
        f"allowed global by default. Please use `torch.serialization.add_safe_globals([{qualified}])` or the "
        f"`torch.serialization.safe_globals([{qualified}])` context manager to allowlist this global if you "
        f"trust this class/function.{_DOCS_MESSAGE}")


def _blocked_module_refusal(module, qualified):
    return WeightsOnlyUnpicklingError(
        f"Weights only load failed. {_UNSAFE_MESSAGE}\n\n\nTrying to load unsupported GLOBAL {qualified} whose "
        f"module {module} is blocked.{_DOCS_MESSAGE}")


class _Global:
    """An admitted global, named but never callable: the unpickler only records what it meant."""

    def __init__(self, name):
        self.name = name


_ORDERED_DICT = _Global("collections.OrderedDict")
_REBUILD_TENSOR = _Global("torch._utils._rebuild_tensor")
_REBUILD_TENSOR_V2 = _Global("torch._utils._rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils._rebuild_parameter")
_TORCH_SIZE = _Global("torch.Size")
_TORCH_DEVICE = _Global("torch.device")
_ADMITTED = {g.name: g for g in (_ORDERED_DICT, _REBUILD_TENSOR, _REBUILD_TENSOR_V2,
                                 _REBUILD_PARAMETER, _TORCH_SIZE, _TORCH_DEVICE)}
_ADMITTED.update({f"torch.{name}": _Global(f"torch.{name}") for name in _STORAGE_DTYPES})
_ADMITTED.update({f"torch.{name}": _Global(f"torch.{name}") for name in _TORCH_DTYPE_NAMES})


class _UserGlobal:
    """A global the program allowlisted (``add_safe_globals``): the object itself, called or
    instantiated only once the whole pickle has been read and checked."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


class _Pairs:
    """A dict as the pickle builds it: ``(key, value)`` pairs, turned into a dict once checked."""

    __slots__ = ("pairs", "ordered", "metadata")

    def __init__(self, ordered):
        self.pairs = []
        self.ordered = ordered
        self.metadata = None

    def __setitem__(self, key, value):  # SETITEM / SETITEMS
        self.pairs.append((key, value))


class _Storage:
    __slots__ = ("key", "dtype_name", "location", "numel")

    def __init__(self, key, dtype_name, location, numel):
        self.key, self.dtype_name, self.location, self.numel = key, dtype_name, location, numel


class _TensorRecord:
    __slots__ = ("storage", "offset", "size", "stride", "requires_grad", "parameter")

    def __init__(self, storage, offset, size, stride, requires_grad):
        self.storage, self.offset, self.size, self.stride = storage, offset, size, stride
        self.requires_grad, self.parameter = requires_grad, False


class _Call:
    __slots__ = ("target", "args")

    def __init__(self, target, args):
        self.target, self.args = target, args


class _Construct:
    """An allowlisted global called (REDUCE) or instantiated (NEWOBJ: ``cls.__new__(cls, *args)``),
    with the states that BUILD then gives it, in order."""

    __slots__ = ("target", "args", "new", "states")

    def __init__(self, target, args, new):
        self.target, self.args, self.new, self.states = target, args, new, []


_OPCODES = [pickle.PROTO, pickle.FRAME, pickle.STOP, pickle.MARK, pickle.EMPTY_DICT,
            pickle.EMPTY_LIST, pickle.EMPTY_TUPLE, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2,
            pickle.TUPLE3, pickle.APPEND, pickle.APPENDS, pickle.SETITEM, pickle.SETITEMS,
            pickle.BININT, pickle.BININT1, pickle.BININT2, pickle.LONG1, pickle.BINFLOAT,
            pickle.NONE, pickle.NEWTRUE, pickle.NEWFALSE, pickle.BINUNICODE,
            pickle.SHORT_BINUNICODE, pickle.SHORT_BINSTRING, pickle.BINGET, pickle.LONG_BINGET,
            pickle.BINPUT, pickle.LONG_BINPUT, pickle.MEMOIZE, pickle.GLOBAL, pickle.STACK_GLOBAL,
            pickle.REDUCE, pickle.BUILD, pickle.BINPERSID, pickle.NEWOBJ]


class _RestrictedUnpickler(pickle._Unpickler):
    """Python's pickle machine with only the opcodes a weights-only checkpoint needs."""

    dispatch = {op[0]: pickle._Unpickler.dispatch[op[0]] for op in _OPCODES}

    def __init__(self, data, fail):
        super().__init__(io.BytesIO(data))
        self.fail = fail
        self.storages = {}
        self.allowed = None  # read on the first global PyTorch does not admit by default, as PyTorch does

    def find_class(self, module, name):
        qualified = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise _blocked_module_refusal(module, qualified)
        admitted = _ADMITTED.get(qualified)
        if admitted is not None:
            return admitted
        if self.allowed is None:
            try:
                self.allowed = user_allowed_globals()
            except (TypeError, ValueError) as error:  # a malformed allowlist entry: the program's error
                raise RaisedWhileUnpickling(error) from None
        if qualified in self.allowed:
            return _UserGlobal(self.allowed[qualified])
        # a whole model (torch.save(model)), or any other code: never imported
        raise _weights_only_refusal(qualified.removeprefix("builtins."))

    def persistent_load(self, pid):
        if (type(pid) is not tuple or len(pid) != 5 or pid[0] != "storage"
                or not isinstance(pid[1], _Global) or pid[1].name[6:] not in _STORAGE_DTYPES
                or type(pid[2]) is not str or type(pid[3]) is not str or type(pid[4]) is not int
                or pid[4] < 0):
            self.fail(f"data.pkl holds a malformed storage reference {pid!r:.200}")
        storage = _Storage(pid[2], _STORAGE_DTYPES[pid[1].name[6:]], pid[3], pid[4])
        known = self.storages.setdefault(storage.key, storage)
        if (known.dtype_name, known.numel) != (storage.dtype_name, storage.numel):
            self.fail(f"storage '{storage.key}' is described twice, differently")
        return known

    def load_empty_dictionary(self):
        self.append(_Pairs(ordered=False))

    def load_reduce(self):
        args = self.stack.pop()
        target = self.stack[-1]
        if type(target) is _UserGlobal and type(args) is tuple:
            self.stack[-1] = _Construct(target, args, new=False)
            return
        if not isinstance(target, _Global) or type(args) is not tuple:
            self.fail("data.pkl calls something other than an admitted PyTorch function")
        if target is _ORDERED_DICT:
            if args:
                self.fail("OrderedDict is rebuilt with arguments")
            self.stack[-1] = _Pairs(ordered=True)
        elif target in (_REBUILD_TENSOR, _REBUILD_TENSOR_V2):
            if len(args) < 4 or not isinstance(args[0], _Storage):
                self.fail("a tensor rebuild call has malformed arguments")
            requires_grad = args[4] if target is _REBUILD_TENSOR_V2 and len(args) > 4 else False
            self.stack[-1] = _TensorRecord(args[0], args[1], args[2], args[3], requires_grad)
        elif target is _REBUILD_PARAMETER:
            if len(args) != 3 or not isinstance(args[0], _TensorRecord) or args[0].parameter:
                self.fail("a parameter rebuild call has malformed arguments")
            record = args[0]
            record.parameter, record.requires_grad = True, args[1]
            self.stack[-1] = record
        else:  # torch.Size(...) and torch.device(...) are checked once everything is read
            self.stack[-1] = _Call(target, args)

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        if type(cls) is not _UserGlobal or type(args) is not tuple:
            self.fail("data.pkl creates an object of a class that is not allowlisted (add_safe_globals)")
        self.append(_Construct(cls, args, new=True))

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        if type(inst) is _Construct:
            inst.states.append(state)
        elif isinstance(inst, _Pairs) and inst.ordered and isinstance(state, _Pairs) \
                and [k for k, _ in state.pairs] == ["_metadata"] and inst.metadata is None:
            inst.metadata = state.pairs[0][1]
        else:
            self.fail("data.pkl sets attributes on an object; a weights-only load admits only "
                      "a state_dict's _metadata")

    dispatch[pickle.EMPTY_DICT[0]] = load_empty_dictionary
    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.BUILD[0]] = load_build
    dispatch[pickle.NEWOBJ[0]] = load_newobj


class _Builder:
    """Turns the unpickled records into nnref objects, reading each storage once."""

    def __init__(self, archive, prefix, byteorder, map_location, fail):
        self.archive, self.prefix, self.map_location, self.fail = archive, prefix, map_location, fail
        self.byteorder = byteorder
        self.done = {}  # id(record) -> object: shared records stay shared, and are built once
        self.arrays = {}
        self.claimed = set()

    def build(self, node, depth=0):
        if depth > MAX_NESTING:
            self.fail(f"the object is nested more than {MAX_NESTING} levels deep (limit: "
                      "MAX_NESTING)")
        if node is None or type(node) in (bool, int, float, str):
            return node
        if id(node) in self.done:
            return self.done[id(node)]
        if type(node) is _Pairs:
            result = build_mapping([(self.build(k, depth + 1), self.build(v, depth + 1))
                                    for k, v in node.pairs], node.ordered, self.fail)
            if node.metadata is not None:
                result._metadata = self.build(node.metadata, depth + 1)
        elif type(node) is list:
            result = [self.build(v, depth + 1) for v in node]
        elif type(node) is tuple:
            result = tuple(self.build(v, depth + 1) for v in node)
        elif type(node) is _TensorRecord:
            result = self.tensor(node)
        elif type(node) is _Call:
            result = self.call(node)
        elif type(node) is _Construct:
            result = self.construct(node, depth)
        elif type(node) is _UserGlobal:
            result = node.obj
        elif type(node) is _Global and node.name[6:] in _TORCH_DTYPE_NAMES:
            if node.name[6:] not in _DTYPES:
                self.fail(f"holds the dtype {node.name}, which nnref does not have")
            result = _DTYPES[node.name[6:]]
        else:
            self.fail(f"holds a {type(node).__name__ if not isinstance(node, _Global) else node.name}"
                      " where a value should be")
        self.done[id(node)] = result
        return result

    def construct(self, node, depth):
        """Run the allowlisted global as PyTorch's weights-only unpickler runs it: ``cls.__new__``
        or a call, then each state through ``__setstate__`` or into ``__dict__`` and slots."""
        target = node.target.obj
        args = self.build(node.args, depth + 1)
        try:
            result = target.__new__(target, *args) if node.new else target(*args)
            self.done[id(node)] = result  # before its state, which may refer back to it
            for state in node.states:
                state = self.build(state, depth + 1)
                if hasattr(result, "__setstate__"):
                    result.__setstate__(state)
                    continue
                slotstate = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slotstate = state
                if state:
                    result.__dict__.update(state)
                if slotstate:
                    for key, value in slotstate.items():
                        setattr(result, key, value)
        except CheckpointError:
            raise
        except Exception as error:  # raised by the allowlisted code: PyTorch lets it through
            raise RaisedWhileUnpickling(error) from None
        return result

    def call(self, node):
        if node.target is _TORCH_SIZE and len(node.args) == 1 and type(node.args[0]) is tuple \
                and all(type(s) is int and s >= 0 for s in node.args[0]):
            return Size(node.args[0])
        if node.target is _TORCH_DEVICE and 1 <= len(node.args) <= 2 \
                and all(type(a) in (str, int) for a in node.args):
            try:
                return Device(*node.args)
            except RuntimeError:
                pass
        self.fail(f"a call to {node.target.name} has malformed arguments")

    def tensor(self, record):
        dtype = _DTYPES.get(record.storage.dtype_name)
        if dtype is None:
            self.fail(f"holds a torch.{record.storage.dtype_name} tensor; nnref has no such dtype")
        size, stride, offset = record.size, record.stride, record.offset
        if (type(size) is not tuple or type(stride) is not tuple or len(size) != len(stride)
                or len(size) > _MAX_DIMS or type(offset) is not int or offset < 0
                or not all(type(n) is int and n >= 0 for n in size + stride)
                or type(record.requires_grad) is not bool):
            self.fail(f"a tensor has a malformed size {size!r:.100}, stride {stride!r:.100} or "
                      "offset")
        if record.requires_grad and not dtype.is_floating_point:
            self.fail(f"a {dtype.name} tensor cannot require grad")
        try:
            saved_device = Device(record.storage.location)
        except RuntimeError:
            self.fail(f"unknown device {record.storage.location!r}")
        storage = self.storage(record.storage, dtype)
        count = math.prod(size)
        if count and offset + sum((n - 1) * s for n, s in zip(size, stride)) >= storage.size:
            self.fail(f"a tensor of size {list(size)} reaches past the end of its storage "
                      f"'{record.storage.key}' ({storage.size} elements)")
        contiguous = tuple(int(np.prod(size[i + 1:])) for i in range(len(size)))
        if (offset == 0 and count == storage.size and (stride == contiguous or count <= 1)
                and record.storage.key not in self.claimed):
            self.claimed.add(record.storage.key)  # the tensor owns its storage: no copy
            array = storage.reshape(size)
        else:  # a view of a shared storage: loaded as a copy of its own
            array = np.lib.stride_tricks.as_strided(
                storage[offset:], shape=size, strides=[s * dtype.itemsize for s in stride],
                writeable=False).copy() if count else np.empty(size, dtype.numpy)
        return place(array, saved_device, self.map_location, self.fail, record.requires_grad,
                     record.parameter)

    def storage(self, storage, dtype):
        array = self.arrays.get(storage.key)
        if array is None:
            name = f"{self.prefix}data/{storage.key}"
            nbytes = storage.numel * dtype.itemsize
            if self.archive.size_of(name) != nbytes:
                self.fail(f"storage '{storage.key}' of {storage.numel} {dtype.name} elements needs "
                          f"{nbytes} bytes, but its entry holds {self.archive.size_of(name)}")
            array = np.empty(storage.numel, dtype.numpy)
            self.archive.read_into(name, memoryview(array.view(np.uint8)))
            if self.byteorder != sys.byteorder:
                array = array.byteswap()
            self.arrays[storage.key] = array
        return array


# The opcodes PyTorch's static scan of a checkpoint walks past (``get_globals_in_pkl``).
_SCANNED = frozenset(op[0] for op in _OPCODES if op not in (pickle.FRAME, pickle.MEMOIZE, pickle.STACK_GLOBAL,
                                                           pickle.SHORT_BINUNICODE)) | {
    pickle.EMPTY_SET[0], pickle.LONG1[0], pickle.SHORT_BINSTRING[0]}


def unsafe_globals(archive, prefix):
    """The globals ``data.pkl`` names that a weights-only load would refuse (neither admitted nor
    allowlisted), read without unpickling: ``pickletools`` walks the opcodes, as PyTorch's
    ``get_globals_in_pkl`` reads them."""
    import pickletools
    data = archive.read(f"{prefix}data.pkl", limit=_MAX_PICKLE_BYTES)
    named = set()
    for opcode, argument, _ in pickletools.genops(data):
        if opcode.code.encode("latin-1")[0] not in _SCANNED:
            raise pickle.UnpicklingError(f"Unsupported operand {opcode.code.encode('latin-1')[0]}")
        if opcode.name == "GLOBAL":
            named.add(argument.replace(" ", "."))
        if opcode.name == "STOP":
            break
    return list(named - set(_ADMITTED) - set(user_allowed_globals()))


def byteorder_of(archive, prefix, fail):
    """The byte order of a ``torch.save`` zip archive's storages."""
    byteorder = "little"  # files from PyTorch < 1.10 have no byteorder entry, and are little-endian
    if f"{prefix}byteorder" in archive.names:
        byteorder = archive.read(f"{prefix}byteorder", limit=16).decode("ascii", "replace")
        if byteorder not in ("little", "big"):
            fail(f"unknown byte order {byteorder!r}")
    return byteorder


def read_torch_zip(archive, prefix, map_location, fail):
    """The object in a ``torch.save`` zip archive, rebuilt as nnref objects: weights only
    (``load(f, weights_only=False)`` unpickles whatever it holds: ``_pickled_checkpoint.py``)."""
    builder = _Builder(archive, prefix, byteorder_of(archive, prefix, fail), map_location, fail)
    data = archive.read(f"{prefix}data.pkl", limit=_MAX_PICKLE_BYTES)
    unpickler = _RestrictedUnpickler(data, fail)
    try:
        records = unpickler.load()
    except WeightsOnlyUnpicklingError:
        raise
    except (pickle.UnpicklingError, EOFError, KeyError, IndexError, TypeError, ValueError,
            AttributeError, struct.error, UnicodeDecodeError) as exc:
        fail(f"data.pkl is not a weights-only pickle ({type(exc).__name__}: {exc})")
    return builder.build(records)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

class _TorchPickler:
    """Writes the pickle ``torch.save`` would write for tensors, containers and plain values."""

    def __init__(self):
        self.out = io.BytesIO()
        self.memo = {}  # id(tensor) -> memo index, so a tensor saved twice loads as one
        self.tensors = []

    def dump(self, obj):
        self.out.write(pickle.PROTO + b"\x02")
        self.save(obj, 0)
        self.out.write(pickle.STOP)
        return self.out.getvalue()

    def global_(self, module, name):
        self.out.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())

    def save(self, obj, depth):
        if depth > MAX_NESTING:
            raise ValueError(f"nnref.save: the object is nested more than {MAX_NESTING} levels "
                             "deep (or contains itself)")
        write = self.out.write
        if obj is None:
            write(pickle.NONE)
        elif obj is True or obj is False:
            write(pickle.NEWTRUE if obj else pickle.NEWFALSE)
        elif type(obj) is int or isinstance(obj, np.integer):
            value = int(obj)
            if -2**31 <= value < 2**31:
                write(pickle.BININT + struct.pack("<i", value))
            else:
                encoded = pickle.encode_long(value)
                if len(encoded) > 255:
                    raise ValueError("nnref.save(format='torch'): an integer too large for LONG1")
                write(pickle.LONG1 + bytes([len(encoded)]) + encoded)
        elif type(obj) is float or isinstance(obj, np.floating):
            write(pickle.BINFLOAT + struct.pack(">d", float(obj)))
        elif type(obj) is str:
            encoded = obj.encode("utf-8", "surrogatepass")
            write(pickle.BINUNICODE + struct.pack("<I", len(encoded)) + encoded)
        elif isinstance(obj, Tensor):
            self.tensor(obj)
        elif type(obj) is Size:
            self.global_("torch", "Size")
            self.save(tuple(int(n) for n in obj), depth + 1)
            write(pickle.TUPLE1 + pickle.REDUCE)
        elif type(obj) is tuple:
            write(pickle.MARK)
            for item in obj:
                self.save(item, depth + 1)
            write(pickle.TUPLE)
        elif type(obj) is list:
            write(pickle.EMPTY_LIST + pickle.MARK)
            for item in obj:
                self.save(item, depth + 1)
            write(pickle.APPENDS)
        elif type(obj) in (dict, OrderedDict):
            if type(obj) is dict:
                write(pickle.EMPTY_DICT)
            else:
                self.global_("collections", "OrderedDict")
                write(pickle.EMPTY_TUPLE + pickle.REDUCE)
            write(pickle.MARK)
            for key, value in obj.items():
                if not (key is None or type(key) in (str, int, float, bool, tuple)):
                    raise TypeError(f"nnref.save: dict keys must be strings, numbers, bools, None "
                                    f"or tuples, not {type(key).__qualname__}")
                self.save(key, depth + 1)
                self.save(value, depth + 1)
            write(pickle.SETITEMS)
            metadata = getattr(obj, "_metadata", None)
            if type(obj) is OrderedDict and metadata is not None:
                write(pickle.EMPTY_DICT)
                self.save("_metadata", depth + 1)
                self.save(metadata, depth + 1)
                write(pickle.SETITEM + pickle.BUILD)
        elif isinstance(obj, _dtype.dtype):
            self.global_("torch", obj.name)
        elif isinstance(obj, Device):
            self.global_("torch", "device")
            self.save(str(obj), depth + 1)
            write(pickle.TUPLE1 + pickle.REDUCE)
        else:
            raise unsupported_type(obj)

    def tensor(self, t):
        from .nn.parameter import Parameter
        write = self.out.write
        if id(t) in self.memo:
            write(pickle.LONG_BINGET + struct.pack("<I", self.memo[id(t)]))
            return
        if isinstance(t, Parameter):
            self.global_("torch._utils", "_rebuild_parameter")
            write(pickle.MARK)
        key = str(len(self.tensors))
        self.tensors.append(t)
        self.global_("torch._utils", "_rebuild_tensor_v2")
        write(pickle.MARK + pickle.MARK + pickle.BINUNICODE + struct.pack("<I", 7) + b"storage")
        self.global_("torch", _STORAGE_OF[t._dtype.name])
        self.save(key, 0)
        self.save(str(t._device) if t._device.type == "cpu" else "cuda:0", 0)
        self.save(t.numel(), 0)
        write(pickle.TUPLE + pickle.BINPERSID)
        shape = tuple(t.shape)
        self.save(0, 0)
        self.save(shape, 0)
        self.save(tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape))), 0)
        write(pickle.NEWTRUE if t.requires_grad and not isinstance(t, Parameter)
              else pickle.NEWFALSE)
        self.global_("collections", "OrderedDict")
        write(pickle.EMPTY_TUPLE + pickle.REDUCE + pickle.TUPLE + pickle.REDUCE)
        if isinstance(t, Parameter):
            write(pickle.NEWTRUE if t.requires_grad else pickle.NEWFALSE)
            self.global_("collections", "OrderedDict")
            write(pickle.EMPTY_TUPLE + pickle.REDUCE + pickle.TUPLE + pickle.REDUCE)
        self.memo[id(t)] = len(self.memo)
        write(pickle.LONG_BINPUT + struct.pack("<I", self.memo[id(t)]))


def write_torch_zip(stream, obj, archive_name="archive"):
    """Write ``obj`` as ``torch.save(obj, stream)`` would (zip format, storages 64-byte aligned)."""
    pickler = _TorchPickler()
    data = pickler.dump(obj)
    p = archive_name + "/"
    entries = [(p + "data.pkl", data), (p + ".format_version", b"1"),
               (p + ".storage_alignment", b"64"), (p + "byteorder", b"little")]
    entries += [(f"{p}data/{i}", t) for i, t in enumerate(pickler.tensors)]
    entries += [(p + "version", b"3\n")]
    write_zip(stream, entries, align=64)

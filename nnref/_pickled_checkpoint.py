"""Whole objects in PyTorch's checkpoint format: ``save(model, f)`` and ``load(f, weights_only=False)``.

``torch.save(model, path)`` pickles the model object itself into the zip archive
(``<name>/data.pkl``), its tensors' bytes beside it as ``<name>/data/<key>`` entries, each
tensor a ``torch._utils._rebuild_tensor_v2(storage, ...)`` call on a persistent storage id,
exactly as for a ``state_dict`` (``torch/serialization.py``, ``_save``).  Since PyTorch 2.6,
``torch.load`` refuses such a file by default: its ``weights_only=True`` unpickler admits no
class, and the error says to pass ``weights_only=False`` *only for a file from a trusted source*,
because unpickling runs whatever code the file names.  nnref does the same: ``nnref.save``
writes this layout for any object its value formats cannot hold (a module, an optimizer, a
class of the program's), the weights-only loader (``_torch_checkpoint.py``) refuses it with
PyTorch's message, and ``load(f, weights_only=False)`` unpickles it here with Python's
unpickler, which imports and calls what the file names.

The pickle names nnref's classes (``nnref.nn.modules.linear.Linear``) and a program's own
(``__main__.Net``), so it loads back into nnref; PyTorch cannot rebuild nnref's objects, and
nnref cannot rebuild PyTorch's: a whole-model file written by PyTorch is refused here with the
``state_dict`` recipe.  Tensors are written as ``torch.save`` writes them (each one its own
storage, C-contiguous), so the tensor records are PyTorch's.
"""
from collections import OrderedDict
import importlib
import io
import pickle

import numpy as np

from .core._tensor import Size, Tensor
from ._torch_checkpoint import (_MAX_PICKLE_BYTES, _STORAGE_DTYPES, _STORAGE_OF, _TORCH_DTYPE_NAMES, _Builder,
                                _Storage, _TensorRecord, byteorder_of)
from ._checkpoint_io import CheckpointError, RaisedWhileUnpickling, write_zip

__all__ = ["holds_objects", "read_pickled_zip", "write_pickled_zip"]

def holds_objects(obj, depth=0):
    """True when ``obj`` holds something other than the values nnref's own format stores
    (tensors, numbers (numpy's scalars too), strings, None, dtypes, devices, and
    lists/tuples/dicts of them): what ``serialization._Encoder`` accepts."""
    from .core._device import device
    from .core._dtype import dtype
    if (obj is None or isinstance(obj, (Tensor, dtype, device, bool, str, np.integer, np.floating))
            or type(obj) in (int, float, Size) or depth > 200):  # (deeper: the encoder's nesting error)
        return False
    if type(obj) in (list, tuple):
        return any(holds_objects(item, depth + 1) for item in obj)
    if type(obj) in (dict, OrderedDict):
        return any(holds_objects(k, depth + 1) or holds_objects(v, depth + 1) for k, v in obj.items())
    return True


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

class _TorchGlobal:
    """A PyTorch function or class the pickle names (``torch._utils._rebuild_tensor_v2``), written
    as a GLOBAL opcode without importing PyTorch; never called while writing."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):
        raise TypeError(f"{self.module}.{self.name} is only a name in a pickle")

    def __reduce__(self):
        return self.name  # pickle then calls save_global, which _Pickler writes by name


_REBUILD_TENSOR_V2 = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _TorchGlobal("torch._utils", "_rebuild_parameter")
_STORAGE_CLASSES = {dtype: _TorchGlobal("torch", storage) for dtype, storage in _STORAGE_OF.items()}


class _StorageRef:
    """One tensor's bytes, written as the persistent id ``('storage', torch.FloatStorage, key,
    location, numel)`` and the archive entry ``data/<key>``."""

    def __init__(self, key, tensor):
        self.key, self.tensor = key, tensor


def _public_module_of(obj):
    """``'nnref.nn.modules.container'`` for a class of the teaching core (``nnref.core.nn.modules.
    container.Sequential``) that the public module re-exports, else None: a checkpoint names the
    public path, which stays where it is wherever the core keeps the class."""
    module = getattr(obj, "__module__", None) or ""
    if not module.startswith("nnref.core."):
        return None
    public = "nnref." + module[len("nnref.core."):]
    try:
        found = getattr(importlib.import_module(public), obj.__qualname__, None)
    except ImportError:
        return None
    return public if found is obj else None


class _Pickler(pickle._Pickler):
    """Python's pickler (the pure-Python one, whose ``save_global`` can write PyTorch's names)
    with tensors reduced as ``Tensor.__reduce_ex__`` reduces them in PyTorch."""

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.tensors = []

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            t = obj.tensor
            location = str(t._device) if t._device.type == "cpu" else "cuda:0"
            return ("storage", _STORAGE_CLASSES[t._dtype.name], obj.key, location, t.numel())
        return None

    def save_global(self, obj, name=None):
        if type(obj) is _TorchGlobal:
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            self.memoize(obj)
            return
        public = _public_module_of(obj)
        if public is not None:
            self.write(pickle.GLOBAL + f"{public}\n{obj.__qualname__}\n".encode())
            self.memoize(obj)
            return
        super().save_global(obj, name)

    def reducer_override(self, obj):
        from .nn.modules.module import Module
        from .optim.optimizer import Optimizer
        if isinstance(obj, (Module, Optimizer)):
            # their __reduce_ex__ refuses a bare pickle.dump; inside the archive they pickle as
            # PyTorch's do: the class by name, then the state (__getstate__ or __dict__)
            return object.__reduce_ex__(obj, 2)
        if not isinstance(obj, Tensor):
            return NotImplemented
        from .nn.parameter import Parameter, is_lazy
        if is_lazy(obj):
            raise pickle.PicklingError("cannot save an uninitialized parameter: run the model's forward "
                                       "once (or materialize it) before saving")
        if isinstance(obj, Parameter):
            plain = obj.detach()
            return _REBUILD_PARAMETER, (plain, obj.requires_grad, OrderedDict())
        if obj._dtype.name not in _STORAGE_CLASSES:
            raise pickle.PicklingError(f"PyTorch's checkpoint format has no storage for {obj._dtype}")
        key = str(len(self.tensors))
        self.tensors.append(obj)
        shape = tuple(obj.shape)
        stride = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
        return _REBUILD_TENSOR_V2, (_StorageRef(key, obj), 0, shape, stride, obj.requires_grad, OrderedDict())


def write_pickled_zip(stream, obj, archive_name="archive"):
    """Write ``obj`` as ``torch.save(obj, stream)`` does: a pickle of the object in the zip, the
    tensors' bytes beside it, 64-byte aligned."""
    out = io.BytesIO()
    pickler = _Pickler(out)
    pickler.dump(obj)
    p = archive_name + "/"
    entries = [(p + "data.pkl", out.getvalue()), (p + ".format_version", b"1"),
               (p + ".storage_alignment", b"64"), (p + "byteorder", b"little")]
    entries += [(f"{p}data/{i}", t) for i, t in enumerate(pickler.tensors)]
    entries += [(p + "version", b"3\n")]
    write_zip(stream, entries, align=64)


# --------------------------------------------------------------------------------------------
# Reading (weights_only=False: this runs the code the file names)
# --------------------------------------------------------------------------------------------

class _Unpickler(pickle.Unpickler):
    """Python's unpickler, with PyTorch's tensor functions and storages answered by nnref."""

    def __init__(self, data, builder, fail):
        super().__init__(io.BytesIO(data))
        self.builder, self.fail = builder, fail

    def find_class(self, module, name):
        from .core import _dtype
        from .core._device import device
        qualified = f"{module}.{name}"
        if qualified in ("torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor"):
            return self.rebuild_tensor
        if qualified == "torch._utils._rebuild_parameter":
            return self.rebuild_parameter
        if module == "torch" and name in _STORAGE_DTYPES:
            return _STORAGE_CLASSES[_STORAGE_DTYPES[name]]
        if module == "torch" and name in _TORCH_DTYPE_NAMES and hasattr(_dtype, name):
            return getattr(_dtype, name)
        if qualified == "torch.Size":
            return Size
        if qualified == "torch.device":
            return device
        if module == "torch" or module.startswith("torch."):
            self.fail(f"data.pkl names {qualified}, an object of PyTorch itself: this is a whole model "
                      "saved by PyTorch, and nnref cannot rebuild PyTorch's objects. In PyTorch, save its "
                      "values with torch.save(model.state_dict(), path); build the model with nnref and "
                      "load them with model.load_state_dict(nnref.load(path))")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if (type(pid) is not tuple or len(pid) != 5 or pid[0] != "storage" or type(pid[1]) is not _TorchGlobal
                or type(pid[2]) is not str or type(pid[3]) is not str or type(pid[4]) is not int):
            self.fail(f"data.pkl holds a malformed storage reference {pid!r:.200}")
        return _Storage(pid[2], _STORAGE_DTYPES[pid[1].name], pid[3], pid[4])

    def rebuild_tensor(self, storage, offset, size, stride, requires_grad=False, *hooks_and_metadata):
        return self.builder.tensor(_TensorRecord(storage, offset, tuple(size), tuple(stride), requires_grad))

    def rebuild_parameter(self, data, requires_grad, backward_hooks):
        from .nn.parameter import Parameter
        return Parameter(data, requires_grad=requires_grad)


def read_pickled_zip(archive, prefix, map_location, fail):
    """The object a ``torch.save`` archive pickles, unpickled: ``load(f, weights_only=False)``."""
    builder = _Builder(archive, prefix, byteorder_of(archive, prefix, fail), map_location, fail)
    data = archive.read(f"{prefix}data.pkl", limit=_MAX_PICKLE_BYTES)
    try:
        return _Unpickler(data, builder, fail).load()
    except CheckpointError:
        raise
    except Exception as error:  # raised by the file's own code (a class the program lacks, ...)
        raise RaisedWhileUnpickling(error) from error


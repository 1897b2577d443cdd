"""``nnref.save`` / ``nnref.load``: checkpoints without pickle (``torch/serialization.py``'s role).

``torch.save`` pickles, and unpickling a file can run any code it names.  An
nnref checkpoint holds only data, so loading a file from anywhere is safe:

Format (version 1)
------------------
A ZIP archive whose entries are all *stored* (uncompressed):

``nnref_checkpoint/manifest.json``
    UTF-8 JSON object::

        {"format": "nnref-checkpoint", "version": 1, "byteorder": "little",
         "tensors": [{"dtype": "float32", "shape": [64, 10], "device": "cpu",
                      "requires_grad": false, "parameter": false}, ...],
         "object": <value>}

``nnref_checkpoint/tensors/<i>``
    The raw bytes of tensor ``i``: C order, little-endian, exactly
    ``prod(shape) * itemsize`` bytes (dtypes: float16, bfloat16, float32,
    float64, int32, int64, bool).

``<value>`` encodes the saved object.  ``null``, ``true``/``false``, numbers
and strings stand for themselves (floats keep every bit: JSON gets their
shortest exact repr, and ``NaN``/``Infinity`` as Python's json writes them);
everything else is a one-key object::

    {"tensor": i}                       tensor i of the table (one entry per tensor object,
                                        so a tensor saved twice loads as one object)
    {"list": [v, ...]}   {"tuple": [v, ...]}   {"size": [n, ...]}
    {"dict": [[k, v], ...]}   {"odict": [[k, v], ...], "metadata": v}
                                        keys are values too (optimizer state uses int keys);
                                        "metadata" is a state_dict's ``_metadata``
    {"dtype": "float32"}   {"device": "cpu"}

Writing is atomic: the archive goes to a temporary file in the target's
directory, is flushed and fsync'ed, then ``os.replace``\\ s the target, so a
crash leaves either the old checkpoint or the new one, never half of one.

Reading trusts nothing: any archive that is truncated, corrupted (ZIP CRCs
cover every entry), foreign (e.g. a pickle-based ``torch.save`` file) or
crafted (compressed entries, sizes beyond the file's own size, shapes that do
not match the byte count, unknown dtypes, nesting deeper than
``MAX_NESTING``) raises :class:`CheckpointError`, naming the file and the
problem.  What nnref does not keep: storage sharing between *different*
tensor objects (views are saved as separate copies), autograd history (a
tensor that requires grad loads as a leaf that requires grad, as in
PyTorch), and types outside the list above (saving one raises ``TypeError``).
"""
from collections import OrderedDict
import io
import json
import math
import numbers
import os
import sys
import tempfile
import zipfile

import numpy as np

from . import _dtype
from ._device import CPU, device as Device
from ._device import to_host
from ._tensor import Size, Tensor

__all__ = ["save", "load", "CheckpointError", "FORMAT_VERSION", "MAX_NESTING"]

FORMAT_NAME = "nnref-checkpoint"
FORMAT_VERSION = 1
MAX_NESTING = 200
_MAX_DIMS = 64
_PREFIX = "nnref_checkpoint/"
_MANIFEST = _PREFIX + "manifest.json"
_DTYPES = {d.name: d for d in _dtype.ALL_DTYPES}
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # identical objects give byte-identical files


class CheckpointError(RuntimeError):
    """The file is not a readable nnref checkpoint (truncated, corrupted, foreign or malformed)."""


# --------------------------------------------------------------------------------------------
# Saving
# --------------------------------------------------------------------------------------------

class _Encoder:
    """Turns the object into the JSON ``<value>`` and collects its tensors."""

    def __init__(self):
        self.tensors = []
        self.index_of = {}

    def encode(self, obj, depth=0):
        if depth > MAX_NESTING:
            raise ValueError(f"nnref.save: the object is nested more than {MAX_NESTING} levels deep "
                             "(or contains itself)")
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, Tensor):
            return {"tensor": self._tensor_index(obj)}
        if type(obj) in (int, float):
            return obj
        if isinstance(obj, (np.integer, np.floating)):
            return obj.item()
        if type(obj) is Size:
            return {"size": [int(s) for s in obj]}
        if type(obj) in (list, tuple):
            return {type(obj).__name__: [self.encode(v, depth + 1) for v in obj]}
        if type(obj) in (dict, OrderedDict):
            tag = "dict" if type(obj) is dict else "odict"
            encoded = {tag: [[self._key(k, depth), self.encode(v, depth + 1)]
                             for k, v in obj.items()]}
            metadata = getattr(obj, "_metadata", None)
            if metadata is not None:
                encoded["metadata"] = self.encode(metadata, depth + 1)
            return encoded
        if isinstance(obj, _dtype.dtype):
            return {"dtype": obj.name}
        if isinstance(obj, Device):
            return {"device": str(obj)}
        raise TypeError(f"nnref.save cannot store an object of type {type(obj).__module__}."
                        f"{type(obj).__qualname__}; it stores tensors, numbers, strings, bools, "
                        "None, dtypes, devices, and lists/tuples/dicts/OrderedDicts of them")

    def _key(self, key, depth):
        if key is None or isinstance(key, (bool, str, numbers.Number)) or type(key) is tuple:
            return self.encode(key, depth + 1)
        raise TypeError(f"nnref.save: dict keys must be strings, numbers, bools, None or tuples, "
                        f"not {type(key).__qualname__}")

    def _tensor_index(self, t):
        index = self.index_of.get(id(t))
        if index is None:
            index = self.index_of[id(t)] = len(self.tensors)
            self.tensors.append(t)
        return index


def _tensor_entry(t):
    from .nn.parameter import Parameter
    return {"dtype": t._dtype.name, "shape": list(t._data.shape), "device": str(t._device),
            "requires_grad": bool(t.requires_grad),
            "parameter": isinstance(t, Parameter)}


def _little_endian_bytes(t):
    """The tensor's values as a flat byte array, C order, little-endian (no copy when possible)."""
    array = np.ascontiguousarray(to_host(t._data))
    if sys.byteorder != "little":
        array = array.byteswap()
    return array.reshape(-1).view(np.uint8)


def _write_archive(stream, manifest, tensors):
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        info = zipfile.ZipInfo(_MANIFEST, date_time=_FIXED_TIME)
        archive.writestr(info, json.dumps(manifest, separators=(",", ":")).encode("utf-8"))
        for i, t in enumerate(tensors):
            data = _little_endian_bytes(t)
            info = zipfile.ZipInfo(f"{_PREFIX}tensors/{i}", date_time=_FIXED_TIME)
            with archive.open(info, "w", force_zip64=data.nbytes >= 2**31) as entry:
                entry.write(memoryview(data))


def _default_file_mode():
    """The mode ``open()`` would give a new file (0o666 minus the umask); mkstemp uses 0o600."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def save(obj, f):
    """Write ``obj`` (tensors, numbers, strings and containers of them) to the path or file ``f``.

    A path is replaced atomically; an open binary file object is written as is.
    """
    encoder = _Encoder()
    manifest = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "byteorder": "little",
                "tensors": None, "object": encoder.encode(obj)}
    manifest["tensors"] = [_tensor_entry(t) for t in encoder.tensors]
    if hasattr(f, "write"):
        _write_archive(f, manifest, encoder.tensors)
        return
    path = os.path.realpath(os.fspath(f))  # through a symlink: replace its target, keep the link
    directory = os.path.dirname(path)
    mode = os.stat(path).st_mode & 0o7777 if os.path.exists(path) else _default_file_mode()
    fd, temporary = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                                     suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as stream:
            _write_archive(stream, manifest, encoder.tensors)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    _fsync_directory(directory)


def _fsync_directory(directory):
    """Make the rename itself durable (POSIX); not possible, and not needed, everywhere."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------

class _Reader:
    """Validates the archive and rebuilds the object; every problem becomes a CheckpointError."""

    def __init__(self, archive, archive_size, name, map_location):
        self.archive = archive
        self.archive_size = archive_size
        self.name = name
        self.map_location = map_location
        self.loaded = {}

    def fail(self, problem):
        raise CheckpointError(f"{self.name}: {problem}")

    def entry(self, name):
        try:
            info = self.archive.getinfo(name)
        except KeyError:
            self.fail(f"the archive has no entry '{name}'")
        if info.compress_type != zipfile.ZIP_STORED:
            self.fail(f"entry '{name}' is compressed; nnref checkpoints store entries uncompressed")
        if info.file_size > self.archive_size:
            self.fail(f"entry '{name}' claims {info.file_size} bytes, more than the whole file "
                      f"({self.archive_size} bytes)")
        return info

    def manifest(self):
        info = self.entry(_MANIFEST)
        with self.archive.open(info) as stream:
            raw = stream.read(info.file_size + 1)
        if len(raw) != info.file_size:
            self.fail("the manifest's size does not match its header")
        try:
            manifest = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            self.fail(f"the manifest is not valid JSON ({type(exc).__name__}: {exc})")
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
            self.fail("the manifest does not describe an nnref checkpoint")
        version = manifest.get("version")
        if type(version) is not int or version != FORMAT_VERSION:
            self.fail(f"unsupported checkpoint format version {version!r} (this nnref reads "
                      f"version {FORMAT_VERSION})")
        if manifest.get("byteorder") != "little":
            self.fail(f"unsupported byte order {manifest.get('byteorder')!r}")
        if not isinstance(manifest.get("tensors"), list) or "object" not in manifest:
            self.fail("the manifest lacks its 'tensors' list or its 'object'")
        if len(manifest["tensors"]) > len(self.archive.infolist()):
            self.fail("the manifest lists more tensors than the archive has entries")
        self.tensor_table = manifest["tensors"]
        return manifest["object"]

    # -- values --------------------------------------------------------------------------------
    def value(self, node, depth=0):
        if depth > MAX_NESTING:
            self.fail(f"the object is nested more than {MAX_NESTING} levels deep")
        if node is None or isinstance(node, (bool, str, int, float)):
            return node
        if not isinstance(node, dict) or not node:
            self.fail(f"unexpected {type(node).__name__} in the object description")
        tag = next(iter(node))
        body = node[tag]
        if tag in ("list", "tuple", "size"):
            if len(node) != 1 or not isinstance(body, list):
                self.fail(f"malformed '{tag}' entry")
            items = [self.value(v, depth + 1) for v in body]
            if tag == "list":
                return items
            if tag == "tuple":
                return tuple(items)
            if not all(type(s) is int and s >= 0 for s in items):
                self.fail("a size holds something other than non-negative integers")
            return Size(items)
        if tag in ("dict", "odict"):
            return self.mapping(node, tag, body, depth)
        if len(node) != 1:
            self.fail(f"malformed '{tag}' entry")
        if tag == "tensor":
            return self.tensor(body)
        if tag == "dtype":
            if not isinstance(body, str) or body not in _DTYPES:
                self.fail(f"unknown dtype {body!r}")
            return _DTYPES[body]
        if tag == "device":
            return self.device(body)
        self.fail(f"unknown entry type {tag!r}")

    def mapping(self, node, tag, body, depth):
        if set(node) - {tag, "metadata"} or not isinstance(body, list):
            self.fail(f"malformed '{tag}' entry")
        result = {} if tag == "dict" else OrderedDict()
        for pair in body:
            if not isinstance(pair, list) or len(pair) != 2:
                self.fail(f"a '{tag}' item is not a [key, value] pair")
            key = self.value(pair[0], depth + 1)
            try:
                hash(key)
            except TypeError:
                self.fail(f"a '{tag}' key of type {type(key).__name__} is not hashable")
            result[key] = self.value(pair[1], depth + 1)
        if "metadata" in node:
            result._metadata = self.value(node["metadata"], depth + 1)
        return result

    def device(self, text):
        if not isinstance(text, str):
            self.fail(f"malformed device {text!r}")
        try:
            return Device(text)
        except RuntimeError:
            self.fail(f"unknown device {text!r}")

    # -- tensors -------------------------------------------------------------------------------
    def tensor(self, index):
        if type(index) is not int or not 0 <= index < len(self.tensor_table):
            self.fail(f"tensor reference {index!r} is not in the tensor table")
        if index not in self.loaded:
            self.loaded[index] = self.read_tensor(index, self.tensor_table[index])
        return self.loaded[index]

    def read_tensor(self, index, meta):
        if not isinstance(meta, dict):
            self.fail(f"tensor {index}: its description is not an object")
        dtype = _DTYPES.get(meta.get("dtype")) if isinstance(meta.get("dtype"), str) else None
        if dtype is None:
            self.fail(f"tensor {index}: unknown dtype {meta.get('dtype')!r}")
        shape = meta.get("shape")
        if (not isinstance(shape, list) or len(shape) > _MAX_DIMS
                or not all(type(s) is int and s >= 0 for s in shape)):
            self.fail(f"tensor {index}: malformed shape {shape!r}")
        requires_grad, parameter = meta.get("requires_grad"), meta.get("parameter")
        if type(requires_grad) is not bool or type(parameter) is not bool:
            self.fail(f"tensor {index}: 'requires_grad' and 'parameter' must be true or false")
        if requires_grad and not dtype.is_floating_point:
            self.fail(f"tensor {index}: a {dtype.name} tensor cannot require grad")
        saved_device = self.device(meta.get("device"))
        nbytes = math.prod(shape) * dtype.itemsize
        info = self.entry(f"{_PREFIX}tensors/{index}")
        if info.file_size != nbytes:
            self.fail(f"tensor {index}: shape {shape} of {dtype.name} needs {nbytes} bytes, but "
                      f"its entry holds {info.file_size}")
        array = np.empty(shape, dtype=dtype.numpy)
        with self.archive.open(info) as stream:
            got = stream.readinto(memoryview(array.reshape(-1).view(np.uint8)))
            if got != nbytes or stream.read(1):
                self.fail(f"tensor {index}: the entry's data does not match its size")
        if sys.byteorder != "little":
            array = array.byteswap()
        return self.make_tensor(array, saved_device, requires_grad, parameter)

    def make_tensor(self, array, saved_device, requires_grad, parameter):
        t = Tensor._make(array, CPU)
        target = _target_device(self.map_location, saved_device)
        if target != CPU:
            try:
                t = t.to(target)
            except RuntimeError as exc:
                self.fail(f"cannot place a tensor on {target} ({exc}); pass map_location='cpu' to "
                          "load it on the CPU")
        if parameter:
            from .nn.parameter import Parameter
            return Parameter(t, requires_grad=requires_grad)
        return t.requires_grad_(requires_grad) if requires_grad else t


def _target_device(map_location, saved):
    """Where a tensor saved on ``saved`` goes: ``map_location`` (a device, string or dict) decides."""
    if map_location is None:
        return saved
    if isinstance(map_location, dict):
        mapped = map_location.get(str(saved), str(saved))
        return mapped if isinstance(mapped, Device) else Device(mapped)
    if isinstance(map_location, (str, Device)):
        return Device(map_location)
    raise TypeError("map_location should be a string, a device, a dict or None, not "
                    f"{type(map_location).__name__}")


def _size_of(f):
    position = f.tell()
    f.seek(0, io.SEEK_END)
    size = f.tell()
    f.seek(position)
    return size


def load(f, map_location=None, weights_only=None, **kwargs):
    """Read an object written by :func:`save` from the path or binary file ``f``.

    ``map_location`` (``'cpu'``, a device, or a dict such as ``{'cuda:0': 'cpu'}``)
    moves tensors as they load.  ``weights_only`` is accepted for PyTorch
    compatibility; nnref loading never runs code, whatever it is.
    A file that is not a valid checkpoint raises :class:`CheckpointError`.
    """
    if kwargs:
        raise TypeError(f"load() got unexpected keyword arguments {sorted(kwargs)}")
    _target_device(map_location, CPU)  # reject a malformed map_location before reading
    if hasattr(f, "read"):
        name = getattr(f, "name", None) or f"<{type(f).__name__}>"
        return _load_from(f, str(name), map_location)
    path = os.fspath(f)
    with open(path, "rb") as stream:
        return _load_from(stream, path, map_location)


def _load_from(stream, name, map_location):
    try:
        size = _size_of(stream)
        with zipfile.ZipFile(stream) as archive:
            reader = _Reader(archive, size, name, map_location)
            return reader.value(reader.manifest())
    except CheckpointError:
        raise
    except Exception as exc:  # zipfile, struct, OS and numpy errors from a damaged archive
        raise CheckpointError(f"{name}: not a readable nnref checkpoint ({type(exc).__name__}: "
                              f"{exc})") from exc

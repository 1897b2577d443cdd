"""``nnref.save`` / ``nnref.load``: checkpoints without pickle (``torch/serialization.py``'s role).

``torch.save`` pickles, and unpickling a file can run any code it names.  An
nnref checkpoint holds only data, so loading a file from anywhere is safe.
``nnref.load`` also reads PyTorch's own zip checkpoints (the weights-only
subset, through a restricted unpickler that admits only PyTorch's tensor
rebuild functions and the classes the program allowlists with
``add_safe_globals``, see ``nnref/_torch_checkpoint.py``) and ``.safetensors``
files (``nnref/utils/safetensors.py``); ``nnref.save(obj, f, format="torch")``
and ``format="safetensors"`` write those formats.

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

Writing a path is atomic: the archive goes to a temporary file
``.<name>.<pid>.<random>.nnref-tmp`` in the target's directory, is flushed and
fsync'ed, then ``os.replace``\\ s the target, so a crash leaves either the old
checkpoint or the new one, never half of one.  The fsync costs little: while
the archive is written, each finished 32 MiB is handed to the disk at once
(Linux's ``sync_file_range``), so by the end only the last piece is in flight.
Every error removes the temporary file, and a later save into the same
directory removes those left by processes that no longer run (a power cut).  A write-protected target raises
``PermissionError``; a FIFO or device is written through, not replaced.

Reading trusts nothing, and its cost is bounded by the file's size: any file
that is truncated, corrupted (ZIP CRCs cover every entry), foreign or crafted
raises :class:`CheckpointError`, naming the file and the problem (and the
limit, when it is one of the limits below).  The archive's entries must be
stored, in order and without overlapping one another, so the bytes that load
never exceed the file's size; shapes must match their bytes; the manifest must
be under ``MAX_MANIFEST_BYTES``; nesting under ``MAX_NESTING``; and no more
than ``MAX_HASH_COLLISIONS`` keys of one dict may share a hash value (keys
crafted to collide would make building the dict quadratic).  Loading imports
nothing: a tensor saved on ``'cuda'`` goes to the GPU only when CuPy is
already in use or ``map_location`` asks for the GPU.

What nnref does not keep: storage sharing between *different* tensor objects
(views are saved as separate copies), autograd history (a tensor that requires
grad loads as a leaf that requires grad, as in PyTorch), and types outside the
list above (saving one raises ``TypeError``; saving a module or an optimizer
says how to save its ``state_dict()`` instead).
"""
from collections import OrderedDict
import contextlib
import io
import json
import math
import numbers
import os
import sys

import numpy as np

from ._checkpoint_io import (MAX_HASH_COLLISIONS, MAX_NESTING, _MAX_DIMS, Archive, CheckpointError,
                             RaisedWhileUnpickling, _marked_safe_globals_set, _save_to_path, build_mapping,
                             place, target_device, unsupported_type, write_zip)
from ._pickled_checkpoint import holds_objects, read_pickled_zip, write_pickled_zip
from ._safetensors import looks_like_safetensors, read_safetensors, write_safetensors
from ._state_transfer import _DTYPES, _not_picklable_message
from ._torch_checkpoint import read_torch_zip, torch_zip_prefix, unsafe_globals, write_torch_zip
from .core import _dtype
from .core._device import CPU, device as Device
from .core._tensor import Size, Tensor, bind

__all__ = ["save", "load", "CheckpointError", "FORMAT_VERSION", "MAX_NESTING",
           "MAX_MANIFEST_BYTES", "MAX_HASH_COLLISIONS", "add_safe_globals", "get_safe_globals",
           "clear_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint"]

FORMAT_NAME = "nnref-checkpoint"
FORMAT_VERSION = 1
FORMATS = ("nnref", "torch", "safetensors")
MAX_MANIFEST_BYTES = 32 * 2**20
_PREFIX = "nnref_checkpoint/"
_MANIFEST = _PREFIX + "manifest.json"


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
        raise unsupported_type(obj)

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


def _write_archive(stream, obj):
    encoder = _Encoder()
    manifest = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "byteorder": "little",
                "tensors": None, "object": encoder.encode(obj)}
    manifest["tensors"] = [_tensor_entry(t) for t in encoder.tensors]
    entries = [(_MANIFEST, json.dumps(manifest, separators=(",", ":")).encode("utf-8"))]
    entries += [(f"{_PREFIX}tensors/{i}", t) for i, t in enumerate(encoder.tensors)]
    write_zip(stream, entries)


def save(obj, f, *, format="nnref"):
    """Write ``obj`` (tensors, numbers, strings and containers of them) to the path or file ``f``.

    ``format`` is ``"nnref"`` (the default, described above), ``"torch"`` (the
    zip that ``torch.save`` writes, which ``torch.load(f, weights_only=True)``
    reads) or ``"safetensors"`` (a flat ``{name: tensor}`` dict, as
    ``safetensors.torch.save_file`` writes).  A path is replaced atomically; an
    open binary file object is written as is.

    An object those value formats cannot hold (a whole model, an optimizer, an
    instance of the program's own class) is pickled into PyTorch's zip layout, as
    ``torch.save(model, path)`` does; ``load`` then refuses it, as ``torch.load``
    does, unless given ``weights_only=False``, which runs the code the file names
    (``nnref/_pickled_checkpoint.py``).
    """
    if format not in FORMATS:
        raise ValueError(f"nnref.save: format must be one of {', '.join(map(repr, FORMATS))}, "
                         f"not {format!r}")
    if format in ("nnref", "torch") and holds_objects(obj):
        # A module, an optimizer, a program's own class: pickled into PyTorch's archive, as
        # torch.save does; load() refuses it unless told weights_only=False.
        write = write_pickled_zip
    elif format == "torch":
        write = write_torch_zip
    elif format == "safetensors":
        write = write_safetensors
    else:
        write = _write_archive
    if hasattr(f, "write"):
        write(f, obj)
        return
    _save_to_path(write, obj, os.fspath(f))


# --------------------------------------------------------------------------------------------
# Loading the nnref format
# --------------------------------------------------------------------------------------------

class _Reader:
    """Validates the manifest and rebuilds the object; every problem becomes a CheckpointError."""

    def __init__(self, archive, name, map_location, fail):
        self.archive = archive
        self.name = name
        self.map_location = map_location
        self.fail = fail
        self.loaded = {}

    def manifest(self):
        raw = self.archive.read(_MANIFEST, limit=MAX_MANIFEST_BYTES)
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
        if len(manifest["tensors"]) > len(self.archive.names):
            self.fail("the manifest lists more tensors than the archive has entries")
        self.tensor_table = manifest["tensors"]
        return manifest["object"]

    # -- values --------------------------------------------------------------------------------
    def value(self, node, depth=0):
        if depth > MAX_NESTING:
            self.fail(f"the object is nested more than {MAX_NESTING} levels deep (limit: "
                      "MAX_NESTING)")
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
        pairs = []
        for pair in body:
            if not isinstance(pair, list) or len(pair) != 2:
                self.fail(f"a '{tag}' item is not a [key, value] pair")
            pairs.append((self.value(pair[0], depth + 1), self.value(pair[1], depth + 1)))
        result = build_mapping(pairs, tag == "odict", self.fail)
        if "metadata" in node:
            if tag != "odict":
                self.fail("only an 'odict' carries metadata")
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
        name = f"{_PREFIX}tensors/{index}"
        nbytes = math.prod(shape) * dtype.itemsize
        size = self.archive.size_of(name)
        if size != nbytes:
            self.fail(f"tensor {index}: shape {shape} of {dtype.name} needs {nbytes} bytes, but "
                      f"its entry holds {size}")
        array = np.empty(shape, dtype=dtype.numpy)
        self.archive.read_into(name, memoryview(array.reshape(-1).view(np.uint8)))
        if sys.byteorder != "little":
            array = array.byteswap()
        return place(array, saved_device, self.map_location, self.fail, requires_grad, parameter)


# --------------------------------------------------------------------------------------------
# load()
# --------------------------------------------------------------------------------------------

_LEGACY_TORCH_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19."


def load(f, map_location=None, weights_only=None, **kwargs):
    """Read a checkpoint from the path or binary file ``f``: nnref's, PyTorch's zip, or safetensors.

    ``map_location`` (``'cpu'``, a device, or a dict such as ``{'cuda:0': 'cpu'}``)
    moves tensors as they load.  Without it, a tensor saved on ``'cuda'`` goes
    to the GPU only if CuPy is already in use in this process; otherwise the
    load raises and says to pass ``map_location`` (loading never imports
    anything on its own).  By default (``weights_only=None`` or ``True``, as in
    PyTorch 2.6+) loading runs no code: it reads tensors, numbers, strings and
    containers of them, and refuses a pickled object (``save(model, path)``) with
    PyTorch's ``pickle.UnpicklingError`` message.  ``weights_only=False``
    unpickles such a file, which imports and runs whatever code it names: only
    for a file from a trusted source.  A file that is not a valid checkpoint, or
    that exceeds a limit, raises :class:`~nnref.serialization.CheckpointError`.
    """
    if kwargs:
        raise TypeError(f"load() got unexpected keyword arguments {sorted(kwargs)}")
    target_device(map_location, CPU)  # reject a malformed map_location before reading
    if hasattr(f, "read"):
        name = getattr(f, "name", None) or f"<{type(f).__name__}>"
        return _load_from(f, str(name), map_location, weights_only)
    path = os.fspath(f)
    with open(path, "rb") as stream:
        return _load_from(stream, path, map_location, weights_only)


# --------------------------------------------------------------------------------------------
# The weights-only allowlist (torch/_weights_only_unpickler.py, ``_marked_safe_globals_set``,
# which these functions change in place: the PyTorch-format readers check it)
# --------------------------------------------------------------------------------------------


def add_safe_globals(safe_globals):
    """Mark classes and functions as safe for ``load(f, weights_only=True)``: a PyTorch checkpoint
    that names one may create its instances (``cls.__new__`` then ``__setstate__``, or its
    ``__dict__`` updated) and call it, as PyTorch's weights-only unpickler does.  An item is the
    class or function (found in the file as ``{__module__}.{__qualname__}``) or a pair
    ``(obj, "full.path")`` for a file that names it differently.  A global of the modules
    ``sys``, ``os``, ``posix`` and ``nt`` stays refused even when allowlisted."""
    _marked_safe_globals_set.update(set(safe_globals))


def get_safe_globals():
    """The globals that ``add_safe_globals`` (or an open ``safe_globals`` block) allowlisted."""
    return list(_marked_safe_globals_set)


def clear_safe_globals():
    """Forget every allowlisted global."""
    _marked_safe_globals_set.clear()


class safe_globals:
    """``with safe_globals([Config]): load(f)``: allowlists the globals inside the block only.  On
    leaving, they are removed, even those that were allowlisted before the block (as PyTorch's)."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        _marked_safe_globals_set.difference_update(set(self.safe_globals))


def get_unsafe_globals_in_checkpoint(f):
    """The globals (``"module.name"``) a PyTorch checkpoint names that ``load(f)`` would refuse:
    neither among the tensor-rebuild functions it admits nor allowlisted. The pickle is read
    statically, nothing is imported or run (``torch.serialization.get_unsafe_globals_in_checkpoint``)."""
    with open(os.fspath(f), "rb") if not hasattr(f, "read") else contextlib.nullcontext(f) as stream:
        name = getattr(stream, "name", None) or f"<{type(stream).__name__}>"

        def fail(problem):
            raise CheckpointError(f"{name}: {problem}")
        start = stream.tell()
        stream.seek(0, io.SEEK_END)
        size = stream.tell() - start
        stream.seek(start)
        if stream.read(2) != b"PK":
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        stream.seek(start)
        archive = Archive(stream, start + size, fail)
        prefix = torch_zip_prefix(archive)
        if prefix is None:
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        return unsafe_globals(archive, prefix)


def _load_from(stream, name, map_location, weights_only=None):
    def fail(problem):
        raise CheckpointError(f"{name}: {problem}")

    try:
        start = stream.tell()
        stream.seek(0, io.SEEK_END)
        size = stream.tell() - start
        stream.seek(start)
        head = stream.read(16)
        stream.seek(start)
        if head[:2] == b"PK":
            archive = Archive(stream, start + size, fail)
            if _MANIFEST in archive.names:
                reader = _Reader(archive, name, map_location, fail)
                return reader.value(reader.manifest())
            prefix = torch_zip_prefix(archive)
            if prefix is not None and weights_only is False:  # whatever it pickles
                return read_pickled_zip(archive, prefix, map_location, fail)
            if prefix is not None:
                return read_torch_zip(archive, prefix, map_location, fail)
            fail("a ZIP archive, but neither an nnref checkpoint (no 'nnref_checkpoint/"
                 "manifest.json') nor a PyTorch one (no '<name>/data.pkl')")
        if head.startswith(_LEGACY_TORCH_MAGIC):
            fail("a PyTorch checkpoint in the legacy format (torch.save with "
                 "_use_new_zipfile_serialization=False, or PyTorch < 1.6): a bare pickle, which "
                 "nnref does not read because unpickling can run code. Convert it once with "
                 "PyTorch: torch.save(torch.load(path, weights_only=True), new_path), then "
                 "nnref.load(new_path)")
        if head[:1] == b"\x80":
            fail("a Python pickle, not a checkpoint; nnref never unpickles (it can run code)")
        if looks_like_safetensors(head, size):
            return read_safetensors(stream.read(), map_location, fail)
        fail("not an nnref, PyTorch (zip) or safetensors checkpoint")
    except CheckpointError:
        raise
    except RaisedWhileUnpickling as exc:  # weights_only=False: the file's code raised it
        raise exc.error from None
    except MemoryError:
        raise CheckpointError(f"{name}: not enough memory to load it") from None
    except Exception as exc:  # zipfile, struct, OS and numpy errors from a damaged file
        raise CheckpointError(f"{name}: not a readable checkpoint ({type(exc).__name__}: "
                              f"{exc})") from exc


def _refuse_pickling(self, protocol):
    """Refused at pickling time, so no pickle holds a tensor that could never be loaded."""
    raise TypeError(_not_picklable_message(self))


bind(__reduce_ex__=_refuse_pickling)

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
import collections
import contextlib
import ctypes
import errno
import io
import json
import math
import numbers
import os
import secrets
import stat
import struct
import sys
import zipfile
import zlib

import numpy as np

from . import _cupy
from .core import _dtype
from .core._device import CPU, device as Device, to_host
from .core._tensor import Size, Tensor, bind

__all__ = ["save", "load", "CheckpointError", "FORMAT_VERSION", "MAX_NESTING",
           "MAX_MANIFEST_BYTES", "MAX_HASH_COLLISIONS", "add_safe_globals", "get_safe_globals",
           "clear_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint"]

FORMAT_NAME = "nnref-checkpoint"
FORMAT_VERSION = 1
FORMATS = ("nnref", "torch", "safetensors")
MAX_NESTING = 200
MAX_MANIFEST_BYTES = 32 * 2**20
MAX_HASH_COLLISIONS = 16
_MAX_DIMS = 64
_PREFIX = "nnref_checkpoint/"
_MANIFEST = _PREFIX + "manifest.json"
_DTYPES = {d.name: d for d in _dtype.ALL_DTYPES}
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # identical objects give byte-identical files
_TEMPORARY_SUFFIX = ".nnref-tmp"
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_LOCAL_HEADER_SIGNATURE = b"PK\x03\x04"


class CheckpointError(RuntimeError):
    """The file is not a readable checkpoint (truncated, corrupted, foreign, malformed or beyond a limit)."""


class RaisedWhileUnpickling(Exception):
    """Carries an exception that the code of a file loaded with ``weights_only=False`` raised (a
    class the program lacks, ...) past ``load``'s handling, which turns a damaged file's errors into
    ``CheckpointError``: ``load`` re-raises ``error`` as is, as ``torch.load`` lets it through."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def _recipe(obj):
    """How to save and reload ``obj``'s values: the lines a user can copy."""
    from .nn.modules.module import Module
    from .optim.optimizer import Optimizer
    kind = type(obj).__name__
    if isinstance(obj, Module):
        return (f"Save its values instead:\n    nnref.save(model.state_dict(), path)\nand reload "
                f"them into a model built as before:\n    model = {kind}(...)\n    "
                "model.load_state_dict(nnref.load(path))")
    if isinstance(obj, Optimizer):
        return (f"Save its values instead:\n    nnref.save(optimizer.state_dict(), path)\nand "
                f"reload them into an optimizer built as before:\n    optimizer = {kind}("
                "model.parameters(), ...)\n    optimizer.load_state_dict(nnref.load(path))\n"
                "(and the model's with nnref.save(model.state_dict(), path))")
    return ("Save it with\n    nnref.save(tensor, path)\nand reload it with\n    tensor = "
            "nnref.load(path)\n(a model's tensors: nnref.save(model.state_dict(), path), then "
            "model.load_state_dict(nnref.load(path)))")


def _not_picklable_message(obj):
    """Why ``pickle.dump`` of a tensor, module or optimizer fails, and what to do instead."""
    return (f"an nnref {type(obj).__name__} cannot be pickled: nnref keeps tensors out of "
            "pickles, whose loading can run any code, so this pickle could never be loaded. "
            + _recipe(obj))


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


def unsupported_type(obj):
    """The TypeError for an object no checkpoint format stores (modules get the state_dict recipe)."""
    from .nn.modules.module import Module
    from .optim.optimizer import Optimizer
    if isinstance(obj, (Module, Optimizer)):
        return TypeError(f"nnref.save stores values, not a whole {type(obj).__name__} "
                         "(torch.save(model) pickles the object; nnref never pickles). "
                         + _recipe(obj))
    return TypeError(f"nnref.save cannot store an object of type {type(obj).__module__}."
                     f"{type(obj).__qualname__}; it stores tensors, numbers, strings, bools, None, "
                     "dtypes, devices, and lists/tuples/dicts/OrderedDicts of them")


def _tensor_entry(t):
    from .nn.parameter import Parameter
    return {"dtype": t._dtype.name, "shape": list(t._data.shape), "device": str(t._device),
            "requires_grad": bool(t.requires_grad),
            "parameter": isinstance(t, Parameter)}


def little_endian_bytes(t):
    """The tensor's values as a flat byte array, C order, little-endian (no copy when possible)."""
    array = np.ascontiguousarray(to_host(t._data))
    if sys.byteorder != "little":
        array = array.byteswap()
    return array.reshape(-1).view(np.uint8)


def _write_archive(stream, obj):
    encoder = _Encoder()
    manifest = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "byteorder": "little",
                "tensors": None, "object": encoder.encode(obj)}
    manifest["tensors"] = [_tensor_entry(t) for t in encoder.tensors]
    entries = [(_MANIFEST, json.dumps(manifest, separators=(",", ":")).encode("utf-8"))]
    entries += [(f"{_PREFIX}tensors/{i}", t) for i, t in enumerate(encoder.tensors)]
    write_zip(stream, entries)


def write_zip(stream, entries, align=1):
    """Write ``(name, bytes or tensor)`` entries, stored, data aligned to ``align`` bytes.

    Tensors are converted to bytes one at a time, so saving holds at most one
    extra copy of one tensor (none for contiguous CPU tensors).
    """
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, value in entries:
            data = little_endian_bytes(value) if isinstance(value, Tensor) else value
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            if align > 1:
                # A padding extra field (id 'FB', as PyTorch writes) puts the data on the boundary.
                start = archive.fp.tell() + 30 + len(name.encode()) + 4
                zip64 = len(data) >= 2**31
                start += 20 if zip64 else 0
                info.extra = b"FB" + struct.pack("<H", -start % align) + b"Z" * (-start % align)
            with archive.open(info, "w", force_zip64=len(data) >= 2**31) as entry:
                entry.write(memoryview(data))


def _default_file_mode():
    """The mode ``open()`` would give a new file (0o666 minus the umask); mkstemp uses 0o600."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


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
    from ._pickled_checkpoint import holds_objects
    if format in ("nnref", "torch") and holds_objects(obj):
        # A module, an optimizer, a program's own class: pickled into PyTorch's archive, as
        # torch.save does; load() refuses it unless told weights_only=False.
        from ._pickled_checkpoint import write_pickled_zip as write
    elif format == "torch":
        from ._torch_checkpoint import write_torch_zip as write
    elif format == "safetensors":
        from .utils.safetensors import write_safetensors as write
    else:
        write = _write_archive
    if hasattr(f, "write"):
        write(f, obj)
        return
    _save_to_path(write, obj, os.fspath(f))


def _save_to_path(write, obj, user_path):
    path = os.path.realpath(user_path)  # through a symlink: replace its target, keep the link
    directory = os.path.dirname(path)
    try:
        status = os.stat(path)
    except FileNotFoundError:
        status = None
    if status is not None and not stat.S_ISREG(status.st_mode):
        if stat.S_ISDIR(status.st_mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", user_path)
        with open(path, "wb") as stream:  # a FIFO or a device: write through it, as open() would
            write(stream, obj)
        return
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {os.path.dirname(os.path.abspath(user_path))} does "
                           "not exist.")  # PyTorch's words
    if status is not None and (not os.access(path, os.W_OK) or not status.st_mode & 0o222):
        # open(path, "wb") would fail here (torch.save does); even root keeps a write-protected file.
        raise PermissionError(errno.EACCES, "Permission denied (the file is write-protected)",
                              user_path)
    mode = status.st_mode & 0o7777 if status is not None else _default_file_mode()
    _remove_stale_temporaries(directory, os.path.basename(path))
    if status is not None:
        _drop_cached_pages(path)
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}."
                                        f"{secrets.token_hex(4)}{_TEMPORARY_SUFFIX}")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except PermissionError:
        raise PermissionError(errno.EACCES, "Permission denied (cannot create a file in its "
                                            "folder)", user_path) from None
    try:
        with os.fdopen(fd, "wb") as stream:
            write(_EarlyWriteback(stream), obj)
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


def _drop_cached_pages(path):
    """Let the new checkpoint reuse the memory that caches ``path``, the file it replaces.

    Those pages would stay cached until the rename, so the new file would be
    written into as much fresh memory again.  On a virtual machine that hands
    free memory back to its host (virtio-balloon free page reporting, as on
    Firecracker) fresh memory costs a host page fault per page: a 191 MiB save
    took about 0.6 s instead of 0.2 s.  Only the cache goes: the file is untouched
    (a failed save leaves it whole), and pages not yet on disk stay cached.
    """
    if not hasattr(os, "posix_fadvise"):
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # NONBLOCK: never wait on a FIFO swapped in
    except OSError:
        return  # not readable: it keeps its pages, the save goes on
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_stale_temporaries(directory, name):
    """Delete ``.<name>.<pid>.*.nnref-tmp`` files whose writing process is gone (crash, power cut)."""
    prefix = f".{name}."
    try:
        candidates = [n for n in os.listdir(directory)
                      if n.startswith(prefix) and n.endswith(_TEMPORARY_SUFFIX)]
    except OSError:
        return
    for candidate in candidates:
        pid = candidate[len(prefix):].split(".", 1)[0]
        if not pid.isdigit() or _process_alive(int(pid)):
            continue
        try:
            os.unlink(os.path.join(directory, candidate))
        except OSError:
            pass


def _process_alive(pid):
    if pid == os.getpid():
        return False  # this process is not saving this file now: its own leftovers are stale
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _sync_file_range():
    """libc's ``sync_file_range`` (Linux), or None where there is none."""
    try:
        function = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (AttributeError, OSError):
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint)
    return function


class _EarlyWriteback:
    """A file whose written bytes start going to the disk every ``CHUNK`` bytes, not at the fsync.

    Writing the next tensor then overlaps with the disk writing the previous
    ones, so the final fsync waits for one chunk instead of the whole file
    (PostgreSQL's checkpointer and RocksDB's ``bytes_per_sync`` do the same).
    Everything else is the wrapped file's own.
    """
    CHUNK = 32 * 2**20
    _START_WRITEBACK = 2  # SYNC_FILE_RANGE_WRITE: start writing, do not wait
    _sync_range = _sync_file_range()

    def __init__(self, stream):
        self._stream = stream
        self._handed_over = 0

    def write(self, data):
        if self._sync_range is None:
            return self._stream.write(data)
        data = memoryview(data).cast("B")
        for start in range(0, len(data), self.CHUNK):
            self._stream.write(data[start:start + self.CHUNK])
            end = self._stream.tell()
            if end - self._handed_over >= self.CHUNK:
                self._stream.flush()
                self._sync_range(self._stream.fileno(), self._handed_over,
                                 end - self._handed_over, self._START_WRITEBACK)
                self._handed_over = end
        return len(data)

    def __getattr__(self, name):
        return getattr(self._stream, name)


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
# Loading: the parts every format shares
# --------------------------------------------------------------------------------------------

class Archive:
    """A ZIP archive checked before anything is read: stored entries, in order, not overlapping.

    ``zipfile`` parses the central directory; the data are then read straight
    from the file into their final arrays (no intermediate copy), and checked
    against their CRC-32.
    """

    def __init__(self, stream, size, fail):
        self.stream = stream
        self.fail = fail
        zip_file = zipfile.ZipFile(stream)
        self.names = {}
        end_of_previous = 0
        for info in zip_file.infolist():
            if info.filename in self.names:
                fail(f"the archive holds two entries named '{info.filename}'")
            if info.compress_type != zipfile.ZIP_STORED:
                fail(f"entry '{info.filename}' is compressed; checkpoints store entries uncompressed")
            if info.flag_bits & 0x1:
                fail(f"entry '{info.filename}' is encrypted")
            if info.compress_size != info.file_size or info.file_size > size:
                fail(f"entry '{info.filename}' claims {info.file_size} bytes, more than the whole "
                     f"file ({size} bytes)")
            if info.header_offset < end_of_previous:
                fail(f"entry '{info.filename}' overlaps the entry before it or comes out of order "
                     "(limit: every byte of the file belongs to at most one entry)")
            stream.seek(info.header_offset)
            header = stream.read(_LOCAL_HEADER.size)
            if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_HEADER_SIGNATURE:
                fail(f"entry '{info.filename}' has no valid local header")
            name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
            start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
            stream.seek(info.header_offset + _LOCAL_HEADER.size)
            if stream.read(name_length) != info.orig_filename.encode("utf-8" if info.flag_bits
                                                                    & 0x800 else "cp437"):
                fail(f"entry '{info.filename}' has a different name in its local header")
            end_of_previous = start + info.file_size
            if end_of_previous > zip_file.start_dir:
                fail(f"entry '{info.filename}' runs past the start of the archive's directory")
            self.names[info.filename] = (start, info.file_size, info.CRC)
        zip_file.close()

    def size_of(self, name):
        if name not in self.names:
            self.fail(f"the archive has no entry '{name}'")
        return self.names[name][1]

    def read_into(self, name, buffer):
        """Fill the writable byte buffer ``buffer`` with entry ``name``'s data (sizes must match)."""
        start, size, crc = self.names[name]
        if buffer.nbytes != size:
            self.fail(f"entry '{name}' holds {size} bytes, not the {buffer.nbytes} it should")
        self.stream.seek(start)
        got = 0
        while got < size:
            n = self.stream.readinto(buffer[got:])
            if not n:
                self.fail(f"entry '{name}' is truncated")
            got += n
        if zlib.crc32(buffer) != crc:
            self.fail(f"entry '{name}' fails its CRC-32 check (the file is corrupted)")

    def read(self, name, limit=None):
        size = self.size_of(name)
        if limit is not None and size > limit:
            self.fail(f"entry '{name}' holds {size} bytes, over the limit of {limit} bytes")
        data = bytearray(size)
        self.read_into(name, memoryview(data))
        return bytes(data)


def build_mapping(pairs, ordered, fail):
    """A dict (or OrderedDict) from checked ``(key, value)`` pairs, refusing hash-flooding key sets.

    Inserting n keys that share one hash costs n**2 comparisons.  Hash values
    are ints below 2**61 whose own hashes are themselves, so counting them
    costs linear time whatever the keys are; a genuine checkpoint never has
    more than a couple of keys per hash value.
    """
    keys = []
    for key, _ in pairs:
        try:
            keys.append(hash(key))
        except TypeError:
            fail(f"a dict key of type {type(key).__name__} is not hashable")
    if keys:
        _, most = collections.Counter(keys).most_common(1)[0]
        if most > MAX_HASH_COLLISIONS:
            fail(f"{most} keys of one dict share one hash value (limit: MAX_HASH_COLLISIONS = "
                 f"{MAX_HASH_COLLISIONS}); keys crafted to collide would make loading quadratic")
    return (OrderedDict if ordered else dict)(pairs)


def target_device(map_location, saved):
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


def place(array, saved_device, map_location, fail, requires_grad=False, parameter=False):
    """The loaded array as a tensor (or Parameter) on the device ``map_location`` gives."""
    t = Tensor._make(array, CPU)
    target = target_device(map_location, saved_device)
    if target.type != "cpu":
        if map_location is None and _cupy._cupy is None:
            # Starting CuPy imports code; nnref does that only when the user asked for the GPU.
            fail(f"a tensor was saved on {saved_device}, and nnref.load does not start the GPU on "
                 "its own: pass map_location='cpu' to load it on the CPU, or "
                 "map_location='cuda' to load it onto the GPU")
        try:
            t = t.to(target)
        except (RuntimeError, TypeError) as exc:
            fail(f"cannot place a tensor on {target} ({exc}); pass map_location='cpu' to load it "
                 "on the CPU")
    if parameter:
        from .nn.parameter import Parameter
        return Parameter(t, requires_grad=requires_grad)
    return t.requires_grad_(requires_grad) if requires_grad else t


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


def convert_torch_tensors(state_dict):
    """``state_dict`` with PyTorch tensors replaced by nnref tensors (exact, through numpy).

    Only when torch is already imported (nnref never imports it); other values
    pass through, and the result keeps the ``_metadata`` of the original.
    """
    torch = sys.modules.get("torch")
    if torch is None or not any(isinstance(v, torch.Tensor) for v in state_dict.values()):
        return state_dict
    converted = OrderedDict((k, _from_torch(torch, k, v) if isinstance(v, torch.Tensor) else v)
                            for k, v in state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        converted._metadata = metadata
    return converted


def _from_torch(torch, key, value):
    name = str(value.dtype).replace("torch.", "")
    if name not in _DTYPES:
        raise TypeError(f"'{key}' is a PyTorch tensor of dtype {value.dtype}, which nnref does "
                        f"not have; convert it first, e.g. state_dict['{key}'] = "
                        f"nnref.tensor(value.float().numpy())")
    value = value.detach().cpu()
    if value.dtype == torch.bfloat16:  # numpy has no bfloat16: move the bits
        array = value.contiguous().view(torch.int16).numpy().view(_DTYPES[name].numpy)
    else:
        array = value.numpy()
    return Tensor._make(np.array(array, copy=True), CPU)


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


# The weights-only allowlist (torch/_weights_only_unpickler.py, ``_marked_safe_globals_set``)
# --------------------------------------------------------------------------------------------

_marked_safe_globals_set = set()


def add_safe_globals(safe_globals):
    """Mark classes and functions as safe for ``load(f, weights_only=True)``: a PyTorch checkpoint
    that names one may create its instances (``cls.__new__`` then ``__setstate__``, or its
    ``__dict__`` updated) and call it, as PyTorch's weights-only unpickler does.  An item is the
    class or function (found in the file as ``{__module__}.{__qualname__}``) or a pair
    ``(obj, "full.path")`` for a file that names it differently.  A global of the modules
    ``sys``, ``os``, ``posix`` and ``nt`` stays refused even when allowlisted."""
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set.union(set(safe_globals))


def get_safe_globals():
    """The globals that ``add_safe_globals`` (or an open ``safe_globals`` block) allowlisted."""
    return list(_marked_safe_globals_set)


def clear_safe_globals():
    """Forget every allowlisted global."""
    global _marked_safe_globals_set
    _marked_safe_globals_set = set()


class safe_globals:
    """``with safe_globals([Config]): load(f)``: allowlists the globals inside the block only.  On
    leaving, they are removed, even those that were allowlisted before the block (as PyTorch's)."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        global _marked_safe_globals_set
        _marked_safe_globals_set = _marked_safe_globals_set - set(self.safe_globals)


def get_unsafe_globals_in_checkpoint(f):
    """The globals (``"module.name"``) a PyTorch checkpoint names that ``load(f)`` would refuse:
    neither among the tensor-rebuild functions it admits nor allowlisted. The pickle is read
    statically, nothing is imported or run (``torch.serialization.get_unsafe_globals_in_checkpoint``)."""
    from ._torch_checkpoint import torch_zip_prefix, unsafe_globals
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


def user_allowed_globals():
    """The allowlist by the full path a pickle names (``_get_user_allowed_globals``), checked as
    PyTorch checks it, at load time."""
    allowed = {}
    for item in _marked_safe_globals_set:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full path), "
                                 f"but got tuple of length: {len(item)}")
            if type(item[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(item[1])}")
            allowed[item[1]] = item[0]
        else:
            allowed[f"{item.__module__}.{item.__qualname__}"] = item
    return allowed


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
            from ._torch_checkpoint import read_torch_zip, torch_zip_prefix
            prefix = torch_zip_prefix(archive)
            if prefix is not None:
                return read_torch_zip(archive, prefix, map_location, fail, weights_only)
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
        from .utils.safetensors import looks_like_safetensors, read_safetensors
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

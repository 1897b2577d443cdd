"""What every checkpoint format shares: the helpers of ``torch/serialization.py``, kept below it.

The errors, the nesting and hash-collision limits, the ZIP writer and the checked ZIP reader,
the atomic write of a path, where a loaded tensor goes, and the allowlist of globals that
``serialization.add_safe_globals`` fills.  The formats (nnref's own in ``nnref.serialization``,
PyTorch's zip in ``nnref._torch_checkpoint`` and ``nnref._pickled_checkpoint``, safetensors in
``nnref._safetensors``) build on these, and ``nnref.serialization`` on the formats; its
docstring describes the formats and their limits.
"""
from collections import OrderedDict
import collections
import ctypes
import errno
import os
import secrets
import stat
import struct
import sys
import zipfile
import zlib

import numpy as np

from . import _cupy
from ._state_transfer import _recipe
from .core._device import CPU, device as Device, to_host
from .core._tensor import Tensor
from .core.nn.modules.module import Module
from .core.optim.optimizer import Optimizer

__all__ = ["CheckpointError", "Archive", "build_mapping", "little_endian_bytes", "place", "target_device",
           "unsupported_type", "user_allowed_globals", "write_zip"]

MAX_NESTING = 200
MAX_HASH_COLLISIONS = 16
_MAX_DIMS = 64
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # identical objects give byte-identical files
_TEMPORARY_SUFFIX = ".nnref-tmp"
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_LOCAL_HEADER_SIGNATURE = b"PK\x03\x04"


class CheckpointError(RuntimeError):
    """The file is not a readable checkpoint (truncated, corrupted, foreign, malformed or beyond a limit)."""

    __module__ = "nnref.serialization"  # where programs import it from, as tracebacks name it


class RaisedWhileUnpickling(Exception):
    """Carries an exception that the code of a file loaded with ``weights_only=False`` raised (a
    class the program lacks, ...) past ``load``'s handling, which turns a damaged file's errors into
    ``CheckpointError``: ``load`` re-raises ``error`` as is, as ``torch.load`` lets it through."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def unsupported_type(obj):
    """The TypeError for an object no checkpoint format stores (modules get the state_dict recipe)."""
    if isinstance(obj, (Module, Optimizer)):
        return TypeError(f"nnref.save stores values, not a whole {type(obj).__name__} "
                         "(torch.save(model) pickles the object; nnref never pickles). "
                         + _recipe(obj))
    return TypeError(f"nnref.save cannot store an object of type {type(obj).__module__}."
                     f"{type(obj).__qualname__}; it stores tensors, numbers, strings, bools, None, "
                     "dtypes, devices, and lists/tuples/dicts/OrderedDicts of them")


# --------------------------------------------------------------------------------------------
# Saving: a tensor's bytes, the ZIP writer, the atomic write of a path
# --------------------------------------------------------------------------------------------

def little_endian_bytes(t):
    """The tensor's values as a flat byte array, C order, little-endian (no copy when possible)."""
    array = np.ascontiguousarray(to_host(t._data))
    if sys.byteorder != "little":
        array = array.byteswap()
    return array.reshape(-1).view(np.uint8)


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
# Loading: the checked ZIP reader, dicts safe from colliding keys, where a tensor goes
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
# The weights-only allowlist (torch/_weights_only_unpickler.py's ``_marked_safe_globals_set``):
# serialization's add_safe_globals and friends change it in place, the PyTorch-format readers read it.
# --------------------------------------------------------------------------------------------
_marked_safe_globals_set = set()


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

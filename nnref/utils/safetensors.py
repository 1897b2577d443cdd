"""``.safetensors`` files, through the ``safetensors`` library (``safetensors.torch``'s role).

A safetensors file is an 8-byte little-endian header length, a JSON header
``{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, ...,
"__metadata__": {str: str}}`` and the tensors' bytes.  It holds a flat
``{str: tensor}`` dict and nothing else, so it is the format of choice for
sharing weights: no code, no pickle.  The library (Rust) validates the header
and the offsets; this module maps dtypes (bfloat16 included, which its numpy
API lacks) and wraps its errors in :class:`nnref.serialization.CheckpointError`.

``save_file``/``load_file`` mirror ``safetensors.torch``; ``nnref.save(d, f,
format="safetensors")`` and ``nnref.load(f)`` (which recognises the format)
do the same.  The library is an optional dependency: ``pip install safetensors``.
"""
import os

import numpy as np

from ..core import _dtype
from ..core._device import CPU
from ..core._tensor import Tensor

__all__ = ["save_file", "load_file", "save", "load"]

_CODES = {"float16": "F16", "bfloat16": "BF16", "float32": "F32", "float64": "F64",
          "int8": "I8", "uint8": "U8", "int16": "I16", "int32": "I32", "int64": "I64",
          "bool": "BOOL"}
_DTYPES = {_CODES[d.name]: d for d in _dtype.ALL_DTYPES if d.name in _CODES}
_MAX_HEADER_BYTES = 100 * 2**20  # the library's own limit


def _library():
    try:
        import safetensors
    except ImportError:
        raise ImportError("reading and writing .safetensors files needs the safetensors package: "
                          "pip install safetensors") from None
    return safetensors


def looks_like_safetensors(head, size):
    """A file starting with a plausible header length followed by ``{``."""
    if len(head) < 9:
        return False
    header = int.from_bytes(head[:8], "little")
    return head[8:9] == b"{" and 0 < header <= size - 8


def _specs(tensors):
    """``{name: tensor}`` checked, as the library's serialize() wants it (arrays kept alive)."""
    from ..serialization import little_endian_bytes
    if type(tensors) is not dict and not hasattr(tensors, "items"):
        raise TypeError("safetensors stores a dict of {str: tensor}, not "
                        f"{type(tensors).__name__}")
    specs, keep = {}, []
    seen = {}
    for name, t in tensors.items():
        if type(name) is not str:
            raise TypeError(f"safetensors keys are strings, not {type(name).__name__} ({name!r})")
        if not isinstance(t, Tensor):
            raise TypeError(f"safetensors stores only tensors, but '{name}' is a "
                            f"{type(t).__name__}")
        if id(t) in seen:
            raise RuntimeError(f"'{name}' and '{seen[id(t)]}' are the same tensor; safetensors "
                               "cannot store shared tensors (save a .clone() of one, as "
                               "safetensors.torch asks)")
        seen[id(t)] = name
        data = little_endian_bytes(t)
        keep.append(data)
        specs[name] = _library().TensorSpec(dtype=t._dtype.name, shape=list(t.shape),
                                            data_ptr=data.ctypes.data, data_len=data.nbytes)
    return specs, keep


def save(tensors, metadata=None):
    """The ``.safetensors`` bytes of ``{name: tensor}`` (``safetensors.torch.save``)."""
    specs, keep = _specs(tensors)
    data = bytes(_library().serialize(specs, metadata=metadata))
    del keep  # the arrays serialize() read through raw pointers
    return data


def save_file(tensors, filename, metadata=None):
    """Write ``{name: tensor}`` to ``filename`` atomically (``safetensors.torch.save_file``)."""
    from ..serialization import _save_to_path
    _save_to_path(lambda stream, obj: stream.write(save(obj, metadata)), tensors,
                  os.fspath(filename))


def write_safetensors(stream, tensors):
    stream.write(save(tensors))


def load(data, map_location=None):
    """``{name: tensor}`` from ``.safetensors`` bytes (``safetensors.torch.load``)."""
    from ..serialization import CheckpointError

    def fail(problem):
        raise CheckpointError(f"<bytes>: {problem}")

    return read_safetensors(bytes(data), map_location, fail)


def load_file(filename, device="cpu"):
    """``{name: tensor}`` from the file ``filename`` (``safetensors.torch.load_file``)."""
    from ..serialization import load as nnref_load
    result = nnref_load(os.fspath(filename), map_location=device)
    if type(result) is not dict:
        from ..serialization import CheckpointError
        raise CheckpointError(f"{filename}: not a .safetensors file")
    return result


def read_safetensors(data, map_location, fail):
    from ..serialization import build_mapping, place
    library = _library()
    if int.from_bytes(data[:8], "little") > _MAX_HEADER_BYTES:
        fail(f"the safetensors header is larger than {_MAX_HEADER_BYTES} bytes (the limit)")
    try:
        entries = library.deserialize(data)
    except Exception as exc:  # SafetensorError and friends: a malformed file
        fail(f"not a valid .safetensors file ({type(exc).__name__}: {exc})")
    pairs = []
    for name, view in sorted(entries, key=lambda entry: entry[0]):
        dtype = _DTYPES.get(view["dtype"])
        if dtype is None:
            fail(f"tensor '{name}' has dtype {view['dtype']}, which nnref does not have")
        array = np.frombuffer(view["data"], dtype=dtype.numpy.newbyteorder("<"))
        array = array.astype(dtype.numpy, copy=True).reshape(view["shape"])
        pairs.append((name, place(array, CPU, map_location, fail)))
    return build_mapping(pairs, False, fail)

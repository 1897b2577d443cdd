"""The ``.safetensors`` format for the checkpoint code (``nnref.utils.safetensors`` describes it).

``nnref.save(d, f, format="safetensors")`` writes and ``nnref.load`` reads the format through
these functions, below ``serialization``; ``nnref.utils.safetensors``, the public
``safetensors.torch`` API, builds on both.
"""
import numpy as np

from ._checkpoint_io import build_mapping, little_endian_bytes, place
from .core import _dtype
from .core._device import CPU
from .core._tensor import Tensor

__all__ = ["looks_like_safetensors", "read_safetensors", "to_bytes", "write_safetensors"]

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


def to_bytes(tensors, metadata=None):
    """The ``.safetensors`` bytes of ``{name: tensor}`` (``safetensors.torch.save``'s work)."""
    specs, keep = _specs(tensors)
    data = bytes(_library().serialize(specs, metadata=metadata))
    del keep  # the arrays serialize() read through raw pointers
    return data


def write_safetensors(stream, tensors):
    stream.write(to_bytes(tensors))


def read_safetensors(data, map_location, fail):
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

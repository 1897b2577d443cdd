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

from .._checkpoint_io import CheckpointError, _save_to_path
from .._safetensors import read_safetensors, to_bytes
from ..serialization import load as nnref_load

__all__ = ["save_file", "load_file", "save", "load"]


def save(tensors, metadata=None):
    """The ``.safetensors`` bytes of ``{name: tensor}`` (``safetensors.torch.save``)."""
    return to_bytes(tensors, metadata)


def save_file(tensors, filename, metadata=None):
    """Write ``{name: tensor}`` to ``filename`` atomically (``safetensors.torch.save_file``)."""
    _save_to_path(lambda stream, obj: stream.write(save(obj, metadata)), tensors,
                  os.fspath(filename))


def load(data, map_location=None):
    """``{name: tensor}`` from ``.safetensors`` bytes (``safetensors.torch.load``)."""
    def fail(problem):
        raise CheckpointError(f"<bytes>: {problem}")

    return read_safetensors(bytes(data), map_location, fail)


def load_file(filename, device="cpu"):
    """``{name: tensor}`` from the file ``filename`` (``safetensors.torch.load_file``)."""
    result = nnref_load(os.fspath(filename), map_location=device)
    if type(result) is not dict:
        raise CheckpointError(f"{filename}: not a .safetensors file")
    return result

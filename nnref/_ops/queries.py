"""Questions about tensors and dtypes that answer with a Python value: ``is_nonzero``,
``is_same_size``, ``can_cast``, ``is_signed``, ``is_complex``, ``get_device`` and
``broadcast_shapes``.

Mirrors ``aten/src/ATen/native/TensorProperties.cpp`` (``is_nonzero``, ``is_same_size``) and
``TypeProperties.cpp`` (``can_cast``: a cast is allowed unless it goes down a category,
bool < integer < floating point), ``TypeProperties.cpp``/``torch/functional.py`` for the rest.
"""
import builtins

from .. import _type_info

__all__ = ["is_nonzero", "is_same_size", "can_cast", "is_signed", "is_complex", "get_device",
           "broadcast_shapes", "is_pinned", "pin_memory"]


def is_nonzero(input):
    """True if the single element of ``input`` is nonzero (``torch.is_nonzero``,
    ``aten/src/ATen/native/TensorProperties.cpp``)."""
    size = input.numel()
    if size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0] != 0)


def is_same_size(input, other):
    """True if both tensors have the same shape (``torch.is_same_size``,
    ``aten/src/ATen/native/TensorProperties.cpp``)."""
    return tuple(input.shape) == tuple(other.shape)


def can_cast(from_, to):
    """True if PyTorch's type promotion allows casting ``from_`` to ``to``: not from floating
    point to an integer or bool, nor from an integer to bool (``torch.can_cast``,
    ``aten/src/ATen/native/TypeProperties.cpp``)."""
    return _type_info.category(_type_info.as_dtype(from_)) <= _type_info.category(_type_info.as_dtype(to))


def is_signed(input):
    """True unless ``input`` holds unsigned integers or bools (``torch.is_signed``,
    ``aten/src/ATen/native/TypeProperties.cpp``)."""
    return input._dtype.is_signed


def is_complex(input):
    """False: nnref has no complex dtypes (``torch.is_complex``,
    ``aten/src/ATen/native/TypeProperties.cpp``)."""
    return input._dtype.is_complex


def get_device(input):
    """-1 for a CPU tensor, else the GPU's index (``torch.Tensor.get_device``,
    ``aten/src/ATen/native/TensorProperties.cpp``)."""
    return -1 if input.device.type == "cpu" else (input.device.index or 0)


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to, an :class:`nnref.Size`
    (``torch.broadcast_shapes``, ``torch/functional.py``)."""
    from ..core._tensor import Size
    sizes = [(shape,) if isinstance(shape, int) else tuple(shape) for shape in shapes]
    result = [1] * builtins.max((len(s) for s in sizes), default=0)
    for index, size in enumerate(sizes):
        for offset, length in enumerate(reversed(size), start=1):
            if length < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if result[-offset] == 1 or length == result[-offset]:
                result[-offset] = length if result[-offset] == 1 else result[-offset]
            elif length != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {length} at "
                                   f"{-offset}! Mismatching argument at index {index} had "
                                   f"{tuple(size)}; but expected shape should be broadcastable to "
                                   f"{result}")
    return Size(result)


def is_pinned(input, device=None):
    """False: nnref never page-locks host memory (``torch.Tensor.is_pinned``)."""
    return False


def pin_memory(input, device=None):
    """``input`` in page-locked host memory for faster copies to a GPU (``torch.Tensor.pin_memory``).

    Without a GPU PyTorch refuses, as here; with one, CuPy copies from ordinary memory just as
    correctly, so nnref returns the tensor as it is.
    """
    from .. import accelerator
    if not accelerator.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return input

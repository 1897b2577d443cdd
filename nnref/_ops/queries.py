"""Questions about tensors and dtypes that answer with a Python bool: ``is_nonzero``,
``is_same_size`` and ``can_cast``.

Mirrors ``aten/src/ATen/native/TensorProperties.cpp`` (``is_nonzero``, ``is_same_size``) and
``TypeProperties.cpp`` (``can_cast``: a cast is allowed unless it goes down a category,
bool < integer < floating point).
"""
from .. import _dtype

__all__ = ["is_nonzero", "is_same_size", "can_cast"]


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
    return _dtype.category(_dtype.as_dtype(from_)) <= _dtype.category(_dtype.as_dtype(to))

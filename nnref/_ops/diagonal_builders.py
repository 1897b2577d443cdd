"""Building matrices from diagonals and blocks: ``diag_embed``, ``diagflat``, ``block_diag``; and
``msort``.

Mirrors ``aten/src/ATen/native/TensorShape.cpp`` (``diag_embed``, ``diagflat``, ``block_diag``) and
``Sorting.cpp`` (``msort``, PyTorch's ``sort(input, 0).values``).  ``diag_embed`` and ``block_diag``
have their own nodes (their gradients read the diagonal or the blocks back); ``diagflat`` is
PyTorch's composite, ``diag_embed`` of the flattened input.
"""
import builtins

from ..core._device import array_module
from ..core._tensor import Tensor, _wrap_dim
from ..core.autograd.graph import Node
from ._common import check_same_device, operand_data, record, result_type, wrap

__all__ = ["diag_embed", "diagflat", "block_diag", "msort"]


class DiagEmbedBackward0(Node):
    def backward(self, grad):
        from .tensor_shape import diagonal
        return (diagonal(grad, self.offset, self.dim1, self.dim2),)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose 2-d planes along ``dim1`` and ``dim2`` have the last dim of ``input`` on
    their diagonal ``offset`` and zeros elsewhere (``torch.diag_embed``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    ndim = input._data.ndim + 1
    first, second = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    xp = array_module(input._device)
    data = input._data if input._data.ndim else input._data.reshape(1)
    n = data.shape[-1]
    size = n + builtins.abs(offset)
    planes = xp.zeros(data.shape[:-1] + (size, size), dtype=data.dtype)
    steps = xp.arange(n)
    planes[..., steps + builtins.max(-offset, 0), steps + builtins.max(offset, 0)] = data
    out = wrap(xp.ascontiguousarray(xp.moveaxis(planes, (-2, -1), (first, second))), input)
    return record(out, DiagEmbedBackward0, (input,), offset=offset, dim1=first, dim2=second)


def diagflat(input, offset=0):
    """The flattened ``input`` on the diagonal ``offset`` of a square matrix (``torch.diagflat``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    return diag_embed(input.contiguous().view(-1), offset)


class BlockDiagBackward0(Node):
    def backward(self, grad):
        grads, row, column = [], 0, 0
        for shape, (rows, columns) in zip(self.shapes, self.blocks):
            grads.append(grad[row:row + rows, column:column + columns].reshape(shape))
            row, column = row + rows, column + columns
        return tuple(grads)


def block_diag(*tensors):
    """The tensors (each at most 2-d: a number is 1 x 1, a vector one row) as blocks along the
    diagonal of one matrix, zeros elsewhere (``torch.block_diag``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): argument 'tensors' must be tuple of Tensors, not {type(t).__name__}")
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t._data.ndim} dimensions")
    if not tensors:
        from .._creation import empty
        return empty(1, 0)
    for t in tensors[1:]:
        check_same_device(tensors[0], t)
    dtype = result_type(*tensors)
    blocks = [t._data.shape if t._data.ndim == 2 else (1, t._data.size) for t in tensors]
    xp = array_module(tensors[0]._device)
    data = xp.zeros((sum(b[0] for b in blocks), sum(b[1] for b in blocks)), dtype=dtype.numpy)
    row = column = 0
    for t, (rows, columns) in zip(tensors, blocks):
        data[row:row + rows, column:column + columns] = xp.asarray(operand_data(t, dtype)).reshape(rows, columns)
        row, column = row + rows, column + columns
    out = wrap(data, tensors[0])
    return record(out, BlockDiagBackward0, tuple(tensors), shapes=[t._data.shape for t in tensors], blocks=blocks)


def msort(input):
    """``input`` sorted along its first dim: ``sort(input, 0).values`` (``torch.msort``,
    ``aten/src/ATen/native/Sorting.cpp``)."""
    from .sorting import sort
    return sort(input, 0).values

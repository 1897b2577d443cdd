"""``split``/``chunk``, ``repeat``, ``diagonal``, ``tril``/``triu``: more of ``TensorShape.cpp``.

Mirrors ``aten/src/ATen/native/TensorShape.cpp``.

The pieces of ``split`` and ``chunk`` and the result of ``diagonal`` are views of the
input, as in PyTorch; ``repeat`` and ``tril``/``triu`` copy.  Every backward is
written with nnref ops, so it can be differentiated again.
"""
import math
import numbers

from ..core._device import array_module
from ..core._tensor import _wrap_dim
from ..core.autograd.graph import Node
from ._common import needs_grad, record, size_arguments, wrap
from .shape import cat, make_view

__all__ = ["split", "split_with_sizes", "chunk", "repeat", "diagonal", "tril", "triu", "unfold"]


class SplitBackward0(Node):
    """One node for all the pieces: their gradients are concatenated back along ``dim``."""

    def backward(self, *grads):
        return (cat(grads, self.dim),)

    def _zeros_for_output(self, index):
        """A piece that received no gradient contributes zeros (the engine asks for them)."""
        from .._creation import zeros
        return zeros(self.piece_shapes[index], dtype=self.dtype, device=self.device)


class SplitWithSizesBackward0(SplitBackward0):
    pass


def _pieces(input, dim, sizes, node_class):
    starts = [0]
    for size in sizes:
        starts.append(starts[-1] + size)
    lead = (slice(None),) * dim
    pieces = tuple(make_view(input, input._data[lead + (slice(a, b),)])
                   for a, b in zip(starts, starts[1:]))
    if needs_grad(input) and pieces:
        node = node_class((input,), dim=dim, num_outputs=len(pieces),
                          piece_shapes=[p._data.shape for p in pieces], dtype=input._dtype,
                          device=input._device)
        for i, piece in enumerate(pieces):
            piece.grad_fn, piece._output_nr = node, i
    return pieces


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes."""
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, tensor._data.ndim)
    length = tensor._data.shape[dim]
    if isinstance(split_size_or_sections, numbers.Integral):
        size = int(split_size_or_sections)
        if size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
        if size == 0 and length:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                               f"size of {length}")
        count = max(math.ceil(length / size), 1) if size else 1
        sizes = [size] * (count - 1) + [length - size * (count - 1)]
        return _pieces(tensor, dim, sizes, SplitBackward0)
    sizes = [int(s) for s in split_size_or_sections]
    if sum(sizes) != length or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} "
                           f"(input tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return _pieces(tensor, dim, sizes, SplitWithSizesBackward0)



def split_with_sizes(input, split_sizes, dim=0):
    """``split`` by a list of sizes (``torch.split_with_sizes``,
    ``aten/src/ATen/native/TensorShape.cpp``)."""
    return split(input, list(split_sizes), dim)

def chunk(input, chunks, dim=0):
    """At most ``chunks`` pieces of ``ceil(size / chunks)`` along ``dim`` (fewer when it runs out)."""
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = _wrap_dim(dim, input._data.ndim)
    length = input._data.shape[dim]
    size = math.ceil(length / chunks)
    if size == 0:  # an empty dimension: `chunks` empty pieces
        return _pieces(input, dim, [0] * chunks, SplitBackward0)
    return split(input, size, dim)


class RepeatBackward0(Node):
    """Each input element's gradient is the sum over its copies."""

    def backward(self, grad):
        extra = len(self.repeats) - len(self.self_sizes)
        shape = []
        for r, s in zip(self.repeats, (1,) * extra + tuple(self.self_sizes)):
            shape += [r, s]
        summed = grad.reshape(shape).sum(tuple(range(0, 2 * len(self.repeats), 2)))
        return (summed.reshape(self.self_sizes),)


def repeat(input, *args, repeats=None):
    """``input`` tiled ``repeats[d]`` times along each dimension (extra leading repeats add dims)."""
    repeats = tuple(int(r) for r in size_arguments("repeat", "repeats", args, repeats))
    if len(repeats) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"Trying to create tensor with negative dimension: repeats={list(repeats)}")
    xp = array_module(input._device)
    out = wrap(xp.tile(input._data, repeats), input)
    return record(out, RepeatBackward0, (input,), repeats=repeats, self_sizes=input._data.shape)


class DiagonalBackward0(Node):
    def backward(self, grad):
        from .._creation import zeros
        out = zeros(self.self_sizes, dtype=grad.dtype, device=grad.device)
        target = diagonal(out, self.offset, self.dim1, self.dim2)
        xp = array_module(grad._device)
        xp.copyto(target._data, grad._data)
        if needs_grad(grad):
            return (_DiagonalScatter.make(grad, out, self),)
        return (out,)


class _DiagonalScatter(Node):
    """``diagonal_scatter`` of a gradient into zeros, the double backward of ``diagonal``."""

    def name(self):
        return "DiagonalScatterBackward0"

    @staticmethod
    def make(grad, out, source):
        out.grad_fn = _DiagonalScatter((None, grad), offset=source.offset, dim1=source.dim1,
                                       dim2=source.dim2)
        return out

    def backward(self, grad):
        return (None, diagonal(grad, self.offset, self.dim1, self.dim2))


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the ``(dim1, dim2)`` matrices as the last dimension (a view)."""
    ndim = input._data.ndim
    dim1, dim2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    data = input._data
    xp = array_module(input._device)
    rows, cols = data.shape[dim1], data.shape[dim2]
    length = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    kept = [d for d in range(ndim) if d not in (dim1, dim2)]
    shape = tuple(data.shape[d] for d in kept) + (length,)
    if length:
        # Start at the diagonal's first element, then step along both dims at once.
        start = tuple(slice(max(-offset, 0), None) if d == dim1 else
                      slice(max(offset, 0), None) if d == dim2 else slice(None) for d in range(ndim))
        strides = tuple(data.strides[d] for d in kept) + (data.strides[dim1] + data.strides[dim2],)
        out = make_view(input, xp.lib.stride_tricks.as_strided(data[start], shape, strides))
    else:
        out = wrap(xp.zeros(shape, dtype=data.dtype), input)
    return record(out, DiagonalBackward0, (input,), offset=offset, dim1=dim1, dim2=dim2,
                  self_sizes=data.shape)


class TrilBackward0(Node):
    def backward(self, grad):
        return (tril(grad, self.diagonal),)


class TriuBackward0(Node):
    def backward(self, grad):
        return (triu(grad, self.diagonal),)


def _triangle(input, diagonal, lower, node_class):
    if input._data.ndim < 2:
        raise RuntimeError(f"{'tril' if lower else 'triu'}: input tensor must have at least 2 dimensions")
    xp = array_module(input._device)
    out = wrap((xp.tril if lower else xp.triu)(input._data, diagonal), input)
    return record(out, node_class, (input,), diagonal=diagonal)


def tril(input, diagonal=0):
    """The lower triangle (on and below the ``diagonal``-th diagonal) of the last two dims; zeros above."""
    return _triangle(input, diagonal, True, TrilBackward0)


def triu(input, diagonal=0):
    """The upper triangle (on and above the ``diagonal``-th diagonal) of the last two dims; zeros below."""
    return _triangle(input, diagonal, False, TriuBackward0)


class UnfoldBackward0(Node):
    """``unfold_backward``: each window's gradient added back at the elements it covers
    (overlapping windows add up), with ``index_add`` so it can be differentiated again."""

    def backward(self, grad):
        from .._creation import arange, zeros
        if not self.self_sizes:
            return (grad.sum(),)
        dim, size, step = self.dim, self.size, self.step
        positions = (arange(grad.shape[dim], device=grad.device).unsqueeze(1) * step
                     + arange(size, device=grad.device)).reshape(-1)
        moved = grad.movedim(-1, dim + 1)
        pieces = moved.reshape(moved.shape[:dim] + (positions.shape[0],) + moved.shape[dim + 2:])
        out = zeros(self.self_sizes, dtype=grad.dtype, device=grad.device)
        return (out.index_add(dim, positions, pieces),)


def unfold(input, dimension, size, step):
    """A view of all the slices of length ``size`` along ``dimension``, ``step`` apart, as a new
    last dimension (``Tensor.unfold``, ``aten/src/ATen/native/TensorShape.cpp``)."""
    data = input._data
    dim = _wrap_dim(dimension, max(data.ndim, 1))
    length = data.shape[dim] if data.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    xp = array_module(input._device)
    if not data.ndim:
        view = data.reshape(1)[:size]
    else:
        windows = (length - size) // step + 1
        shape = data.shape[:dim] + (windows,) + data.shape[dim + 1:] + (size,)
        strides = (data.strides[:dim] + (data.strides[dim] * step,) + data.strides[dim + 1:]
                   + (data.strides[dim],))
        view = xp.lib.stride_tricks.as_strided(data, shape, strides)
    out = make_view(input, view)
    return record(out, UnfoldBackward0, (input,), dim=dim, size=size, step=step, self_sizes=data.shape)

"""``reflection_pad{1,2,3}d`` and ``replication_pad{1,2,3}d`` with their nodes, and the circular padding
that ATen composes from slice copies (``aten/src/ATen/native/ReflectionPad.cpp``, ``ReplicationPadding.cpp``,
``PadNd.cpp``: ``_pad_circular_symint``).

Each padded position copies one input position (mirrored, or the nearest edge); the backward adds
the gradient of every padded position onto the position it copies, with ``index_add``, so it
differentiates again.  Negative padding crops, as in ATen.
"""
from ..core._device import array_module
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import record, wrap

__all__ = ["pad_by_index", "pad_circular"]


class _PadBackward(Node):
    def backward(self, grad):
        for axis, index, size in reversed(self.maps):
            shape = list(grad.shape)
            shape[axis] = size
            grad = grad.new_zeros(shape).index_add(axis, index, grad)
        return (grad,)


def _node(kind, k):
    return type(f"{kind}Pad{k}DBackward0", (_PadBackward,), {"__doc__": f"The backward of {kind.lower()}_pad{k}d."})


_NODES = {(kind, k): _node(kind, k) for kind in ("Reflection", "Replication") for k in (1, 2, 3)}
_ARGUMENT = {0: 4, 1: 6, 2: 8}  # ATen's argument number in the error, per padded dim (width first)


def pad_by_index(input, pad, mode):
    """``'reflect'`` or ``'replicate'`` padding of the last ``len(pad) // 2`` dims: ``pad`` is ``(left, right,
    top, bottom, front, back)``, last dim first; the dims before them are ``(N, C)`` or ``(C)``."""
    k = len(pad) // 2
    x = input._data
    xp = array_module(input._device)
    batch_dims = x.ndim - k
    if any(x.shape[d] == 0 for d in range(1 if batch_dims == 2 else 0, x.ndim)):
        expected = {1: "2D or 3D", 2: "3D or 4D", 3: "4D or 5D"}[k]
        raise RuntimeError(f"Expected {expected} (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(x.shape)}")
    maps, data = [], x
    for i in range(k):
        axis = x.ndim - 1 - i
        before, after, size = int(pad[2 * i]), int(pad[2 * i + 1]), x.shape[axis]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(f"Argument #{_ARGUMENT[i]}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({before}, {after}) at dimension {axis} of input "
                               f"{list(x.shape)}")
        if size + before + after < 1:
            raise RuntimeError(f"input (size {size} at dimension {axis}) is too small for padding ({before}, {after}): "
                               f"the output would have size {size + before + after}")
        positions = xp.arange(-before, size + after)
        if mode == "reflect":
            index = xp.abs(positions)
            index = xp.where(index >= size, 2 * (size - 1) - index, index)
        else:
            index = xp.clip(positions, 0, size - 1)
        data = xp.take(data, index, axis=axis)
        maps.append((axis, Tensor._make(index, input._device), size))
    node = _NODES[("Reflection" if mode == "reflect" else "Replication", k)]
    return record(wrap(data, input), node, (input,), maps=maps)


def pad_circular(input, pad):
    """ATen's ``_pad_circular_symint``: the input copied into the middle of a new tensor, then each padded
    border copied from the other end, one dim at a time (the graph's top node is ``CopySlices``)."""
    in_shape = list(input.shape)
    k = len(pad) // 2
    nonpadded = len(in_shape) - k
    if nonpadded not in (1, 2):
        raise RuntimeError(f"Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent "
                           f"to padding of length {(len(in_shape) - 1) * 2} or {(len(in_shape) - 2) * 2} respectively "
                           f"but got {len(pad)}")
    out_shape = list(in_shape)
    for i in range(k):
        left, right = int(pad[2 * (k - i - 1)]), int(pad[2 * (k - i - 1) + 1])
        size = in_shape[nonpadded + i]
        out_shape[nonpadded + i] = size + left + right
        if left > size or right > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[nonpadded + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = input.new_zeros(out_shape)
    out_slice, in_slice = out, input
    for i in range(k):
        dim = len(in_shape) - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        out_slice = out_slice.narrow(dim, max(left, 0), out_shape[dim] - max(right, 0) - max(left, 0))
        in_slice = in_slice.narrow(dim, max(-left, 0), in_shape[dim] - max(-right, 0) - max(-left, 0))
    out_slice.copy_(in_slice)
    for i in range(k):
        dim = len(in_shape) - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        if left > 0:
            out.narrow(dim, 0, left).copy_(out.narrow(dim, out_shape[dim] - left - max(right, 0), left))
        if right > 0:
            out.narrow(dim, out_shape[dim] - right, right).copy_(out.narrow(dim, max(left, 0), right))
    return out

"""``max_unpool2d`` (the partial inverse of max pooling) and ``channel_shuffle``, with their nodes
(``aten/src/ATen/native/MaxUnpooling.cpp``, ``ChanelShuffle.cpp``; ``derivatives.yaml``: ``max_unpool2d``'s
gradient gathers at the indices, ``channel_shuffle``'s shuffles back).  Both backward passes are tensor ops.
"""
from ..core import _dtype
from ..core._device import array_module
from ..core.autograd.graph import Node
from ._common import NotImplemented  # noqa: A004 - PyTorch's name
from ._common import needs_grad, record, wrap

__all__ = ["max_unpool2d", "channel_shuffle", "native_channel_shuffle"]


class MaxUnpool2DBackward0(Node):
    def backward(self, grad):
        (indices,) = self.saved_tensors
        lead = tuple(grad.shape[:-2])
        flat = grad.reshape(*lead, -1).gather(len(lead), indices.reshape(*lead, -1))
        return (flat.reshape(indices.shape),)


def max_unpool2d(input, indices, output_size):
    """Zeros of ``(N, C, *output_size)`` with each input value written at its index (a flat position in ``H*W``)."""
    if indices._dtype is not _dtype.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices._dtype._legacy_name[:-6]}")
    if len(output_size) != 2:
        raise RuntimeError(f"There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {input.dim()} "
                           "dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"max_unpooling2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but got {list(input.shape)} with dimension {d} being empty.")
    oh, ow = int(output_size[0]), int(output_size[1])
    xp = array_module(input._device)
    x, idx = input._data, indices._data
    lead = x.shape[:-2]
    flat_x, flat_i = x.reshape(-1, x.shape[-2] * x.shape[-1]), idx.reshape(-1, x.shape[-2] * x.shape[-1])
    if flat_i.size and (int(flat_i.min()) < 0 or int(flat_i.max()) >= oh * ow):
        bad = int(flat_i.max()) if int(flat_i.max()) >= oh * ow else int(flat_i.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {oh}x{ow})")
    out = xp.zeros((flat_x.shape[0], oh * ow), dtype=x.dtype)
    out[xp.arange(flat_x.shape[0])[:, None], flat_i] = flat_x
    return record(wrap(out.reshape(*lead, oh, ow), input), MaxUnpool2DBackward0, (input,), saved=(indices,))


class ChannelShuffleBackward0(Node):
    def backward(self, grad):
        return (channel_shuffle(grad, grad.shape[1] // self.groups),)


def channel_shuffle(input, groups):
    """``(N, C, *)``: the channels seen as ``(groups, C / groups)``, transposed to ``(C / groups, groups)``."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and {groups} "
                           "groups.")
    x = input._data
    n, rest = x.shape[0], x.shape[2:]
    data = x.reshape(n, groups, channels // groups, *rest).swapaxes(1, 2).reshape(x.shape)
    return record(wrap(array_module(input._device).ascontiguousarray(data), input), ChannelShuffleBackward0, (input,),
                  groups=groups)


def native_channel_shuffle(input, groups):
    """:func:`channel_shuffle` without a derivative, as PyTorch's ``native_channel_shuffle``: its result's node is
    ``NotImplemented`` and backpropagating through it raises."""
    out = channel_shuffle(input.detach(), groups)
    if needs_grad(input):
        out.grad_fn = NotImplemented("native_channel_shuffle", (input,))
    return out

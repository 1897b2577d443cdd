"""ATen's kernels behind ``torch.nn.utils.rnn``: ``_pack_padded_sequence`` (one op, node
``PackPaddedSequenceBackward0``) and ``_pad_packed_sequence`` (a composite: ``full`` then one
slice ``copy_`` per run of equal batch sizes, so autograd records ``CopySlices`` as PyTorch does)
(``aten/src/ATen/native/PackedSequence.cpp``).

A packed sequence stores the time steps one after another, each holding the sequences still
running at that step (lengths sorted decreasingly), so step ``t`` keeps batch entries
``b < batch_sizes[t]``: the rows of the time-major padded input where ``t < lengths[b]``, in
row-major order, which is one boolean index.
"""
from ..core._device import array_module
from ..core._dtype import int64
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import record, wrap

__all__ = ["pack_padded_sequence", "pad_packed_sequence"]


def _check_lengths(lengths, argument):
    """``checkLongTensor``: a 1-D int64 tensor in host memory."""
    if lengths.dim() != 1 or lengths.device.type != "cpu" or lengths.dtype is not int64:
        raise RuntimeError(f"'{argument}' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                           f"{lengths.device} {lengths.dtype._legacy_name[:-6]} tensor")


class PackPaddedSequenceBackward0(Node):
    """The packed gradient put back at its padded positions, zeros elsewhere
    (``_pack_padded_sequence_backward``)."""

    def backward(self, grad):
        padded, _ = pad_packed_sequence(grad, self.batch_sizes, self.batch_first, 0.0, self.input_sizes[0])
        return (padded,)


def pack_padded_sequence(input, lengths, batch_first):
    """``(data, batch_sizes)`` of the padded ``input`` (``_pack_padded_sequence``)."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    _check_lengths(lengths, "lengths")
    steps_first = input.transpose(0, 1) if batch_first else input
    batch_size = steps_first.shape[1]
    sizes = lengths._data
    if sizes.shape[0] != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {sizes.shape[0]} "
                           f"(batch_size={batch_size})")
    if sizes[batch_size - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if (sizes[1:] > sizes[:-1]).any():
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    host = array_module(lengths.device)
    # one entry per step up to the longest length, even past the input's end (ATen's slices clamp)
    batch_sizes = (host.arange(sizes[0])[:, None] < sizes[None, :]).sum(1)
    xp = array_module(input.device)
    running = xp.arange(steps_first.shape[0])[:, None] < xp.asarray(sizes)[None, :]
    data = wrap(steps_first._data[running], input)
    batch_sizes = Tensor._make(batch_sizes.astype(host.int64), lengths.device)
    record(data, PackPaddedSequenceBackward0, (input,), input_sizes=tuple(steps_first.shape),
           batch_sizes=batch_sizes, batch_first=batch_first)
    return data, batch_sizes


def pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length):
    """``(padded, lengths)``: the steps of ``data`` laid out as ``(total_length, batch, *)``
    (batch first if asked), ``padding_value`` past each sequence's end (``_pad_packed_sequence``)."""
    _check_lengths(batch_sizes, "batch_sizes")
    from .._creation import full
    sizes = [int(s) for s in batch_sizes._data]
    max_batch_size, steps = sizes[0], len(sizes)
    if total_length > 0:
        if total_length < steps:
            raise RuntimeError("Expected total_length to be at least the length of the longest sequence in input, "
                               f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    output = full((steps, max_batch_size, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    host = array_module(batch_sizes.device)
    # sequence b (sorted) runs while batch_sizes[t] > b: its length counts those steps
    lengths = (batch_sizes._data[:, None] > host.arange(max_batch_size)[None, :]).sum(0).astype(host.int64)
    offset, start = 0, 0
    for t in range(1, len(sizes) + 1):  # one copy per run of equal batch sizes, as ATen's loop
        if t == len(sizes) or sizes[t] != sizes[start]:
            count = sizes[start] * (t - start)
            output[start:t, :sizes[start]].copy_(data[offset:offset + count].view(t - start, sizes[start],
                                                                                   *data.shape[1:]))
            offset, start = offset + count, t
    if batch_first:
        output = output.transpose(0, 1)
    return output, Tensor._make(lengths, batch_sizes.device)

"""Variable-length sequences for the recurrent layers: ``pad_sequence``, ``pack_padded_sequence``,
``pad_packed_sequence``, ``pack_sequence``, their inverses and ``PackedSequence``
(``torch/nn/utils/rnn.py``; the kernels are ATen's, in ``nnref/_ops/packed_sequence.py``).

A ``PackedSequence`` holds the time steps of a batch of sequences back to back, each step only
the sequences still running (sorted longest first): ``batch_sizes[t]`` of them.  nn.RNN, LSTM and
GRU take one and return one, with each sequence's final state taken at its own last step.
"""
from collections import namedtuple
from collections.abc import Iterable

from ...core import _dtype
from ..._creation import arange, as_tensor, empty_like, full
from ..._ops import packed_sequence as _packed
from ...core._naming import TorchNamed
from ..._ops.sorting import sort
from ...core._tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]



class PackedSequence_(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"]),
                      metaclass=TorchNamed):
    __slots__ = ()


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """The steps of a batch of variable-length sequences, packed (``torch/nn/utils/rnn.py``).

    ``data`` holds the steps one after another, ``batch_sizes`` (int64, on the CPU) how many
    sequences each step holds, ``sorted_indices`` the batch order the packing sorted the
    sequences into (None if they came sorted) and ``unsorted_indices`` its inverse.  Build one
    with :func:`pack_padded_sequence` or :func:`pack_sequence`, not by hand.
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                unsorted_indices))

    def to(self, *args, **kwargs):
        """``data`` converted as ``Tensor.to`` converts it, the indices moved to its device;
        ``self`` when nothing changes (``torch/nn/utils/rnn.py``)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices = _bind(self.sorted_indices, lambda t: t.to(data.device))
        unsorted_indices = _bind(self.unsorted_indices, lambda t: t.to(data.device))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        """``to('cuda')`` (``torch/nn/utils/rnn.py``)."""
        return self.to(*args, device="cuda", **kwargs)

    def cpu(self, *args, **kwargs):
        """``to('cpu')`` (``torch/nn/utils/rnn.py``)."""
        return self.to(*args, device="cpu", **kwargs)

    def double(self):
        """``data`` as float64 (``torch/nn/utils/rnn.py``)."""
        return self.to(dtype=_dtype.float64)

    def float(self):
        """``data`` as float32 (``torch/nn/utils/rnn.py``)."""
        return self.to(dtype=_dtype.float32)

    def half(self):
        """``data`` as float16 (``torch/nn/utils/rnn.py``)."""
        return self.to(dtype=_dtype.float16)

    def long(self):
        """``data`` as int64 (``torch/nn/utils/rnn.py``)."""
        return self.to(dtype=_dtype.int64)

    def int(self):
        """``data`` as int32 (``torch/nn/utils/rnn.py``)."""
        return self.to(dtype=_dtype.int32)

    def short(self):
        """``data`` as int16 (``torch/nn/utils/rnn.py``)."""
        return self.to(dtype=_dtype.int16)

    def char(self):
        """``data`` as int8 (``torch/nn/utils/rnn.py``)."""
        return self.to(dtype=_dtype.int8)

    def byte(self):
        """``data`` as uint8 (``torch/nn/utils/rnn.py``)."""
        return self.to(dtype=_dtype.uint8)

    @property
    def is_cuda(self):
        """Whether ``data`` is on a CUDA device (``torch/nn/utils/rnn.py``)."""
        return self.data.is_cuda


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    """The four fields; ``PackedSequence((data, batch_sizes), sorted_indices=...)`` is accepted too."""
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The inverse of a 1-D permutation tensor; None for None (``torch/nn/utils/rnn.py``)."""
    if permutation is None:
        return None
    output = empty_like(permutation)
    output.scatter_(0, permutation, arange(0, permutation.numel(), device=permutation.device))
    return output


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` if ``batch_first``) of sequences of the
    given ``lengths``; ``enforce_sorted=False`` sorts them longest first and remembers the order
    (``torch/nn/utils/rnn.py``)."""
    if not isinstance(lengths, Tensor):
        lengths = as_tensor(lengths, dtype=_dtype.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=_dtype.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _packed.pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch of a ``PackedSequence`` in the original batch order, and each sequence's
    length (int64); ``total_length`` pads to that many steps (``torch/nn/utils/rnn.py``)."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _packed.pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first,
                                                         padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        return (padded_output.index_select(0 if batch_first else 1, unsorted_indices),
                lengths[unsorted_indices.cpu()])
    return padded_output, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences ``(L_i, *)`` into ``(T, B, *)`` (``(B, T, *)`` if ``batch_first``), padding
    each to the longest with ``padding_value`` on ``padding_side`` (``torch/nn/utils/rnn.py``,
    ATen's ``pad_sequence`` in ``aten/src/ATen/native/PackedSequence.cpp``)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    max_len = max(seq.shape[0] for seq in sequences)
    trailing = tuple(sequences[0].shape[1:])
    out_dims = (len(sequences), max_len, *trailing) if batch_first else (max_len, len(sequences), *trailing)
    out = full(out_dims, padding_value, dtype=sequences[0].dtype, device=sequences[0].device)
    for i, seq in enumerate(sequences):  # one copy per sequence, as ATen's loop
        length = seq.shape[0]
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length (``torch/nn/utils/rnn.py``).

    PyTorch transposes a time-major ``padded_sequences`` in place (``transpose_``), so the caller's
    tensor is left batch-first; nnref leaves the caller's tensor as it was."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    idx = arange(max_length, device=lengths.device)
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences ``(L_i, *)``: ``pad_sequence`` then ``pack_padded_sequence``
    (``torch/nn/utils/rnn.py``)."""
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a ``PackedSequence``, in the original order (``torch/nn/utils/rnn.py``)."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)

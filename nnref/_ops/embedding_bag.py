"""``embedding_bag``: the sum, mean or max of the embedding rows of each bag of indices, with its node
(``aten/src/ATen/native/EmbeddingBag.cpp``: ``_embedding_bag_cpu_impl_out``; its backward
``_embedding_bag_dense_backward`` and ``_embedding_bag_per_sample_weights_backward``).

The backward is numpy (first order only: ``create_graph=True`` through it raises).
"""
from ..core._device import array_module_of
from ._common import record, wrap
from ._first_order import FirstOrderBackward
from .native import _as, _check_indices, _opmath

__all__ = ["embedding_bag"]


class EmbeddingBagBackward0(FirstOrderBackward):
    """The weight's gradient: each bag's output gradient added to the rows it read (divided by the bag's
    size for 'mean', only at the maximum for 'max'); ``per_sample_weights``' gradient: the output gradient
    dotted with the row it weighted."""

    def backward(self, grad):
        (weight,) = self.saved_tensors
        g = _opmath(grad._data)
        xp = array_module_of(g)
        idx, bag, valid = self.indices, self.bag_of, self.valid
        rows, dim = weight._data.shape
        needs = self.needs_input_grad
        wants_weight, wants_psw = needs[0], len(needs) > 1 and needs[1]
        grad_weight = grad_psw = None
        if wants_weight:
            grad_weight = xp.zeros((rows, dim), dtype=g.dtype)
            if self.mode == "max":
                filled = self.bag_sizes > 0
                columns = xp.broadcast_to(xp.arange(dim), self.max_indices.shape)
                xp.add.at(grad_weight, (self.max_indices[filled], columns[filled]), g[filled])
            else:
                per_row = g[bag[valid]]
                if self.mode == "mean":
                    per_row = per_row / xp.maximum(self.bag_sizes, 1)[bag[valid], None].astype(g.dtype)
                if self.per_sample_weights is not None:
                    per_row = per_row * _opmath(self.per_sample_weights._data)[valid, None]
                if self.scale_grad_by_freq:
                    counts = xp.bincount(idx[valid], minlength=rows)
                    per_row = per_row / counts[idx[valid], None].astype(g.dtype)
                xp.add.at(grad_weight, idx[valid], per_row)
            grad_weight = wrap(_as(grad_weight, weight._data), grad)
        if wants_psw:
            psw = self.per_sample_weights
            dots = (g[bag] * _opmath(weight._data)[idx]).sum(axis=1)
            dots = xp.where(valid, dots, dots.dtype.type(0))
            grad_psw = wrap(_as(dots, psw._data), grad)
        return (grad_weight, grad_psw) if len(needs) > 1 else (grad_weight,)


def embedding_bag(weight, input, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                  scale_grad_by_freq):
    """The ``mode`` ('sum', 'mean', 'max') of the rows of ``weight`` in each bag: ``input`` is 1-D, the bags
    start at ``offsets`` (and, with ``include_last_offset``, the last offset ends the last bag)."""
    _check_indices(input, "embedding_bag")
    _check_indices(offsets, "embedding_bag")
    idx = input._data.astype("int64")
    starts = offsets._data.astype("int64")
    xp = array_module_of(idx)
    n = idx.size
    if starts.size:
        if int(starts[0]) != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {int(starts[0])}")
        if int(starts[-1]) > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                               f"{int(starts[-1])}")
        if starts.size > 1 and bool((starts[1:] < starts[:-1]).any()):
            raise RuntimeError(f"embedding_bag: offsets must be non-decreasing, got {starts.tolist()}")
    rows = weight._data.shape[0]
    if n and (int(idx.min()) < 0 or int(idx.max()) >= rows):
        raise RuntimeError(f"embedding_bag: index out of range: the weight has {rows} rows, but the input holds "
                           f"indices from {int(idx.min())} to {int(idx.max())}")
    if include_last_offset:
        bags, end = max(starts.size - 1, 0), (int(starts[-1]) if starts.size else 0)
        starts = starts[:bags]
    else:
        bags, end = starts.size, n
    positions = xp.arange(n)
    bag_of = xp.searchsorted(starts, positions, side="right") - 1 if bags else xp.zeros(n, dtype=idx.dtype)
    valid = (positions < end) & (bag_of >= 0)
    if padding_idx is not None:
        valid &= idx != padding_idx
    w = weight._data
    dim = w.shape[1]
    bag_sizes = xp.bincount(bag_of[valid], minlength=bags)[:bags] if bags else xp.zeros(0, dtype=idx.dtype)
    out = xp.zeros((bags, dim), dtype=_opmath(w).dtype)
    max_indices = None
    if mode == "max":
        max_indices = xp.zeros((bags, dim), dtype=idx.dtype)
        for b in range(bags):
            members = idx[valid & (bag_of == b)]
            if members.size:
                chosen = w[members]
                first = chosen.argmax(axis=0)  # the first maximum, as ATen's strict '>'
                out[b] = chosen[first, xp.arange(dim)]
                max_indices[b] = members[first]
    else:
        contributions = _opmath(w)[idx[valid]]
        if per_sample_weights is not None:
            contributions = contributions * _opmath(per_sample_weights._data)[valid, None]
        xp.add.at(out, bag_of[valid], contributions)
        if mode == "mean":
            out /= xp.maximum(bag_sizes, 1)[:, None].astype(out.dtype)
    result = wrap(_as(out, w), weight)
    inputs = (weight,) if per_sample_weights is None else (weight, per_sample_weights)
    return record(result, EmbeddingBagBackward0, inputs,
                  saved=(weight,), indices=idx, bag_of=bag_of, valid=valid, bag_sizes=bag_sizes, mode=mode,
                  max_indices=max_indices, per_sample_weights=per_sample_weights,
                  scale_grad_by_freq=scale_grad_by_freq)

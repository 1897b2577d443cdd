"""``scatter_reduce``: ``src`` combined into ``input`` at ``index`` along ``dim`` by ``"sum"``,
``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``, with or without ``input``'s own values.

Mirrors ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` (``scatter_reduce_two``); the
gradient is ``scatter_reduce_backward`` of ``FunctionsManual.cpp`` (ties of ``amax``/``amin``
share evenly, ``prod`` handles zeros exactly), written with nnref ops.  The values are grouped by
destination with a stable sort and each group reduced by a segmented scan (log2(n) whole-array
steps), which needs no ``ufunc.at`` beyond what CuPy has: the same code runs on a GPU.
Integer ``"mean"`` rounds down, as PyTorch's does.
"""
import numpy as np

from ..core._device import array_module
from ..core.autograd.graph import Node
from ._common import record, wrap
from .cumulative import _scan
from .scatter import _check, _grid, _normalised

__all__ = ["scatter_reduce"]

_OPS = ("sum", "prod", "mean", "amax", "amin")


def _segment_reduce(xp, keys, values, combine):
    """Each run of equal ``keys`` (sorted) reduced with ``combine``: (the keys, the results)."""
    starts = xp.concatenate([xp.ones(1, dtype=bool), keys[1:] != keys[:-1]])
    ends = xp.concatenate([keys[1:] != keys[:-1], xp.ones(1, dtype=bool)])

    def segmented(earlier_flag, earlier, later_flag, later):
        return earlier_flag | later_flag, xp.where(later_flag, later, combine(earlier, later))
    _, scanned = _scan(segmented, starts, values)
    return keys[ends], scanned[ends]


def _reduced(input, dim, index, src, reduce, include_self):
    xp = array_module(input._device)
    data = input._data
    grid = _grid(_normalised(index._data, dim, data, xp), dim, xp)
    out = data.copy().reshape(-1)
    if not index._data.size:
        return out.reshape(data.shape)
    flat = xp.ravel_multi_index(tuple(xp.broadcast_to(g, index._data.shape) for g in grid), data.shape).reshape(-1)
    values = src._data[tuple(slice(0, s) for s in index._data.shape)].reshape(-1)
    order = xp.argsort(flat, kind="stable")
    keys, values = flat[order], values[order]
    with np.errstate(over="ignore", invalid="ignore"):
        if reduce in ("sum", "mean"):
            places, totals = _segment_reduce(xp, keys, values, xp.add)
        elif reduce == "prod":
            places, totals = _segment_reduce(xp, keys, values, xp.multiply)
        else:
            places, totals = _segment_reduce(xp, keys, values, xp.maximum if reduce == "amax" else xp.minimum)
        own = out[places]
        if reduce == "mean":
            _, counts = _segment_reduce(xp, keys, xp.ones(keys.shape, dtype=np.int64), xp.add)
            if include_self:
                totals, counts = totals + own, counts + 1
            if input._dtype.is_floating_point:
                totals = totals / counts.astype(totals.dtype)
            else:
                totals = xp.floor_divide(totals, counts.astype(totals.dtype))
        elif include_self:
            combine = {"sum": xp.add, "prod": xp.multiply, "amax": xp.maximum, "amin": xp.minimum}[reduce]
            totals = combine(own, totals)
        out[places] = totals.astype(out.dtype, copy=False)
    return out.reshape(data.shape)


class ScatterReduceBackward0(Node):
    def backward(self, grad):
        from .._creation import ones_like, zeros_like
        from .pointwise import where
        from .scatter import gather, scatter, scatter_add
        self_, src, result = self.saved_tensors
        dim, index, reduce, include_self = self.dim, self.index, self.reduce, self.include_self
        src = src[tuple(slice(0, s) for s in index.shape)] if tuple(src.shape) != tuple(index.shape) else src
        if reduce == "sum":
            grad_self, grad_src = grad, gather(grad, dim, index)
        elif reduce == "mean":
            count = (ones_like(grad) if include_self else zeros_like(grad)).scatter_add(dim, index, ones_like(src))
            count = count.masked_fill(count == 0, 1)
            grad_self, grad_src = grad / count, gather(grad, dim, index) / gather(count, dim, index)
        elif reduce in ("amax", "amin"):
            value = gather(result, dim, index)
            self_wins, src_wins = (self_ == result).to(grad.dtype), (src == value).to(grad.dtype)
            shared = grad / scatter_add(self_wins, dim, index, src_wins)
            grad_self, grad_src = self_wins * shared, src_wins * gather(shared, dim, index)
        else:  # prod: the product of the others, exactly where there are zeros
            masked_self = self_.masked_fill(self_ == 0, 1)
            grad_self = grad * scatter_reduce(masked_self, dim, index, src, "prod", include_self=include_self) / masked_self
            src_zero = src == 0
            zeros_there = gather(scatter_add(zeros_like(self_), dim, index, src_zero.to(self_.dtype)), dim, index)
            single_zero = src_zero & (zeros_there == 1)
            masked_src_result = scatter_reduce(self_, dim, index, src.masked_fill(single_zero, 1), "prod",
                                               include_self=include_self)
            grad_src = where(single_zero, gather(grad * masked_src_result, dim, index),
                             gather(grad * result, dim, index) / src.masked_fill(src_zero, 1))
        if not include_self:
            grad_self = scatter(grad_self, dim, index, 0.0)
        if tuple(self.src_sizes) != tuple(grad_src.shape):  # src larger than index: PyTorch's engine refuses it
            raise RuntimeError(f"Function ScatterReduceBackward0 returned an invalid gradient at index 1 - got "
                               f"{list(grad_src.shape)} but expected shape compatible with {list(self.src_sizes)}")
        return grad_self, grad_src


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """A copy of ``input`` where each ``src`` element is combined into ``input[...index...]``
    along ``dim`` by ``reduce`` (``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``); with
    ``include_self=False`` the places written take the reduction of ``src`` alone
    (``torch.scatter_reduce``, ``aten/src/ATen/native/TensorAdvancedIndexing.cpp``)."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch's undocumented old names
    if reduce not in _OPS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    dim = _check("scatter_reduce", input, dim, index, src)
    if src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    out = wrap(_reduced(input, dim, index, src, reduce, include_self), input)
    return record(out, ScatterReduceBackward0, (input, src), saved=(input, src), save_result=True, dim=dim,
                  index=index, reduce=reduce, include_self=include_self, src_sizes=src._data.shape)

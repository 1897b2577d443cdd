"""``pdist``: the ``p``-norm distance between every pair of rows, with its node (``aten/src/ATen/native/Distance.cpp``,
``_pdist_forward`` and ``_pdist_backward``).  The backward is written with tensor ops."""
import math

from ..core._device import array_module
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import record, wrap
from .pointwise import where

__all__ = ["pdist"]


class PdistBackward0(Node):
    """Each pair's gradient ``d dist / d (x_i - x_j)``, added to row ``i`` and subtracted from row ``j``
    (zero for a pair at distance 0)."""

    def backward(self, grad):
        (self_,) = self.saved_tensors
        p, i, j = self.p, self.rows_i, self.rows_j
        diff = self_.index_select(0, i) - self_.index_select(0, j)
        dist = self.result.unsqueeze(1)
        if p == 0:
            local = diff * 0
        elif p == 1:
            local = diff.sign()
        elif p == 2:
            local = where(dist == 0, 0.0, diff / dist)
        elif math.isinf(p):
            local = where((diff.abs() == dist) & (dist != 0), diff.sign(), 0.0)
        else:
            local = where(dist == 0, 0.0, diff.sign() * diff.abs().pow(p - 1) / dist.pow(p - 1))
        local = local * grad.unsqueeze(1)
        zeros = self_.new_zeros(self_.shape)
        return (zeros.index_add(0, i, local).index_add(0, j, -local),)


def pdist(input, p=2):
    """The ``p``-norm distances of rows ``i < j`` of a 2-D input, in row-major order of the pairs."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input._dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    x = input._data
    xp = array_module(input._device)
    n = x.shape[0]
    i, j = xp.triu_indices(n, 1) if n > 1 else (xp.zeros(0, dtype="int64"), xp.zeros(0, dtype="int64"))
    diff = xp.abs(x[i] - x[j])
    if p == 0:
        data = (diff != 0).sum(axis=1).astype(x.dtype)
    elif math.isinf(p):
        data = diff.max(axis=1) if diff.shape[1] else xp.zeros(diff.shape[0], dtype=x.dtype)
    elif p == 1:
        data = diff.sum(axis=1)
    elif p == 2:
        data = xp.sqrt((diff * diff).sum(axis=1))
    else:
        data = (diff ** x.dtype.type(p)).sum(axis=1) ** x.dtype.type(1.0 / p)
    out = wrap(data.astype(x.dtype, copy=False), input)
    rows_i, rows_j = Tensor._make(i.astype("int64"), input._device), Tensor._make(j.astype("int64"), input._device)
    return record(out, PdistBackward0, (input,), saved=(input,), p=p, rows_i=rows_i, rows_j=rows_j,
                  result=out.detach())

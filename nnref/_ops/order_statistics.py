"""Order statistics: ``median``, ``nanmedian``, ``kthvalue`` and ``mode``.

Mirrors ``aten/src/ATen/native/Sorting.cpp`` (median, nanmedian, kthvalue) and
``TensorCompare.cpp`` (mode).  The values come from a stable sort along the dim (NaN sorts
last): the median is the lower of the two middle values, and a NaN makes the median NaN
(``nanmedian`` skips NaNs).  PyTorch documents the *index* of a value that occurs more than
once as unspecified (it depends on its selection algorithm); here it is the position the
stable sort puts there, which may differ from PyTorch's (book/differences.md).  ``mode`` gives
the smallest of the most frequent values and the last index where it occurs, as PyTorch's CPU
kernel does.

Gradients (``tools/autograd/derivatives.yaml``): with a ``dim`` each value's gradient goes to
its index (``value_selecting_reduction_backward``); the median of all elements shares its
gradient evenly between the elements equal to it (``evenly_distribute_backward``).
"""
import numpy as np

from ..core import _dtype
from ..core._device import array_module, array_module_of
from .. import _meta
from ..core._tensor import _wrap_dim
from ..core.autograd.graph import Node
from ._common import needs_grad, wrap
from .reduction import _IndexSelected, _return_type

__all__ = ["median", "nanmedian", "kthvalue", "mode"]


class MedianBackward0(Node):
    """Every element equal to the median (every NaN, when it is NaN) gets an equal share."""

    def backward(self, grad):
        from .pointwise import masked_grad
        (self_,) = self.saved_tensors
        xp = array_module_of(self_._data)
        mask = xp.isnan(self_._data) if self.result_is_nan else self_._data == self.result._data
        count = int(mask.sum()) if _meta.has_values(mask) else 1
        return (masked_grad((grad / count).expand(self_.shape), mask),)


class NanmedianBackward0(MedianBackward0):
    pass


class _Selected(_IndexSelected):
    def backward(self, grad):
        if not self.self_sizes:  # a 0-d input is its own selection
            return (grad,)
        return super().backward(grad)


class MedianBackward1(_Selected):
    pass


class NanmedianBackward1(_Selected):
    pass


class KthvalueBackward0(_Selected):
    pass


class ModeBackward0(_Selected):
    pass


def _check_values(name, input):
    if input._dtype is _dtype.bool:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')


def _sorted_last(data, xp):
    """``data`` (reduced dim last) stably sorted, and the original positions."""
    order = xp.argsort(data, axis=-1, kind="stable")
    return xp.take_along_axis(data, order, axis=-1), order


def _select(name, node_class, input, dim, keepdim, position):
    """``(values, indices)`` at ``position(sorted values) -> per-row positions`` along ``dim``."""
    xp = array_module(input._device)
    data = input._data
    if not data.ndim:
        values, indices = data.copy(), xp.zeros((), dtype=np.int64)
    else:
        if data.shape[dim] == 0:
            if data.size or name not in ("median", "nanmedian"):
                raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
        last = xp.moveaxis(data, dim, -1)
        if last.size:
            ordered, order = _sorted_last(last, xp)
            picks = position(ordered)[..., None]
            values = xp.take_along_axis(ordered, picks, axis=-1)[..., 0]
            indices = xp.take_along_axis(order, picks, axis=-1)[..., 0].astype(np.int64)
        else:
            values, indices = last[..., 0], xp.zeros(last.shape[:-1], dtype=np.int64)
        if keepdim:
            values, indices = xp.expand_dims(values, dim), xp.expand_dims(indices, dim)
    values, indices = wrap(xp.ascontiguousarray(values) if values.ndim else values, input), wrap(indices, input)
    if needs_grad(input):
        values.grad_fn = node_class((input,), dim=dim, keepdim=keepdim, indices=indices,
                                    self_sizes=data.shape)
    return _return_type(name)(values, indices)


def _middle(skip_nan):
    """The per-row position of the (lower) median in a sorted row: NaNs count unless ``skip_nan``;
    a row with a NaN then has its first NaN there."""
    def position(ordered):
        xp = array_module_of(ordered)
        n = ordered.shape[-1]
        nans = xp.sum(ordered != ordered, axis=-1)
        if skip_nan:
            return xp.maximum(n - nans - 1, 0) // 2
        return xp.where(nans > 0, n - nans, (n - 1) // 2)
    return position


def _median_all(name, node_class, input, skip_nan):
    _check_values(name, input)
    xp = array_module(input._device)
    flat = input._data.reshape(-1)
    if not flat.size:
        value = xp.asarray(np.nan, dtype=input._data.dtype) if input._dtype.is_floating_point else None
        if value is None:
            raise IndexError(f"{name}(): Expected reduction dim 0 to have non-zero size.")
    else:
        ordered, _ = _sorted_last(flat, xp)
        value = ordered[_middle(skip_nan)(ordered)]
    out = wrap(xp.asarray(value).copy(), input)
    if needs_grad(input):
        out.grad_fn = node_class((input,), (input,), result=out.detach(),
                                 result_is_nan=bool(value != value))
    return out


def median(input, dim=None, keepdim=False):
    """The median (the lower of the two middle values; NaN if there is a NaN); with ``dim``,
    ``(values, indices)`` along it (``torch.median``, ``aten/src/ATen/native/Sorting.cpp``)."""
    if dim is None:
        return _median_all("median", MedianBackward0, input, skip_nan=False)
    _check_values("median", input)
    return _select("median", MedianBackward1, input, _wrap_dim(dim, input._data.ndim), keepdim, _middle(False))


def nanmedian(input, dim=None, keepdim=False):
    """``median`` ignoring NaNs (NaN only where every value is NaN) (``torch.nanmedian``,
    ``aten/src/ATen/native/Sorting.cpp``)."""
    if dim is None:
        return _median_all("nanmedian", NanmedianBackward0, input, skip_nan=True)
    _check_values("nanmedian", input)
    return _select("nanmedian", NanmedianBackward1, input, _wrap_dim(dim, input._data.ndim), keepdim, _middle(True))


def kthvalue(input, k, dim=-1, keepdim=False):
    """``(values, indices)`` of the ``k``-th smallest element along ``dim`` (``k`` from 1; NaN
    counts as the largest) (``torch.kthvalue``, ``aten/src/ATen/native/Sorting.cpp``)."""
    _check_values("kthvalue", input)
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim] if input._data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    xp = array_module(input._device)

    def position(ordered):
        return xp.full(ordered.shape[:-1], k - 1, dtype=np.int64)
    return _select("kthvalue", KthvalueBackward0, input, dim, keepdim, position)


def mode(input, dim=-1, keepdim=False):
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest on a tie) and
    the last index where it occurs (``torch.mode``, ``aten/src/ATen/native/TensorCompare.cpp``)."""
    from .cumulative import _scan
    dim = _wrap_dim(dim, input._data.ndim)
    xp = array_module(input._device)

    def position(ordered):
        n = ordered.shape[-1]
        steps = xp.broadcast_to(xp.arange(n, dtype=np.int64), ordered.shape)
        starts = xp.concatenate([xp.ones(ordered.shape[:-1] + (1,), dtype=bool),
                                 ordered[..., 1:] != ordered[..., :-1]], axis=-1)
        (run_start,) = _scan(lambda a, b: (xp.maximum(a, b),), xp.where(starts, steps, 0))
        return xp.argmax(steps - run_start, axis=-1)  # the first end of a longest run
    return _select("mode", ModeBackward0, input, dim, keepdim, position)

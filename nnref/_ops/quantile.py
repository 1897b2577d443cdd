"""``quantile`` and ``nanquantile``: the ``q``-th quantiles of a tensor, over all of it or along a dim.

Mirrors ``aten/src/ATen/native/Sorting.cpp`` (``quantile_checks``, ``quantile_output_shape``,
``quantile_compute``): a composite of differentiable ops, so the gradient is PyTorch's too.  The
values along the reduced dimension are sorted (NaN last); ``q`` becomes a fractional rank
``q * (n - 1)`` (``n`` counting only the non-NaN values for ``nanquantile``; a row holding a NaN
gets the last rank in ``quantile``, so its result is NaN), the interpolation mode rounds that rank
(``nearest`` rounds half to even, as ``round_``), and the two neighbouring sorted values are
gathered and blended with ``lerp``.  Ties therefore send the gradient to the sorted positions the
gathers picked, as in PyTorch.  The result is ``squeeze_``d last, so its ``grad_fn`` is
``SqueezeBackward4``.
"""
import math
import numbers

import numpy as np

from ..core import _dtype
from ..core._tensor import Tensor, _wrap_dim
from ..core.autograd.grad_mode import no_grad
from .out import _resize
from .shape import squeeze_result

__all__ = ["quantile", "nanquantile"]

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _checks(input, q):
    """``quantile_checks``."""
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input._dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if input._dtype != q._dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if input._device != q._device:
        raise RuntimeError("quantile() q tensor must be on the same device as the input tensor")


def _output_shape(dim, input, q, keepdim):
    """``quantile_output_shape``: the ``q`` dimension first, then the input's reduced shape."""
    if dim is not None and input.dim() > 0:
        shape = list(input.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
    else:
        shape = [1] * input.dim() if keepdim else []
    if q.dim() > 0:
        shape.insert(0, q.numel())
    return shape


def _compute(input, q, dim, keepdim, interpolation, ignore_nan):
    """``quantile_compute``."""
    from .._creation import full_like

    wrapped = _wrap_dim(dim if dim is not None else 0, input.dim())
    out_shape = _output_shape(None if dim is None else wrapped, input, q, keepdim)
    if input.device.type != "meta":
        with no_grad():
            in_range = bool(((q >= 0) & (q <= 1)).all())
        if not in_range:
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        sorted_ = input.flatten().sort()[0]
    else:
        sorted_ = input.unsqueeze(-1).transpose(wrapped, -1).sort()[0]
    if q.dim() == 0:
        out_shape.insert(0, q.numel())
    sorted_ = sorted_.view(out_shape[1:] + [sorted_.shape[-1]])
    if sorted_.shape[-1] > 2 ** 24:
        # PyTorch's guard that ranks stay exact as floats.
        raise RuntimeError("quantile() input tensor is too large")

    if ignore_nan:
        ranks = q * (sorted_.isnan().logical_not().sum(-1, True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        last_index = sorted_.shape[-1] - 1
        scaled = q * last_index
        has_nan = sorted_.isnan().any(-1, True)
        shape = np.broadcast_shapes(tuple(scaled.shape), tuple(has_nan.shape))
        ranks = scaled.expand(shape).masked_fill(has_nan.expand(shape), last_index)

    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()

    ranks_below = ranks.long()
    values = sorted_.gather(-1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        if interpolation == "midpoint":
            weights = full_like(ranks, 0.5).masked_fill(ranks.eq(ranks_below), 0)
        else:
            weights = ranks - ranks_below
        values_above = sorted_.gather(-1, ranks.ceil().long())
        values = values.lerp(values_above, weights)

    if q.dim() == 0:
        return squeeze_result(values, -1)
    return squeeze_result(values.unsqueeze(0).transpose(0, -1), -1)


def _quantile(name, input, q, dim, keepdim, interpolation, out, ignore_nan):
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if not isinstance(q, Tensor):
        if not isinstance(q, numbers.Real):
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"q of type {type(q).__name__}")
        q = float(q)
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got "
                               f"{'nan' if math.isnan(q) else q}")
        from .._creation import full
        # PyTorch makes ``q`` in the input's dtype; a non-float input fails the dtype check next.
        q = full((), q, dtype=input._dtype if input._dtype.is_floating_point else _dtype.float64,
                 device=input._device)
    _checks(input, q)
    if dim is not None:
        _wrap_dim(dim, input.dim())
    if out is not None:
        if out._dtype != input._dtype:
            raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
        if out._device != input._device:
            raise RuntimeError("quantile() out tensor must be on the same device as the input tensor")
    result = _compute(input, q, dim, keepdim, interpolation, ignore_nan)
    if out is None:
        return result
    # PyTorch's out= form is a composite too: resize, then ``out.copy_`` (``CopyBackwards``).
    _resize(out, result.shape)
    return out.copy_(result)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles of ``input`` (all of it, or along ``dim``), ``q`` a number or a 1-d
    tensor whose dimension comes first in the result; a NaN makes the quantile NaN
    (``torch.quantile``, ``aten/src/ATen/native/Sorting.cpp``)."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, out, ignore_nan=False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``quantile`` ignoring NaNs: the quantiles of the non-NaN values (NaN where all are NaN)
    (``torch.nanquantile``, ``aten/src/ATen/native/Sorting.cpp``)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, out, ignore_nan=True)

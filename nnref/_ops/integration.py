"""The trapezoidal rule: ``trapezoid`` (``trapz``) and ``cumulative_trapezoid``.

Mirrors ``aten/src/ATen/native/Integration.cpp`` and builds the result as PyTorch does, from
``sum``/``cumsum``, slices, ``select`` and products with a number, so the graph has PyTorch's
nodes: ``MulBackward1`` and ``DivBackward1`` are the products and quotients by a number that
ATen records from C++ (a Python ``t * 0.5`` records ``MulBackward0``).
"""
from ..core._tensor import Tensor, _wrap_dim
from ..core.autograd.graph import Node
from ._common import record

__all__ = ["trapezoid", "trapz", "cumulative_trapezoid"]


class MulBackward1(Node):
    def backward(self, grad):
        return (grad * self.other,)


class DivBackward1(Node):
    def backward(self, grad):
        return (grad / self.other,)


def _times(t, number):
    """``t * number`` recorded as ATen's ``mul.Scalar``."""
    from .arithmetic import mul
    out = mul(t.detach(), number)
    return record(out, MulBackward1, (t,), other=number)


def _divided(t, number):
    """``t / number`` recorded as ATen's ``div.Scalar``."""
    from .arithmetic import div
    out = div(t.detach(), number)
    return record(out, DivBackward1, (t,), other=number)


def _part(t, dim, start=None, stop=None):
    return t[(slice(None),) * dim + (slice(start, stop),)]


def _empty_result(y, dim):
    from .._creation import zeros
    shape = list(y.shape)
    del shape[dim]
    dtype = y.dtype if y.is_floating_point() else None
    return zeros(*shape, dtype=dtype, device=y.device)


def _spacing(y, x, dim):
    """``x``'s differences along ``dim``, viewed to broadcast against ``y``'s (PyTorch's steps)."""
    if x._dtype.name == "bool" or y._dtype.name == "bool":
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[dim]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        sizes = [1] * y._data.ndim
        sizes[dim] = x._data.shape[0]
        x = x.view(sizes)
    elif x._data.ndim < y._data.ndim:
        x = x.view([1] * (y._data.ndim - x._data.ndim) + list(x.shape))
    return _part(x, dim, 1) - _part(x, dim, None, -1)


_UNSET = object()  # (dx=None is refused, as PyTorch refuses it)


def _checked(name, x, dx):
    if dx is None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got dx=NoneType; dx must be a number")
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'x' (position 2) must be Tensor, not {type(x).__name__}")
    if x is not None and dx is not _UNSET:
        raise TypeError(f"{name}() received an invalid combination of arguments: pass either x or dx")
    if isinstance(x, Tensor):
        return x
    return 1 if dx is _UNSET else dx


def trapezoid(y, x=None, *, dx=_UNSET, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoidal rule, with sample points ``x`` (a
    tensor) or a constant spacing ``dx`` (default 1) (``torch.trapezoid``,
    ``aten/src/ATen/native/Integration.cpp``)."""
    x = _checked("trapezoid", x, dx)
    dim = _wrap_dim(dim, y._data.ndim)
    if isinstance(x, Tensor):
        if not y._data.shape[dim]:
            return _empty_result(y, dim)
        step = _spacing(y, x, dim)
        return _divided(((_part(y, dim, 1) + _part(y, dim, None, -1)) * step).sum(dim), 2.0)
    if not y._data.shape[dim]:
        return _empty_result(y, dim)
    from .indexing import select
    ends = _times(select(y, dim, 0) + select(y, dim, -1), 0.5)
    return _times(y.sum(dim) - ends, x)


def trapz(y, x=None, *, dx=_UNSET, dim=-1):
    """``trapezoid`` (its older name) (``torch.trapz``, ``aten/src/ATen/native/Integration.cpp``)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=_UNSET, dim=-1):
    """The running integral of ``y`` along ``dim`` by the trapezoidal rule (one value fewer than
    ``y`` along ``dim``) (``torch.cumulative_trapezoid``, ``aten/src/ATen/native/Integration.cpp``)."""
    x = _checked("cumulative_trapezoid", x, dx)
    dim = _wrap_dim(dim, y._data.ndim)
    pairs = _part(y, dim, None, -1) + _part(y, dim, 1)
    if isinstance(x, Tensor):
        return _divided((pairs * _spacing(y, x, dim)).cumsum(dim), 2.0)
    return _times(pairs, x / 2.0).cumsum(dim)


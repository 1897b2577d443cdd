"""``torch._weight_norm`` and ``torch.norm_except_dim``, and ``_weight_norm_interface``: the fused
kernel ``_weight_norm`` uses when the norm is taken over every dimension but the first or but the
last, with its node ``WeightNormInterfaceBackward0``.

Mirrors ``aten/src/ATen/native/WeightNorm.cpp`` and the CPU kernels of
``aten/src/ATen/native/cpu/WeightNormKernel.cpp`` (``weight_norm_first_dim_kernel``,
``weight_norm_last_dim_kernel`` and their backward): ``w = v * (g / ||v||)``, with the norm of each
slice kept for the backward.
"""
from ..core._device import array_module_of
from ..core.autograd.graph import Node
from ._common import record, wrap

__all__ = ["norm_except_dim", "weight_norm", "weight_norm_interface"]


def _other_axes(ndim, dim):
    """The axes the norm reduces: all but ``dim`` (0 or the last)."""
    return tuple(a for a in range(ndim) if a != dim)


class WeightNormInterfaceBackward0(Node):
    """``_weight_norm_interface_backward``: with ``s`` the sum over a slice of ``grad_w * v``,
    ``grad_g = s / norm`` and ``grad_v = (g / norm) * (grad_w - v * s / norm**2)``."""

    def backward(self, grad):
        v, g = self.saved_tensors
        need_v, need_g = self.needs_input_grad
        norm = self.norm
        grad_w = grad._data
        s = (grad_w * v._data).sum(axis=_other_axes(grad_w.ndim, self.dim), keepdims=True)
        grad_v = (g._data / norm) * (grad_w - v._data * (s / (norm * norm))) if need_v else None
        grad_g = (s / norm).reshape(g._data.shape) if need_g else None
        return (wrap(grad_v.astype(v._data.dtype, copy=False), grad) if need_v else None,
                wrap(grad_g.astype(g._data.dtype, copy=False), grad) if need_g else None)


def weight_norm_interface(v, g, dim):
    """``w = v * (g / norm_except_dim(v, 2, dim))`` for ``dim`` 0 or ``v.dim() - 1``, recorded as
    one node ``WeightNormInterfaceBackward0`` as PyTorch's fused CPU kernel is."""
    xp = array_module_of(v._data)
    data = v._data
    norm = xp.sqrt((data * data).sum(axis=_other_axes(data.ndim, dim), keepdims=True))
    out = data * (g._data.reshape(norm.shape) / norm)
    return record(wrap(out.astype(data.dtype, copy=False), v), WeightNormInterfaceBackward0, (v, g),
                  saved=(v, g), norm=norm, dim=dim)


def norm_except_dim(v, pow, dim):
    """``torch.norm_except_dim``: the ``pow``-norm of each slice ``v[..., i, ...]`` along ``dim``,
    shaped to broadcast against ``v`` (size 1 but at ``dim``); ``dim=-1`` is the norm of the whole
    tensor, a 0-d tensor (``WeightNorm.cpp``)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        output_size = [1] * v.dim()
        output_size[0] = v.size(0)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(output_size)
    if dim == v.dim() - 1:
        output_size = [1] * v.dim()
        output_size[-1] = v.size(-1)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(output_size)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def weight_norm(v, g, dim):
    """``torch._weight_norm``: ``v * (g / norm_except_dim(v, 2, dim))``, through the fused kernel
    when ``dim`` is 0 or the last dimension (as PyTorch does for float32 and float64), else
    through the differentiable ops."""
    if v.device != g.device:
        raise RuntimeError("weight_norm: expected v_in and g_in to be on the same device, but v_in is on "
                           f"{v.device} and g_in is on {g.device}")
    v, g = v.contiguous(), g.contiguous()
    has_half = "float16" in (str(v.dtype), str(g.dtype))
    if not has_half and (dim == 0 or dim == v.dim() - 1):
        return weight_norm_interface(v, g, dim)
    return v * (g / norm_except_dim(v, 2, dim))

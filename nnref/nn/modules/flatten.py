"""``nn.Flatten`` and ``nn.Unflatten`` (``torch/nn/modules/flatten.py``), ``nn.Upsample``
(``torch/nn/modules/upsampling.py``): layers that change a tensor's shape."""
from ..._ops.shape import flatten
from ._shape_errors import naming_layer
from .module import Module

__all__ = ["Flatten", "Unflatten", "Upsample"]


class Flatten(Module):
    """Merge dims ``start_dim..end_dim`` into one; by default keeps the batch dim: ``(N, *) -> (N, -1)``."""

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        with naming_layer(self, input):
            return flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (the inverse of ``Flatten``): ``(N, 20) -> (N, 4, 5)``."""

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(dim, int):
            raise TypeError(f"invalid argument type for dim parameter, expected `int` but got {type(dim).__name__}")
        if not isinstance(unflattened_size, (tuple, list)) or not all(isinstance(s, int) for s in unflattened_size):
            raise TypeError("unflattened_size must be tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Upsample(Module):
    """Resize the spatial dims with ``F.interpolate`` (``size`` or ``scale_factor``; modes ``nearest``,
    ``nearest-exact``, ``linear``, ``bilinear``, ``trilinear``, ``area``)."""
    _torch_name = "torch.nn.modules.upsampling.Upsample"  # PyTorch's file for it

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners, self.recompute_scale_factor = mode, align_corners, recompute_scale_factor

    def forward(self, input):
        from .. import functional as F
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


__all__ += ["UpsamplingNearest2d"]


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of ``(N, C, H, W)`` (``torch/nn/modules/upsampling.py``; deprecated
    there in favour of ``F.interpolate``)."""
    _torch_name = "torch.nn.modules.upsampling.UpsamplingNearest2d"  # PyTorch's file for it

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


__all__ += ["UpsamplingBilinear2d"]


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of ``(N, C, H, W)`` with ``align_corners=True`` (``torch/nn/modules/upsampling.py``;
    deprecated there in favour of ``F.interpolate(..., mode='bilinear', align_corners=True)``)."""
    _torch_name = "torch.nn.modules.upsampling.UpsamplingBilinear2d"  # PyTorch's file for it

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)

"""``nn.PixelShuffle`` and ``nn.PixelUnshuffle`` (``torch/nn/modules/pixelshuffle.py``), ``nn.ChannelShuffle``
(``torch/nn/modules/channelshuffle.py``): layers that rearrange channels."""
from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``: sub-pixel convolution's upsampling (Shi et al., 2016)."""

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``: the inverse of ``PixelShuffle``."""

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


__all__ += ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Divide the channels into ``groups`` and interleave them (ShuffleNet)
    (``torch/nn/modules/channelshuffle.py``)."""
    _torch_name = "torch.nn.modules.channelshuffle.ChannelShuffle"  # PyTorch's file for it

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"

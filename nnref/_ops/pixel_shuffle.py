"""``pixel_shuffle`` and ``pixel_unshuffle``: channels to space and back, each the other's backward.

Mirrors ``aten/src/ATen/native/PixelShuffle.cpp`` (the checks and the reshape-permute-reshape
of ``math_pixel_shuffle``); the derivatives are those of ``tools/autograd/derivatives.yaml``
(``pixel_shuffle``: ``pixel_unshuffle(grad, upscale_factor)``, and the reverse).
"""
from ..core.autograd.graph import Node
from ._common import record, wrap

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


class PixelShuffleBackward0(Node):
    def backward(self, grad):
        return (pixel_unshuffle(grad, self.upscale_factor),)


class PixelUnshuffleBackward0(Node):
    def backward(self, grad):
        return (pixel_shuffle(grad, self.downscale_factor),)


def _check(input, name, factor_name, factor):
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {factor_name}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``: each group of ``r^2`` channels becomes an ``r x r`` block."""
    r = int(upscale_factor)
    _check(input, "pixel_shuffle", "upscale_factor", r)
    *lead, c, h, w = input._data.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(lead)
    data = input._data.reshape(*lead, c // (r * r), r, r, h, w)
    data = data.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2).reshape(*lead, c // (r * r), h * r, w * r)
    return record(wrap(data, input), PixelShuffleBackward0, (input,), upscale_factor=r)


def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``: each ``r x r`` block becomes ``r^2`` channels."""
    r = int(downscale_factor)
    _check(input, "pixel_unshuffle", "downscale_factor", r)
    *lead, c, h, w = input._data.shape
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={w} is not divisible by {r}")
    n = len(lead)
    data = input._data.reshape(*lead, c, h // r, r, w // r, r)
    data = data.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3).reshape(*lead, c * r * r, h // r, w // r)
    return record(wrap(data, input), PixelUnshuffleBackward0, (input,), downscale_factor=r)

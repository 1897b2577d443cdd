"""``nnref.cuda.amp`` (``torch/cuda/amp/``): the old spellings of ``nnref.amp``'s two classes for
the GPU, deprecated in PyTorch with a ``FutureWarning`` that names the new spelling."""
import functools
import warnings

from .. import amp

__all__ = ["GradScaler", "autocast"]


class GradScaler(amp.GradScaler):
    """``torch.cuda.amp.GradScaler(...)``: ``nnref.amp.GradScaler('cuda', ...)``, with PyTorch's warning."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


class autocast(amp.autocast):
    """``torch.cuda.amp.autocast(...)``: ``nnref.amp.autocast('cuda', ...)``, with PyTorch's warning."""

    @functools.wraps(amp.autocast.__init__)
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

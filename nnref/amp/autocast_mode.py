"""``autocast`` (``torch/amp/autocast_mode.py``): only its disabled form, which PyTorch programs
use to switch mixed precision off (``enabled=use_amp``, or autocast on a machine without a GPU)."""
import functools
import warnings

from .._cupy import cuda_unavailable_reason
from ..core._naming import TorchNamed

__all__ = ["autocast", "is_autocast_available"]


def is_autocast_available(device_type):
    """False: nnref has no per-op casting on any device (``torch.amp.is_autocast_available``)."""
    return False


class autocast(metaclass=TorchNamed):
    """A region in which PyTorch runs matrix products and convolutions in ``dtype``
    (``torch.autocast``).  ``enabled=False`` is a no-op; as in PyTorch, ``device_type='cuda'``
    without a usable GPU warns and disables itself; any other enabled autocast raises
    ``NotImplementedError``: nnref would compute in full precision and print other numbers."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if enabled and device_type == "cuda" and cuda_unavailable_reason() is not None:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            enabled = False
        if enabled:
            raise NotImplementedError(
                f"nnref has no autocast: it cannot run chosen ops in lower precision on "
                f"'{device_type}'. Pass enabled=False (the usual `enabled=use_amp` switch), or "
                f"convert the model and inputs yourself, e.g. model.to(torch.bfloat16).")
        self.device, self.fast_dtype, self._enabled = device_type, dtype, False

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def run_in_region(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return run_in_region

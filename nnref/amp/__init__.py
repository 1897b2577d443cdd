"""``nnref.amp``: automatic mixed precision's two parts (``torch/amp/``).

``GradScaler`` scales the loss so small float16 gradients do not flush to zero, and skips the
steps whose gradients overflowed: it is plain tensor arithmetic, and nnref has it whole.
``autocast`` would run chosen ops in a lower precision; nnref has no per-op casting, so an
enabled autocast raises and says how to get lower precision instead (disabled, it is a no-op,
as it is in PyTorch).
"""
from .autocast_mode import autocast, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "is_autocast_available"]

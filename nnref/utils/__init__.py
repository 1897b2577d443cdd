"""Helpers PyTorch keeps under ``torch.utils``."""
from . import hooks

__all__ = ["hooks"]

"""Helpers PyTorch keeps under ``torch.utils``."""
import importlib

from . import hooks

__all__ = ["data", "hooks"]


def __getattr__(name):
    # utils.data builds on tensors, which import utils.hooks: load it on first use.
    if name == "data":
        return importlib.import_module(".data", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Helpers PyTorch keeps under ``torch.utils``."""
import importlib

from ..core.utils import hooks

__all__ = ["checkpoint", "data", "hooks"]


def __getattr__(name):
    # utils.data and utils.checkpoint build on tensors, which import utils.hooks: load them on
    # first use.
    if name in ("checkpoint", "data"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)

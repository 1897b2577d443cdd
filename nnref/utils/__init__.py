"""Helpers PyTorch keeps under ``torch.utils``."""
from ..core.utils import hooks

__all__ = ["checkpoint", "data", "hooks"]


def __getattr__(name):
    # utils.data and utils.checkpoint build on tensors, which import utils.hooks: load them on
    # first use (`import a.b as b` takes the submodule the import has bound, not calling this again).
    if name == "checkpoint":
        import nnref.utils.checkpoint as checkpoint
        return checkpoint
    if name == "data":
        import nnref.utils.data as data
        return data
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)

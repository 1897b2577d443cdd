"""Classes print under PyTorch's names: ``type(t)`` is ``<class 'torch.Tensor'>``.

PyTorch sets its classes' ``__module__`` (``torch.Tensor``'s is ``'torch'``, ``torch/_tensor.py``);
nnref cannot, since pickle and ``copy`` import ``__module__`` to find a class again.  So the roots
of its public classes take this metaclass, which changes only the class's ``repr``:
``nnref[.core].x.y`` prints as ``torch.x.y``, or as its ``_torch_name``.
"""
import abc

__all__ = ["TorchNamed", "TorchNamedABC", "torch_module_name"]


def torch_module_name(module):
    """PyTorch's name for a module (``nnref.core.nn.parameter``, ``nnref.nn.parameter``: ``torch.nn.parameter``)."""
    for ours in ("nnref.core", "nnref"):
        if module == ours or module.startswith(ours + "."):
            return "torch" + module[len(ours):]
    return module


class TorchNamed(type):
    """The metaclass whose ``repr`` is PyTorch's name for the class (see the module docstring)."""

    def __repr__(cls):
        name = cls.__dict__.get("_torch_name") or f"{torch_module_name(cls.__module__)}.{cls.__qualname__}"
        return f"<class '{name}'>"


class TorchNamedABC(TorchNamed, abc.ABCMeta):
    """``TorchNamed`` for classes subclassed with ``abc.ABC`` too (``class Base(nn.Module, ABC)``):
    Python refuses that mix unless the metaclass derives from ``ABCMeta``; PyTorch's allows it."""

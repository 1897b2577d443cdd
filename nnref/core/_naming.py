"""Classes print under PyTorch's names: ``type(t)`` is ``<class 'torch.Tensor'>``.

nnref's dtypes and sizes already print as PyTorch's (``torch.float32``, ``torch.Size([2])``),
so that a program run with ``import nnref as torch`` prints what it prints on PyTorch.  A class
prints ``<class '{__module__}.{__qualname__}'>``, which would say ``nnref.core._tensor.Tensor``.
PyTorch renames its C++-backed classes by setting ``__module__`` (``torch.Tensor``'s is
``'torch'``, ``torch/_tensor.py``); nnref cannot, because pickle and ``copy`` find a class again
by importing ``__module__``, and ``torch`` is another library.  So nnref keeps the real
``__module__`` and changes only the class's ``repr``, with this metaclass on the roots of its
public classes (``Tensor``, ``nn.Module``, ``Optimizer``, ``Dataset``, ...).  A class under
``nnref.x.y`` (or the core's ``nnref.core.x.y``, laid out as PyTorch's files are) prints as
``torch.x.y``; one whose PyTorch module has another name (``torch.Tensor``) says so with
``_torch_name``.  Classes a program defines keep their own name (``__main__.Net``).
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
    """``TorchNamed`` for the classes programs subclass together with ``abc.ABC``
    (``class Base(nn.Module, ABC)``, ``class Data(Dataset, ABC)``): their metaclass must be a
    subclass of ``ABCMeta`` too, or Python refuses the mix, which PyTorch's plain classes allow."""


"""``nn.Parameter``: the tensor a module registers as learnable (``torch/nn/parameter.py``).

Assigned to a module attribute it is filed in the module's ``_parameters`` (chapter 06); a plain
tensor stays a plain attribute.  ``nn.Buffer`` and ``UninitializedParameter`` are the mirror's.
"""
from .._tensor import Tensor

__all__ = ["Parameter"]

__seams__ = ("empty",)

# Seam: Parameter() holds empty(0); nnref/nn/parameter.py puts nnref.empty (set_default_device).
empty = Tensor


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and registers itself on modules.

    ``Parameter(data)`` shares ``data``'s memory and version counter (like ``data.detach()``) but
    is always a new leaf: whatever history ``data`` had is cut off.  ``Parameter()`` is empty.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        # PyTorch's Tensor._make_subclass: same memory, fresh autograd identity.
        param = cls._make(data._data, data._device)
        param._version_counter = data._version_counter
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data=None, requires_grad=True):
        # Everything happened in __new__; Tensor.__init__ would re-create the storage.
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

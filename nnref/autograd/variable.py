"""``nnref.autograd.Variable``: the pre-0.4 wrapper, kept for old programs.

Mirrors ``torch/autograd/variable.py`` and ``torch/csrc/autograd/python_legacy_variable.cpp``:
since PyTorch 0.4 every tensor is a Variable, so ``Variable(t)`` returns a tensor that shares
``t``'s memory without its history, and ``isinstance(t, Variable)`` is true of every tensor.
"""
import warnings

from ..core._naming import TorchNamed

__all__ = ["Variable"]


class _VariableMeta(TorchNamed):
    def __instancecheck__(cls, other):
        from ..core._tensor import Tensor
        return isinstance(other, Tensor)


class _ExecutionEngine:
    """``Variable._execution_engine``: what PyTorch's Python code reaches the C++ engine by."""

    @staticmethod
    def queue_callback(callback):
        """Run ``callback()`` when the backward pass now running has finished."""
        from ._engine import queue_callback
        queue_callback(callback)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False, volatile=False)``: ``data.detach()`` with
    ``requires_grad`` set (``torch.autograd.Variable``)."""

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        from .._creation import empty
        from ..core._tensor import Tensor
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
        if data is None:
            return empty(0).requires_grad_(requires_grad)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)

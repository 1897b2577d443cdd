"""``nnref.autograd.function`` (``torch/autograd/function.py``): custom differentiable
functions.  They live in the teaching core, ``nnref/core/autograd/function.py``."""
from ..core.autograd.function import BackwardCFunction, Function, FunctionCtx, once_differentiable

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]

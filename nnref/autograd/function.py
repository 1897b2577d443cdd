"""``nnref.autograd.function`` (``torch/autograd/function.py``): custom differentiable
functions.  They live in the teaching core, ``nnref/core/autograd/function.py``; here are
``once_differentiable``, PyTorch's legacy forms (an instantiated Function,
``ctx.saved_variables``), its check of what ``ctx.save_for_backward`` is given, and its checks
of ``ctx.mark_dirty``, installed in the core's ``check_dirty`` seam.
"""
import functools
import warnings

from ..core._seams import install
from ..core.autograd import function as _core_function
from ..core._tensor import Tensor
from ..core.autograd.function import BackwardCFunction, Function, FunctionCtx
from ..core.autograd.grad_mode import _GradState, no_grad
from ..core.autograd.graph import Node

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class DelayedError(Node):
    """Stands between a once-differentiable backward's results and their use: differentiating
    through it raises (PyTorch's ``DelayedError``)."""

    def __init__(self, message, inputs):
        super().__init__(inputs)
        self.message = message
        self.num_outputs = len(inputs)

    def name(self):
        return "torch::autograd::Error"  # PyTorch's DelayedError records an Error node

    def backward(self, *grads):
        raise RuntimeError(self.message)


def once_differentiable(fn):
    """Decorate a ``backward`` that cannot itself be differentiated: it runs without recording,
    and differentiating its results (``create_graph=True``) raises a clear error."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _GradState.enabled or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        tensors = [o for o in outputs if isinstance(o, Tensor)]
        node = DelayedError("trying to differentiate twice a function that was marked with "
                            "@once_differentiable", tuple(tensors))
        wrapped, nr = [], 0
        for o in outputs:
            if isinstance(o, Tensor):
                o = o._alias_with_grad_fn(node)
                o._output_nr, nr = nr, nr + 1
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper


def _function_init(self, *args, **kwargs):
    """Functions are used through the class (``MyFn.apply``); PyTorch warns on an instance."""
    warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
                  "static, so you should invoke them on the class itself. Instantiating an autograd "
                  "function will raise an error in a future version of PyTorch.", DeprecationWarning,
                  stacklevel=2)


def _function_call(self, *args, **kwargs):
    raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                       "new-style autograd function with static forward method. (Example: "
                       "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")


def _saved_variables(self):
    """The deprecated name of ``saved_tensors`` (PyTorch warns the same)."""
    warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
    return self.saved_tensors


_keep_for_backward = FunctionCtx.save_for_backward


def _save_for_backward(self, *tensors):
    """Keep tensors for backward, refusing anything but tensors and None as PyTorch does."""
    for i, t in enumerate(tensors):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is "
                            f"of type {type(t).__name__}")
    _keep_for_backward(self, *tensors)


def _check_dirty(ctx, out, args):
    """The checks of ``_wrap_outputs`` (custom_function.cpp) for a tensor given to ``mark_dirty``."""
    if out._grad_fn is None and out._requires_grad and out._base is None:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    if not any(out is a for a in args):
        warnings.warn("Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an "
                      "input, there is no need to pass it to mark_dirty().", UserWarning, stacklevel=4)
    if out._base is not None:
        if ctx.num_outputs > 1:
            raise RuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, your "
                "Function cannot return more than one Tensor. This is not supported by the current "
                "autograd engine. You should either make sure the input is not a view (using "
                ".clone() for example) or make your Function only return one Tensor (potentially "
                "splitting it into two Functions: one doing the inplace that returns a single Tensor "
                "and a second one that does the other operations).")


Function.__init__, Function.__call__ = _function_init, _function_call
FunctionCtx.save_for_backward = _save_for_backward
BackwardCFunction.saved_variables = property(_saved_variables)
install(_core_function, "check_dirty", _check_dirty)

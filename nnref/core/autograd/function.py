"""``nnref.autograd.Function``: write your own op with a forward and a backward.

Mirrors ``torch/autograd/function.py`` and ``torch/csrc/autograd/python_function.cpp``;
chapter 03 teaches it.  The node attached to the outputs *is* the ``ctx`` the forward filled.
"""
from .._device import array_module
from .._naming import TorchNamed
from .._tensor import Tensor
from .._views import check_inplace, rebase_history
from .grad_mode import _GradState, no_grad
from .graph import Node, SavedTensor

__all__ = ["Function", "FunctionCtx", "BackwardCFunction"]
__seams__ = ("check_dirty",)


# Seam: PyTorch's checks of a ctx.mark_dirty tensor, its messages (nnref/autograd/function.py).
def check_dirty(ctx, out, args):
    return None


class FunctionCtx:
    """The ``ctx`` argument: a place to keep what backward will need."""

    def save_for_backward(self, *tensors):
        """Keep tensors for backward; changing one in place before backward is then an error."""
        self._to_save = tensors

    def mark_dirty(self, *tensors):
        """Declare the inputs that forward changed in place (and returns): their history is rebased."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that get no gradient (indices, masks): they will not require grad."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, backward receives None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The node of a custom Function: ``ctx`` during forward, ``grad_fn`` afterwards."""

    # Python's own repr, as PyTorch's: <nnref.autograd.function.MyFnBackward object at 0x...>
    __repr__ = object.__repr__
    # One flag per argument of apply(), numbers included (set there), not per tensor edge.
    needs_input_grad = ()

    def backward(self, *grad_outputs):
        grads = self._forward_cls.backward(self, *grad_outputs)
        grads = grads if isinstance(grads, tuple) else (grads,)
        expected = len(self.needs_input_grad)
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]  # PyTorch allows (and drops) extra trailing Nones
        if len(grads) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {expected}, got {len(grads)})")
        for i, g in enumerate(grads):
            if g is not None and i not in self._tensor_positions:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None "
                                   f"at position {i + 1}, but the corresponding forward input was "
                                   "not a Variable")
        return tuple(grads[i] for i in self._tensor_positions)

    def apply(self, *grad_outputs):
        # Unlike built-in nodes, PyTorch's node for a custom Function hands on exactly what
        # backward returned, so its hooks see e.g. zeros for an input that needs no gradient.
        return self.backward(*grad_outputs)

    def _zeros_for_output(self, index):
        if not self.materialize_grads or self._output_metadata[index] is None:
            return None  # (an output that is not a tensor gets None, as in PyTorch)
        shape, dtype, device = self._output_metadata[index]
        return Tensor._make(array_module(device).zeros(shape, dtype.numpy), device)


class _FunctionMeta(TorchNamed):
    """Gives every Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        # Named under the public module, as PyTorch's: <torch.autograd.function.CubeBackward ...>
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": "nnref.autograd.function"})
        super().__init__(name, bases, attrs)


class Function(metaclass=_FunctionMeta):
    """Subclass and define ``forward``, ``backward`` (and ``setup_context``) as staticmethods."""

    @staticmethod
    def forward(*args, **kwargs):
        """Override: ``forward(ctx, *args)``, or ``forward(*args)`` with a ``setup_context``."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Override, with a ``forward`` without ``ctx``: save on ``ctx`` what backward needs."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Override: one gradient per output in, one per input out (``None`` where none needed)."""
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` on ``args`` and, when an input requires grad, attach a backward node
        (the ``ctx``) to the outputs: ``THPFunction_apply`` of ``torch/csrc/autograd/python_function.cpp``."""
        ctx = cls._backward_cls.__new__(cls._backward_cls)
        tensor_positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._to_save, ctx._non_differentiable, ctx._dirty = (), (), ()
        ctx.materialize_grads = True
        separate_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if separate_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        if not (_GradState.enabled and any(ctx.needs_input_grad)):
            return outputs[0] if single else outputs
        Node.__init__(ctx, tuple(args[i] for i in tensor_positions))
        ctx._tensor_positions = tensor_positions
        ctx.num_outputs = len(outputs)
        ctx._output_metadata = tuple((o._data.shape, o._dtype, o._device) if isinstance(o, Tensor) else None
                                     for o in outputs)
        results = tuple(_process_output(ctx, out, nr, args) for nr, out in enumerate(outputs))
        ctx._saved = tuple(None if t is None else SavedTensor(t, any(t is o for o in results))
                           for t in ctx._to_save)
        ctx._graph_output_requires_grad = True
        return results[0] if single else results


def _process_output(ctx, out, nr, args):
    """Attach ``ctx`` to one output (``_process_outputs`` in python_function.cpp)."""
    if not isinstance(out, Tensor):
        return out
    if any(out is d for d in ctx._dirty):
        check_dirty(ctx, out, args)
        if out._base is not None and not (args and args[0] is out):
            raise NotImplementedError(
                f"{ctx.name()} changes a view in place (mark_dirty) that is not its first input; "
                "nnref rewrites the base's history (CopySlices) only for the first input. Pass the "
                "view first, or clone() it before the Function.")
        check_inplace(out)
        out._bump_version()  # as PyTorch's _mark_dirty: saved copies of the old value must notice
        rebase_history(out, ctx)
        return out
    non_differentiable = any(out is n for n in ctx._non_differentiable)
    if any(out is a for a in args):
        out = out._alias_without_history()  # returning an input unchanged: hand back a new tensor
    if non_differentiable or not out._dtype.is_floating_point:
        return out
    out.grad_fn, out._output_nr = ctx, nr
    return out


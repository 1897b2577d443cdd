"""``nnref.autograd.Function``: write your own op with a forward and a backward.

Mirrors ``torch/autograd/function.py``.  ``MyOp.apply(*args)`` runs
``forward(ctx, *args)`` without recording, then attaches one node of class
``MyOpBackward`` to the outputs; that node *is* the ``ctx``, so what
``forward`` saved with ``ctx.save_for_backward`` is there in ``backward``.
"""
from .grad_mode import _GradState, no_grad
from .graph import Node, SavedTensor

__all__ = ["Function", "FunctionCtx", "BackwardCFunction"]


class FunctionCtx:
    """The ``ctx`` argument: a place to keep what backward will need."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors


class BackwardCFunction(FunctionCtx, Node):
    """The node of a custom Function: ``ctx`` during forward, ``grad_fn`` afterwards."""

    # Python's own repr, as PyTorch's: <nnref.autograd.function.MyFnBackward object at 0x...>
    __repr__ = object.__repr__

    def backward(self, *grad_outputs):
        grads = self._forward_cls.backward(self, *grad_outputs)
        grads = grads if isinstance(grads, tuple) else (grads,)
        if len(grads) != len(self._tensor_positions) + self._non_tensor_count:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {len(self._tensor_positions) + self._non_tensor_count}, "
                               f"got {len(grads)})")
        return tuple(grads[i] for i in self._tensor_positions)

    def apply(self, *grad_outputs):
        # Unlike built-in nodes, PyTorch's node for a custom Function hands on exactly what
        # backward returned, so its hooks see e.g. zeros for an input that needs no gradient.
        grads = self.backward(*grad_outputs)
        return grads if isinstance(grads, tuple) else (grads,)

    def _zeros_for_output(self, index):
        from .._creation import zeros
        shape, dtype, device = self._output_metadata[index]
        return zeros(shape, dtype=dtype, device=device)


class _FunctionMeta(type):
    """Gives every Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(metaclass=_FunctionMeta):
    """Subclass and define ``forward(ctx, ...)`` and ``backward(ctx, *grads)`` as staticmethods."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @classmethod
    def apply(cls, *args):
        from .._tensor import Tensor
        ctx = cls._backward_cls.__new__(cls._backward_cls)
        tensor_positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._to_save, ctx._non_differentiable = (), ()
        with no_grad():
            outputs = cls.forward(ctx, *args)
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        if not (_GradState.enabled and any(ctx.needs_input_grad)):
            return outputs[0] if single else outputs
        Node.__init__(ctx, tuple(args[i] for i in tensor_positions))
        ctx._tensor_positions = tensor_positions
        ctx._non_tensor_count = len(args) - len(tensor_positions)
        ctx.num_outputs = len(outputs)
        ctx._output_metadata = tuple((o._data.shape, o._dtype, o._device) if isinstance(o, Tensor) else None
                                     for o in outputs)
        results = []
        for nr, out in enumerate(outputs):
            if isinstance(out, Tensor):
                if any(out is a for a in args):
                    out = out._alias_without_history()  # returning an input: hand back a new view
                if not any(out is n for n in ctx._non_differentiable) and out._dtype.is_floating_point:
                    out.grad_fn, out._output_nr = ctx, nr
            results.append(out)
        ctx._saved = tuple(None if t is None else SavedTensor(t, any(t is o for o in outputs))
                           for t in ctx._to_save)
        ctx._graph_output_requires_grad = True
        return results[0] if single else tuple(results)

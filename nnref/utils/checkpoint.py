"""``nnref.utils.checkpoint``: activation checkpointing (``torch/utils/checkpoint.py``).

PyTorch frees a checkpointed segment's intermediate tensors after the forward and recomputes
them in the backward, trading time for memory.  Both of its variants are here with their
visible behaviour: ``use_reentrant=True`` (the default, with PyTorch's warning when not
passed) runs the segment without recording and attaches one ``CheckpointFunctionBackward``
node that recomputes it under the forward's random-number state; ``use_reentrant=False``
records the segment's own nodes.  In the second variant nnref keeps the intermediate tensors
rather than recomputing them, so gradients and random draws are the same and only the
memory saving is missing.
"""
import warnings

from .. import _random
from ..core._tensor import Tensor
from ..autograd import backward as autograd_backward
from ..core.autograd.function import Function
from ..core.autograd.grad_mode import enable_grad, no_grad

__all__ = ["checkpoint", "checkpoint_sequential", "detach_variable", "check_backward_validity"]


def detach_variable(inputs):
    """``inputs`` (a tuple) with each tensor detached, keeping its ``requires_grad``."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            detached = inp.detach()
            detached.requires_grad = inp.requires_grad
            inp = detached
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs):
    """Warn when no tensor input requires grad: the segment's gradients would be None."""
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


class CheckpointFunction(Function):
    """The reentrant variant: forward without recording, recompute with recording in backward."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _random.get_rng_state()
        ctx.inputs, ctx.tensor_indices, tensor_inputs = [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *args):
        inputs = list(ctx.inputs)
        for i, index in enumerate(ctx.tensor_indices):
            inputs[index] = ctx.saved_tensors[i]
        # The recomputation draws the forward's random numbers; the stream then goes on unchanged.
        with _random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                _random.set_rng_state(ctx.fwd_cpu_state)
            detached_inputs = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outputs_with_grad, args_with_grad = [], []
        for output, grad in zip(outputs, args):
            if isinstance(output, Tensor) and output.requires_grad:
                outputs_with_grad.append(output)
                args_with_grad.append(grad)
        if not outputs_with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        autograd_backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args)``, checkpointed (``torch.utils.checkpoint.checkpoint``)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
            "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
            "use_reentrant=False is recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
            "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    forward_context, _ = context_fn() if context_fn is not None else (None, None)
    if forward_context is None:
        return function(*args, **kwargs)
    with forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a list, or an ``nn.Sequential``) on ``input`` in ``segments`` checkpointed
    pieces, the last one not checkpointed (``torch.utils.checkpoint.checkpoint_sequential``)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
            "passed. use_reentrant=False is recommended, but if you need to preserve the current "
            "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
            "the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)

"""The mirror's side of the teaching core's engine (``nnref/core/autograd/engine.py``):
``queue_callback``, PyTorch's warning and check of ``backward()``'s ``create_graph=`` and
``inputs=``, and its checks of the gradients a node returns (``validate_outputs`` of
``torch/csrc/autograd/engine.cpp``), installed in the engine's seams ``run_pass`` and
``reduce_to_input``.
"""
import warnings

from ..core._seams import install
from ..core.autograd import engine
from ..core.autograd.grad_mode import _GradState

__all__ = ["queue_callback"]

# One list per backward pass in progress (a hook may start another): the callbacks to run when
# that pass has finished.
_final_callbacks = []


def queue_callback(callback):
    """Run ``callback()`` once the backward pass now running has finished
    (``Variable._execution_engine.queue_callback``, ``torch/csrc/autograd/engine.cpp``): DDP
    waits for its all-reduces there."""
    if not _final_callbacks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _final_callbacks[-1].append(callback)


def _run_pass_with_callbacks(roots, root_grads, keep_graph, create_graph, inputs=None,
                             accumulate_grad=True):
    """The core's ``run_backward``, then the callbacks queued during it, in the order queued (a
    callback may queue another), in the pass's grad mode, as PyTorch's ``exec_post_processing``.

    For ``backward()`` (``accumulate_grad``), first PyTorch's warning about ``create_graph=True``
    and its refusal of an empty ``inputs=`` (``torch/autograd/__init__.py``).
    """
    if accumulate_grad and create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this function, "
            "make sure to reset the .grad fields of your parameters to None after use to break the "
            "cycle and avoid the leak.", UserWarning, stacklevel=3)
    if accumulate_grad and inputs is not None and not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    callbacks = []
    _final_callbacks.append(callbacks)
    try:
        captured = engine.run_backward(roots, root_grads, keep_graph, create_graph, inputs,
                                       accumulate_grad)
        if callbacks:
            previous_mode = _GradState.enabled
            _GradState.enabled = create_graph
            try:
                while callbacks:
                    callbacks.pop(0)()
            finally:
                _GradState.enabled = previous_mode
    finally:
        _final_callbacks.pop()
    return captured


def _reduce_to_input(grad, metadata, node, index):
    """Sum a broadcast gradient down to the input's shape, cast it to the input's dtype, and
    refuse one on the wrong device (a 0-d gradient is moved, as PyTorch does)."""
    shape, dtype, device = metadata
    if grad._device != device:
        if grad._data.ndim:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                               f"{index} - expected device {device} but got {grad._device}")
        grad = grad.to(device)
    if grad._data.shape != shape:
        if not _expandable(shape, grad._data.shape):
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                               f"{index} - got {list(grad.shape)} but expected shape compatible "
                               f"with {list(shape)}")
        grad = grad.sum_to_size(shape)
    if grad._dtype is not dtype:
        grad = grad.to(dtype)
    return grad


def _expandable(shape, target):
    if len(shape) > len(target):
        return False
    return all([s == t or s == 1 for s, t in zip(reversed(shape), reversed(target))])


install(engine, "run_pass", _run_pass_with_callbacks)
install(engine, "reduce_to_input", _reduce_to_input)

"""What every op of the core asks before it records a backward node, and how it records one."""
from ..autograd.grad_mode import _GradState

__all__ = ["needs_grad", "record"]


def needs_grad(*tensors):
    """Record a backward node only when grad mode is on and some input requires grad."""
    if not _GradState.enabled:
        return False
    for t in tensors:
        if t is not None and (t._requires_grad or t._grad_fn is not None or (
                t._base is not None and t.grad_fn is not None)):  # a view may have a new history
            return True
    return False


def record(out, node_class, inputs, saved=(), *, save_result=False, **fields):
    """Give ``out`` the node ``node_class(inputs, saved, **fields)`` if autograd records this op
    (``collect_next_edges``, ``set_history``: ``torch/csrc/autograd/functions/utils.h``); return ``out``.
    ``saved``: the tensors the derivative reads (``save_result``: ``out`` itself); ``fields``:
    the plain values it needs (``alpha``, ``dim``, sizes ...)."""
    if needs_grad(*inputs):
        node = node_class(inputs, saved, **fields)
        if save_result:
            node.save_result(out)
        out.grad_fn = node
    return out

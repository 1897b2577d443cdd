"""What every op of the core asks before it records a backward node."""
from ..autograd.grad_mode import _GradState

__all__ = ["needs_grad"]


def needs_grad(*tensors):
    """Record a backward node only when grad mode is on and some input requires grad."""
    if not _GradState.enabled:
        return False
    for t in tensors:
        if t is not None and (t._requires_grad or t._grad_fn is not None or (
                t._base is not None and t.grad_fn is not None)):  # a view may have a new history
            return True
    return False

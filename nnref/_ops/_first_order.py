"""``FirstOrderBackward``: the base of nodes whose backward is plain numpy.

Such a backward returns gradients that carry no graph of their own, so a second
derivative through it would silently come out as zero.  With ``create_graph=True``
(grad mode on while the backward runs) these nodes raise instead, naming the op.
"""
from ..core.autograd.grad_mode import _GradState
from ..core.autograd.graph import Node

__all__ = ["FirstOrderBackward"]


class FirstOrderBackward(Node):
    def apply(self, *grad_outputs):
        if _GradState.enabled:
            raise RuntimeError(
                f"nnref computes the gradient of {self.name()} with numpy, so it cannot be "
                "differentiated again (create_graph=True); PyTorch supports this double backward, "
                "nnref does not. Call backward() or autograd.grad() without create_graph=True.")
        return super().apply(*grad_outputs)

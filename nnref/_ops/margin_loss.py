"""``soft_margin_loss``: the one margin loss that ATen computes as a kernel with its own node
(``aten/src/ATen/native/Loss.cpp``: ``soft_margin_loss`` and ``soft_margin_loss_backward``).

The forward is ``log(1 + exp(-target * input))``, reduced; the backward is written with tensor
ops, so it differentiates again.  The other margin losses are composites in ATen too and live in
``nn.functional``.
"""
from ..core._device import array_module_of
from ..core.autograd.graph import Node
from ._common import needs_grad, record, wrap
from .native import _as, _opmath, _reduce

__all__ = ["soft_margin_loss"]


class SoftMarginLossBackward0(Node):
    """``-target * z / (1 + z) * grad`` (divided by the count for 'mean'), ``z = exp(-target * input)``."""

    def backward(self, grad):
        input, target = self.saved_tensors
        scale = 1.0 / self.count if self.reduction == "mean" else 1.0
        z = (-(input * target)).exp()
        return (-target * z / (z + 1) * scale * grad,)


def soft_margin_loss(input, target, reduction):
    """``log(1 + exp(-target * input))``, elementwise (broadcast), then reduced."""
    if needs_grad(target):
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    x, y = _opmath(input._data), _opmath(target._data)
    xp = array_module_of(x)
    loss = xp.log1p(xp.exp(-(x * y)))
    out = wrap(_as(xp.asarray(_reduce(loss, reduction)), input._data), input)
    return record(out, SoftMarginLossBackward0, (input,), saved=(input, target), reduction=reduction,
                  count=loss.size)

"""``SGD`` with momentum, dampening, weight decay and Nesterov (``torch/optim/sgd.py``); its
argument checks are the mirror's (``nnref/optim/sgd.py``).

For each parameter with a gradient ``g``, ``_update`` is PyTorch's ``_single_tensor_sgd``::

    g = g + weight_decay * p                 (if weight_decay)
    buf = g                                  (first step)
    buf = momentum * buf + (1 - dampening) * g   (later steps)
    g = g + momentum * buf  if nesterov  else  buf   (if momentum)
    p = p - lr * g
"""
import functools

from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _params_with_grad

__all__ = ["SGD"]
__seams__ = ("tuned_update",)

# Seam: fused=True/foreach=True's update into existing arrays: nnref/optim/_fused.py's sgd_update_
tuned_update = None


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():  # as in PyTorch: the update is not part of any graph
            for group in self.param_groups:
                update = self._update
                if (group["fused"] or group["foreach"]) and tuned_update is not None:
                    update = functools.partial(tuned_update, self)
                for p in _params_with_grad(group):
                    update(p, group)
        return loss

    def _update(self, p, group):
        ### BEGIN SOLUTION task=sgd.update points=3 chapter=15_training
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov = group["weight_decay"], group["nesterov"]
        grad = p.grad if not group["maximize"] else -p.grad
        if weight_decay != 0:
            grad = grad.add(p, alpha=weight_decay)
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:  # the first step: the buffer starts as a copy of the gradient
                buf = state["momentum_buffer"] = grad.clone().detach()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        p.add_(grad, alpha=-lr)
        ### END SOLUTION

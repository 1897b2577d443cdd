"""``SGD`` with momentum, dampening, weight decay and Nesterov (``torch/optim/sgd.py``).

For each parameter with a gradient ``g`` (``_single_tensor_sgd``)::

    g = g + weight_decay * p                 (if weight_decay)
    buf = g                                  (first step)
    buf = momentum * buf + (1 - dampening) * g   (later steps)
    g = g + momentum * buf  if nesterov  else  buf   (if momentum)
    p = p - lr * g

``_update`` is that, one tensor at a time; ``fused=True`` or ``foreach=True`` takes the same
arithmetic written without temporaries (``optim/_fused.py``).
"""
import functools

from ..core._tensor import Tensor
from ..core.autograd.grad_mode import no_grad
from ._fused import add_scaled_, sgd_update_
from .optimizer import Optimizer, _params_with_grad

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("nnref's optimizers update in place with numpy; "
                                      "differentiable=True is not supported")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        with no_grad():  # as in PyTorch; the updates below write raw arrays and record nothing
            for group in self.param_groups:
                update = self._update
                if group["fused"] or group["foreach"]:  # the same arithmetic, without temporaries
                    update = functools.partial(sgd_update_, self)
                for p in _params_with_grad(group):
                    update(p, group)
        return loss

    def _update(self, p, group):
        ### BEGIN SOLUTION task=sgd.update points=3 chapter=15_training
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        param = p._data
        grad = -p.grad._data if maximize else p.grad._data
        if weight_decay != 0:
            grad = grad + weight_decay * param
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:  # the first step: the buffer starts as a copy of the gradient
                buf = state["momentum_buffer"] = Tensor._make(grad.copy(), p._device)
            else:  # buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                buf._data *= momentum
                buf._data += (1 - dampening) * grad
                buf._bump_version()
            grad = grad + momentum * buf._data if nesterov else buf._data
        add_scaled_(param, -lr, grad)  # param.add_(grad, alpha=-lr): in place, in one pass
        p._bump_version()
        ### END SOLUTION

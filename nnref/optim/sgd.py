"""``SGD`` with momentum, dampening, weight decay and Nesterov (``torch/optim/sgd.py``).

For each parameter with a gradient ``g`` (``_single_tensor_sgd``)::

    g = g + weight_decay * p                 (if weight_decay)
    buf = g                                  (first step)
    buf = momentum * buf + (1 - dampening) * g   (later steps)
    g = g + momentum * buf  if nesterov  else  buf   (if momentum)
    p = p - lr * g
"""
from .._device import array_module_of
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ._fused import subtract_scaled_
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
                for p in _params_with_grad(group):
                    self._update(p, group)
        return loss

    def _update(self, p, group):
        ### BEGIN SOLUTION task=sgd.update points=3 chapter=13_training
        # Fused: every line below writes into an existing array (out=), so a step allocates
        # nothing; `work` is a scratch array shared by all parameters of this shape.
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        param, grad = p._data, p.grad._data
        xp = array_module_of(param)  # numpy on the CPU, CuPy on 'cuda'
        (work,) = self._scratch(p, 1)
        d_p = grad
        if weight_decay != 0:
            xp.multiply(param, weight_decay, out=work)
            (xp.subtract if maximize else xp.add)(work, grad, out=work)
            d_p = work
        elif maximize:
            d_p = xp.negative(grad, out=work)
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = Tensor._make(d_p.copy(), p._device)
            else:
                xp.multiply(buf._data, momentum, out=buf._data)
                if dampening == 0:
                    xp.add(buf._data, d_p, out=buf._data)
                else:
                    xp.add(buf._data, d_p * (1 - dampening), out=buf._data)
                buf._bump_version()
            if group["nesterov"]:
                if d_p is work:
                    xp.add(work, buf._data * momentum, out=work)
                else:
                    xp.multiply(buf._data, momentum, out=work)
                    xp.add(d_p, work, out=work)
                d_p = work
            else:
                d_p = buf._data
        subtract_scaled_(param, lr, d_p, work)
        p._bump_version()
        ### END SOLUTION

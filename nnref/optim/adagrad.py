"""``Adagrad`` (``torch/optim/adagrad.py``, the single-tensor CPU path).

Each parameter keeps the running ``sum`` of its squared gradients, so often-updated
coordinates take ever smaller steps::

    g = g + weight_decay * p                  (if weight_decay)
    clr = lr / (1 + (step - 1) * lr_decay)
    sum = sum + g * g
    p = p - clr * g / (sqrt(sum) + eps)

Unlike the other optimizers, the state (``step`` and ``sum``) is created in the
constructor, for every parameter, as in PyTorch.
"""
from .._creation import full_like, tensor
from ..core._device import array_module_of
from ..core.autograd.grad_mode import no_grad
from ..core.optim.adam import _step_dtype
from .optimizer import Optimizer, _params_with_grad

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if differentiable:
            raise NotImplementedError("nnref's optimizers update in place with numpy; "
                                      "differentiable=True is not supported")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = tensor(0.0, dtype=_step_dtype())
                state["sum"] = full_like(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                for p in _params_with_grad(group):
                    self._update(p, group, self.state[p])
        return loss

    def _update(self, p, group, state):
        lr, lr_decay, eps, weight_decay = (group["lr"], group["lr_decay"], group["eps"],
                                           group["weight_decay"])
        param, grad = p._data, p.grad._data
        xp = array_module_of(param)
        grad_work, work = self._scratch(p, 2)
        step_t = state["step"]
        step_t._data += 1
        step = float(step_t._data)
        if group["maximize"]:
            grad = xp.negative(grad, out=grad_work)
        if weight_decay != 0:
            xp.multiply(param, weight_decay, out=work)
            grad = xp.add(grad, work, out=grad_work)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum = state["sum"]._data
        # state_sum.addcmul_(g, g, value=1); std = sqrt(sum) + eps; p.addcdiv_(g, std, value=-clr)
        xp.multiply(grad, grad, out=work)
        xp.add(state_sum, work, out=state_sum)
        xp.sqrt(state_sum, out=work)
        xp.add(work, eps, out=work)
        xp.multiply(grad, -clr, out=grad_work)
        xp.divide(grad_work, work, out=grad_work)
        xp.add(param, grad_work, out=param)
        for t in (p, state["sum"], step_t):
            t._bump_version()

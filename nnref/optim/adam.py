"""``Adam`` (``torch/optim/adam.py``, the single-tensor CPU path).

For each parameter with gradient ``g``, at step ``t``::

    g = g + weight_decay * p                     (Adam's L2 penalty; AdamW decays p instead)
    m = m + (1 - beta1) * (g - m)                (torch.lerp)
    v = beta2 * v + (1 - beta2) * g * g
    p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

``amsgrad`` uses the running maximum of ``v`` in the denominator.
"""
import math

from .. import _dtype
from .._creation import tensor, zeros_like
from .._device import array_module_of
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _params_with_grad

__all__ = ["Adam"]


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("nnref's optimizers update in place with numpy; "
                                      "differentiable=True is not supported")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = tensor(float(p_state["step"]), dtype=_step_dtype())

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        with no_grad():  # as in PyTorch; the updates below write raw arrays and record nothing
            for group in self.param_groups:
                for p in _params_with_grad(group):
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = tensor(0.0, dtype=_step_dtype())
                        state["exp_avg"] = zeros_like(p)
                        state["exp_avg_sq"] = zeros_like(p)
                        if group["amsgrad"]:
                            state["max_exp_avg_sq"] = zeros_like(p)
                    self._update(p, group, state)
        return loss

    def _update(self, p, group, state):
        # Fused: each line writes into an existing array (out=), so a step allocates nothing;
        # `grad_work` and `work` are scratch arrays shared by all parameters of this shape.
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        param, grad = p._data, p.grad._data
        xp = array_module_of(param)  # numpy on the CPU, CuPy on 'cuda'
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        m, v = exp_avg._data, exp_avg_sq._data
        grad_work, work = self._scratch(p, 2)
        step_t = state["step"]  # a CPU tensor, as in PyTorch: the step count is host arithmetic
        step_t._data += 1
        step = float(step_t._data)

        if group["maximize"]:
            grad = xp.negative(grad, out=grad_work)
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                xp.multiply(param, 1 - lr * weight_decay, out=param)
            else:
                xp.multiply(param, weight_decay, out=work)
                grad = xp.add(grad, work, out=grad_work)

        # m.lerp_(g, 1 - beta1), with the two-sided formula of PyTorch's CPU lerp kernel.
        weight = 1 - beta1
        xp.subtract(grad, m, out=work)
        if weight < 0.5:
            xp.multiply(work, weight, out=work)
            xp.add(m, work, out=m)
        else:
            xp.multiply(work, 1 - weight, out=work)
            xp.subtract(grad, work, out=m)
        # v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        xp.multiply(v, beta2, out=v)
        xp.multiply(grad, 1 - beta2, out=work)
        xp.multiply(work, grad, out=work)
        xp.add(v, work, out=v)

        bias_correction1 = 1 - beta1 ** step
        bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
        step_size = lr / bias_correction1
        second_moment = v
        if group["amsgrad"]:
            max_sq = state["max_exp_avg_sq"]
            xp.maximum(max_sq._data, v, out=max_sq._data)
            max_sq._bump_version()
            second_moment = max_sq._data
        # p.addcdiv_(m, sqrt(v) / sqrt(bc2) + eps, value=-step_size)
        xp.sqrt(second_moment, out=work)
        xp.divide(work, bias_correction2_sqrt, out=work)
        xp.add(work, eps, out=work)
        xp.multiply(m, -step_size, out=grad_work)
        xp.divide(grad_work, work, out=grad_work)
        xp.add(param, grad_work, out=param)
        for t in (p, exp_avg, exp_avg_sq, step_t):
            t._bump_version()


def _step_dtype():
    """``step`` is kept as a 0-d tensor of the default float dtype, like PyTorch's."""
    return _dtype.float64 if _dtype.get_default_dtype() is _dtype.float64 else _dtype.float32

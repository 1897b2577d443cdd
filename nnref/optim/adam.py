"""``Adam`` (``torch/optim/adam.py``, the single-tensor CPU path).

For each parameter with gradient ``g``, at step ``t``::

    g = g + weight_decay * p                     (Adam's L2 penalty; AdamW decays p instead)
    m = lerp(m, g, 1 - beta1)                    (torch.lerp, from the nearer end)
    v = beta2 * v + (1 - beta2) * g * g
    p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

``amsgrad`` uses the running maximum of ``v`` in the denominator. ``_update`` is that, one
tensor at a time; ``fused=True`` or ``foreach=True`` takes the same arithmetic written without
temporaries (``optim/_fused.py``).
"""
import functools
import math

from ..core import _dtype
from .._creation import tensor, zeros_like
from ..core._device import array_module_of
from ..core._tensor import Tensor
from ..core.autograd.grad_mode import no_grad
from ._fused import adam_update_
from .optimizer import Optimizer, _addcmul, _lerp, _params_with_grad

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
                update = self._update
                if group["fused"] or group["foreach"]:  # the same arithmetic, without temporaries
                    update = functools.partial(adam_update_, self)
                for p in _params_with_grad(group):
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = tensor(0.0, dtype=_step_dtype())
                        state["exp_avg"] = zeros_like(p)
                        state["exp_avg_sq"] = zeros_like(p)
                        if group["amsgrad"]:
                            state["max_exp_avg_sq"] = zeros_like(p)
                    update(p, group, state)
        return loss

    def _update(self, p, group, state):
        """One parameter's step, as PyTorch's ``_single_tensor_adam``."""
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        xp = array_module_of(p._data)  # numpy on the CPU, CuPy on 'cuda'
        param, exp_avg, exp_avg_sq = p._data, state["exp_avg"]._data, state["exp_avg_sq"]._data
        grad = -p.grad._data if group["maximize"] else p.grad._data
        state["step"]._data += 1  # a CPU tensor, as in PyTorch: the step count is host arithmetic
        step = float(state["step"]._data)

        if weight_decay != 0:
            if group["decoupled_weight_decay"]:  # AdamW
                param *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * param
        exp_avg[...] = _lerp(exp_avg, grad, 1 - beta1)   # exp_avg.lerp_(grad, 1 - beta1)
        # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2), one fused multiply-add:
        exp_avg_sq[...] = _addcmul(exp_avg_sq * beta2, grad, grad, 1 - beta2)

        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
        if group["amsgrad"]:
            max_exp_avg_sq = state["max_exp_avg_sq"]._data
            xp.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
            state["max_exp_avg_sq"]._bump_version()
            denom = xp.sqrt(max_exp_avg_sq) / bias_correction2_sqrt + eps
        else:
            denom = xp.sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
        param -= step_size * exp_avg / denom              # param.addcdiv_(exp_avg, denom, value=-step_size)
        for t in (p, state["exp_avg"], state["exp_avg_sq"], state["step"]):
            t._bump_version()

def _step_dtype():
    """``step`` is kept as a 0-d tensor of the default float dtype, like PyTorch's."""
    return _dtype.float64 if _dtype.get_default_dtype() is _dtype.float64 else _dtype.float32

"""``RAdam``: rectified Adam (``torch/optim/radam.py``, the single-tensor CPU path).

Adam's adaptive step is unreliable while few gradients have been seen; RAdam estimates the
length ``rho_t`` of the moving average and takes plain momentum steps until it exceeds 5::

    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
    rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
    p = p - lr * m / (1 - beta1**t) * sqrt(1 - beta2**t) / (sqrt(v) + eps) * rect(rho_t)
                                                                   (rho_t > 5)
    p = p - lr * m / (1 - beta1**t)                                (otherwise)
"""
import math

from .._creation import tensor, zeros_like
from ..core._device import array_module_of
from ..core.optim.adam import _step_dtype
from .optimizer import (Optimizer, _addcmul, _check_hyperparameters, _lerp,
                        _no_differentiable)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam (Liu et al., 2019); ``decoupled_weight_decay=True`` decays the weights as AdamW
    does (``torch/optim/radam.py``)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        _no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups(foreach=None, maximize=False, differentiable=False,
                              decoupled_weight_decay=False, capturable=False)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        return self._step_each_param(closure)

    def _init_state(self, p, group, state):
        """The state made on the parameter's first step, as PyTorch's ``_init_group``."""
        state["step"] = tensor(0.0, dtype=_step_dtype())
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    def _update(self, p, group, state):
        """One parameter's step, as PyTorch's ``_single_tensor_radam``."""
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = float(group["lr"]), group["eps"], group["weight_decay"]
        xp = array_module_of(p._data)
        param, exp_avg, exp_avg_sq = p._data, state["exp_avg"]._data, state["exp_avg_sq"]._data
        grad = -p.grad._data if group["maximize"] else p.grad._data
        state["step"]._data += 1
        step = float(state["step"]._data)

        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * param
        exp_avg[...] = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq[...] = _addcmul(exp_avg_sq * beta2, grad, grad, 1 - beta2)

        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        bias_corrected_exp_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive_lr = (bias_correction2 ** 0.5) / (xp.sqrt(exp_avg_sq) + eps)
            param -= bias_corrected_exp_avg * lr * adaptive_lr * rect
        else:
            param -= bias_corrected_exp_avg * lr
        for t in (p, state["exp_avg"], state["exp_avg_sq"], state["step"]):
            t._bump_version()

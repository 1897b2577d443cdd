"""``NAdam``: Adam with Nesterov momentum (``torch/optim/nadam.py``, the single-tensor CPU path).

For each parameter with gradient ``g``, at step ``t``, with the momentum schedule
``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``::

    g = g + weight_decay * p                      (or p = p * (1 - lr * weight_decay), decoupled)
    mu_product = mu_product * mu_t                (kept as a float32 tensor, as in PyTorch)
    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
    denom = sqrt(v / (1 - beta2**t)) + eps
    p = p - lr * (1 - mu_t) / (1 - mu_product) * g / denom
          - lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom
"""
from .._creation import tensor, zeros_like
from ..core._device import array_module_of
from ..core.optim.adam import _step_dtype
from .optimizer import (Optimizer, _addcmul, _check_hyperparameters, _lerp,
                        _no_differentiable)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam (Dozat, 2016), with PyTorch's defaults ``lr=2e-3, momentum_decay=4e-3``;
    ``decoupled_weight_decay=True`` makes it NAdamW (``torch/optim/nadam.py``)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay,
                               momentum_decay=momentum_decay)
        _no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups(("step", "mu_product"), maximize=False, foreach=None,
                              capturable=False, differentiable=False,
                              decoupled_weight_decay=False)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        return self._step_each_param(closure, "params, mu_products and state_steps")

    def _init_state(self, p, group, state):
        """The state made on the parameter's first step, as PyTorch's ``_init_group``."""
        state["step"] = tensor(0.0, dtype=_step_dtype())
        state["mu_product"] = tensor(1.0, dtype=_step_dtype())
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    def _update(self, p, group, state):
        """One parameter's step, as PyTorch's ``_single_tensor_nadam``."""
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = float(group["lr"]), group["eps"], group["weight_decay"]
        momentum_decay = group["momentum_decay"]
        xp = array_module_of(p._data)
        param, exp_avg, exp_avg_sq = p._data, state["exp_avg"]._data, state["exp_avg_sq"]._data
        mu_product = state["mu_product"]._data
        grad = -p.grad._data if group["maximize"] else p.grad._data
        state["step"]._data += 1
        step = float(state["step"]._data)
        bias_correction2 = 1 - beta2 ** step

        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * param
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu                                   # float32 arithmetic, as PyTorch's
        exp_avg[...] = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq[...] = _addcmul(exp_avg_sq * beta2, grad, grad, 1 - beta2)
        denom = xp.sqrt(exp_avg_sq / bias_correction2) + eps

        mu_product_next = float(mu_product) * mu_next
        param += (-lr * (1.0 - mu) / (1.0 - float(mu_product))) * grad / denom
        param += (-lr * mu_next) / (1.0 - mu_product_next) * exp_avg / denom
        for t in (p, state["exp_avg"], state["exp_avg_sq"], state["step"], state["mu_product"]):
            t._bump_version()

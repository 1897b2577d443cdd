"""``Adamax``: Adam with the infinity norm (``torch/optim/adamax.py``, the single-tensor CPU path).

The second moment is replaced by a running maximum of ``|g|``, which needs no bias correction::

    g = g + weight_decay * p                       (if weight_decay)
    m = lerp(m, g, 1 - beta1)
    u = max(beta2 * u, |g| + eps)                  (exp_inf)
    p = p - lr / (1 - beta1**t) * m / u
"""
from .._creation import tensor, zeros_like
from ..core._device import array_module_of
from ..core.optim.adam import _step_dtype
from .optimizer import Optimizer, _check_hyperparameters, _lerp, _no_differentiable

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (Kingma and Ba, 2014, section 7), with PyTorch's default ``lr=2e-3``
    (``torch/optim/adamax.py``)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        _no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups(foreach=None, maximize=False, differentiable=False,
                              capturable=False)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        return self._step_each_param(closure)

    def _init_state(self, p, group, state):
        """The state made on the parameter's first step, as PyTorch's ``_init_group``."""
        state["step"] = tensor(0.0, dtype=_step_dtype())
        state["exp_avg"] = zeros_like(p)
        state["exp_inf"] = zeros_like(p)

    def _update(self, p, group, state):
        """One parameter's step, as PyTorch's ``_single_tensor_adamax``."""
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = float(group["lr"]), group["eps"], group["weight_decay"]
        xp = array_module_of(p._data)
        param, exp_avg, exp_inf = p._data, state["exp_avg"]._data, state["exp_inf"]._data
        grad = -p.grad._data if group["maximize"] else p.grad._data
        state["step"]._data += 1
        step = float(state["step"]._data)

        if weight_decay != 0:
            grad = grad + weight_decay * param
        exp_avg[...] = _lerp(exp_avg, grad, 1 - beta1)
        exp_inf *= beta2
        xp.maximum(exp_inf, xp.abs(grad) + eps, out=exp_inf)
        clr = lr / (1 - beta1 ** step)
        param += -clr * exp_avg / exp_inf                  # param.addcdiv_(exp_avg, exp_inf, value=-clr)
        for t in (p, state["exp_avg"], state["exp_inf"], state["step"]):
            t._bump_version()

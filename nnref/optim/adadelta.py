"""``Adadelta`` (``torch/optim/adadelta.py``, the single-tensor CPU path).

Each coordinate's step is the ratio of two running RMS values, of past updates and of
gradients, so the units match and ``lr`` (default 1.0) only rescales::

    g = g + weight_decay * p                           (if weight_decay)
    v = rho * v + (1 - rho) * g * g                    (square_avg)
    delta = sqrt(u + eps) / sqrt(v + eps) * g          (u: acc_delta)
    u = rho * u + (1 - rho) * delta * delta
    p = p - lr * delta
"""
from .._creation import tensor, zeros_like
from ..core._device import array_module_of
from ..core.optim.adam import _step_dtype
from .optimizer import Optimizer, _check_hyperparameters, _no_differentiable

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012), with PyTorch's defaults ``lr=1.0, rho=0.9, eps=1e-6``
    (``torch/optim/adadelta.py``)."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_hyperparameters(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        _no_differentiable(differentiable)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups(foreach=None, maximize=False, differentiable=False,
                              capturable=False)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        # PyTorch checks every parameter before updating any
        return self._step_each_param(closure, devices="['cuda', 'xpu', 'hpu', 'privateuseone']",
                                     check_all_first=True)

    def _init_state(self, p, group, state):
        """The state made on the parameter's first step, as PyTorch's ``_init_group``."""
        state["step"] = tensor(0.0, dtype=_step_dtype())
        state["square_avg"] = zeros_like(p)
        state["acc_delta"] = zeros_like(p)

    def _update(self, p, group, state):
        """One parameter's step, as PyTorch's ``_single_tensor_adadelta``."""
        lr, rho, eps, weight_decay = (float(group["lr"]), group["rho"], group["eps"],
                                      group["weight_decay"])
        xp = array_module_of(p._data)
        param, square_avg, acc_delta = p._data, state["square_avg"]._data, state["acc_delta"]._data
        state["step"]._data += 1
        grad = -p.grad._data if group["maximize"] else p.grad._data
        if weight_decay != 0:
            grad = grad + weight_decay * param
        square_avg *= rho
        square_avg += (1 - rho) * grad * grad
        std = xp.sqrt(square_avg + eps)
        delta = xp.sqrt(acc_delta + eps) / std * grad
        acc_delta *= rho
        acc_delta += (1 - rho) * delta * delta
        param += -lr * delta                               # param.add_(delta, alpha=-lr)
        for t in (p, state["square_avg"], state["acc_delta"], state["step"]):
            t._bump_version()

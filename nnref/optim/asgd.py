"""``ASGD``: averaged stochastic gradient descent (``torch/optim/asgd.py``, the single-tensor
CPU path).

Plain SGD with a decaying rate ``eta`` and a weight decay ``lambd``, plus a running average
``ax`` of the parameters, taken from step ``t0`` on (Polyak-Ruppert averaging)::

    g = g + weight_decay * p                     (if weight_decay)
    p = p * (1 - lambd * eta) - eta * g
    ax = ax + mu * (p - ax)                      (ax = p while mu == 1)
    eta = lr / (1 + lambd * lr * t) ** alpha;  mu = 1 / max(1, t - t0)

``eta``, ``mu`` and ``step`` are 0-d float32 tensors on the parameter's device, as PyTorch keeps
them, so their roundings are PyTorch's.
"""
from .._creation import tensor, zeros, zeros_like
from ..core.optim.adam import _step_dtype
from .optimizer import Optimizer, _check_hyperparameters, _no_differentiable

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """ASGD (Polyak and Juditsky, 1992); the average is ``optimizer.state[p]['ax']``
    (``torch/optim/asgd.py``)."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_hyperparameters(lr=lr, weight_decay=weight_decay)
        _no_differentiable(differentiable)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups(("step", "eta", "mu"), on_param_device=True, foreach=None,
                              maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        return self._step_each_param(closure, "params, mus, etas, and state_steps")

    def _init_state(self, p, group, state):
        """The state made on the parameter's first step, as PyTorch's ``_init_group``."""
        state["step"] = zeros((), dtype=_step_dtype(), device=p.device)
        state["eta"] = tensor(float(group["lr"]), dtype=_step_dtype(), device=p.device)
        state["mu"] = tensor(1.0, dtype=_step_dtype(), device=p.device)
        state["ax"] = zeros_like(p)

    def _update(self, p, group, state):
        """One parameter's step, as PyTorch's ``_single_tensor_asgd``."""
        lr, lambd, alpha, t0 = float(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        weight_decay = group["weight_decay"]
        param, ax = p._data, state["ax"]._data
        grad = -p.grad._data if group["maximize"] else p.grad._data
        state["step"]._data += 1
        if weight_decay != 0:
            grad = grad + weight_decay * param
        eta_value = float(state["eta"]._data)
        param *= 1 - lambd * eta_value                  # the decay term
        param += -eta_value * grad                       # param.add_(grad, alpha=-eta)
        if float(state["mu"]._data) != 1:
            ax += (param - ax) * state["mu"]._data
        else:
            ax[...] = param
        step = float(state["step"]._data)
        state["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
        state["mu"]._data[...] = 1 / max(1, step - t0)
        for t in (p, state["ax"], state["eta"], state["mu"], state["step"]):
            t._bump_version()

"""``Rprop``: resilient backpropagation (``torch/optim/rprop.py``, the single-tensor CPU path).

Only the sign of each gradient coordinate is used; each coordinate keeps its own step size,
grown by ``etaplus`` while the sign holds and shrunk by ``etaminus`` when it flips::

    s = sign(g * prev)
    step_size = clamp(step_size * (etaplus if s > 0, etaminus if s < 0, 1 if s == 0), min, max)
    g = 0 where the sign flipped
    p = p - sign(g) * step_size;  prev = g
"""
from .._creation import full_like, tensor, zeros_like
from ..core._device import array_module_of
from ..core.optim.adam import _step_dtype
from .optimizer import Optimizer, _check_hyperparameters, _no_differentiable

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop (Riedmiller and Braun, 1993), for full-batch training: ``lr`` is each
    coordinate's first step size (``torch/optim/rprop.py``)."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_hyperparameters(lr=lr, etas=etas)
        _no_differentiable(differentiable)
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
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
        state["prev"] = zeros_like(p)
        state["step_size"] = full_like(p.grad, float(group["lr"]))

    def _update(self, p, group, state):
        """One parameter's step, as PyTorch's ``_single_tensor_rprop``."""
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        xp = array_module_of(p._data)
        param, prev, step_size = p._data, state["prev"]._data, state["step_size"]._data
        grad = -p.grad._data if group["maximize"] else p.grad._data
        state["step"]._data += 1

        sign = xp.asarray(xp.sign(grad * prev))  # an array even for a 0-d parameter
        sign[sign > 0] = etaplus
        sign[sign < 0] = etaminus
        sign[sign == 0] = 1
        step_size *= sign
        xp.clip(step_size, step_size_min, step_size_max, out=step_size)
        grad = xp.array(grad)  # a copy, an array even for a 0-d parameter
        grad[sign == etaminus] = 0
        param -= xp.sign(grad) * step_size              # param.addcmul_(grad.sign(), step_size, value=-1)
        prev[...] = grad
        for t in (p, state["prev"], state["step_size"], state["step"]):
            t._bump_version()

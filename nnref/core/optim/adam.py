"""``Adam`` (``torch/optim/adam.py``, the single-tensor path ``_single_tensor_adam``).

For each parameter with gradient ``g``, at step ``t``::

    g = g + weight_decay * p                     (Adam's L2 penalty; AdamW decays p instead)
    m = lerp(m, g, 1 - beta1)                    (= beta1 * m + (1 - beta1) * g)
    v = beta2 * v + (1 - beta2) * g * g
    p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

``amsgrad`` uses the running maximum of ``v``; ``nnref/optim/adam.py`` adds the argument checks.
"""
import functools

from .. import _dtype
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _params_with_grad

__all__ = ["Adam"]
__seams__ = ("tuned_update",)

# Seam: _update into existing arrays, 3x faster on small parameters: nnref/optim/_fused.py
tuned_update = None


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():  # as in PyTorch: the update is not part of any graph
            for group in self.param_groups:
                update = self._update
                if tuned_update is not None:
                    update = functools.partial(tuned_update, self)
                for p in _params_with_grad(group):
                    state = self.state[p]
                    if len(state) == 0:
                        # torch.tensor(0.0): a CPU tensor, even beside GPU parameters
                        state["step"] = Tensor._make(_step_dtype().numpy.type(0.0))
                        state["exp_avg"] = p.new_zeros(p.shape)
                        state["exp_avg_sq"] = p.new_zeros(p.shape)
                        if group["amsgrad"]:
                            state["max_exp_avg_sq"] = p.new_zeros(p.shape)
                    update(p, group, state)
        return loss

    def _update(self, p, group, state):
        """One parameter's step, as PyTorch's ``_single_tensor_adam``."""
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        grad = p.grad if not group["maximize"] else -p.grad
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        step_t += 1

        if weight_decay != 0:
            if group["decoupled_weight_decay"]:  # AdamW
                p.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(p, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad.conj(), value=1 - beta2)

        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if group["amsgrad"]:
            max_exp_avg_sq = state["max_exp_avg_sq"]
            max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq))
            denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-step_size)


def _step_dtype():
    """``step`` is kept as a 0-d tensor of the default float dtype, like PyTorch's."""
    return _dtype.float64 if _dtype.get_default_dtype() is _dtype.float64 else _dtype.float32

"""``RMSprop`` (``torch/optim/rmsprop.py``, the single-tensor CPU path).

For each parameter with gradient ``g``::

    g = g + weight_decay * p                          (if weight_decay)
    v = alpha * v + (1 - alpha) * g * g               (square_avg)
    avg = sqrt(v) + eps,  or  sqrt(v - m*m) + eps     (centered: m = running mean of g)
    buf = momentum * buf + g / avg;  p = p - lr * buf  (momentum > 0)
    p = p - lr * g / avg                              (otherwise)
"""
from .._creation import tensor, zeros_like
from ..core._device import array_module_of
from ..core.autograd.grad_mode import no_grad
from ..core.optim.adam import _step_dtype
from .optimizer import Optimizer, _params_with_grad

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if differentiable:
            raise NotImplementedError("nnref's optimizers update in place with numpy; "
                                      "differentiable=True is not supported")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "capturable": capturable,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in (("momentum", 0), ("centered", False), ("foreach", None),
                               ("maximize", False), ("differentiable", False),
                               ("capturable", False)):
                group.setdefault(key, value)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                for p in _params_with_grad(group):
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = tensor(0.0, dtype=_step_dtype())
                        state["square_avg"] = zeros_like(p)
                        if group["momentum"] > 0:
                            state["momentum_buffer"] = zeros_like(p)
                        if group["centered"]:
                            state["grad_avg"] = zeros_like(p)
                    self._update(p, group, state)
        return loss

    def _update(self, p, group, state):
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        param, grad = p._data, p.grad._data
        xp = array_module_of(param)
        grad_work, work = self._scratch(p, 2)
        state["step"]._data += 1
        if group["maximize"]:
            grad = xp.negative(grad, out=grad_work)
        if weight_decay != 0:
            xp.multiply(param, weight_decay, out=work)
            grad = xp.add(grad, work, out=grad_work)
        square_avg = state["square_avg"]._data
        # square_avg.mul_(alpha).addcmul_(g, g, value=1 - alpha)
        xp.multiply(square_avg, alpha, out=square_avg)
        xp.multiply(grad, 1 - alpha, out=work)
        xp.multiply(work, grad, out=work)
        xp.add(square_avg, work, out=square_avg)
        touched = [p, state["square_avg"], state["step"]]
        if group["centered"]:
            grad_avg = state["grad_avg"]._data
            _lerp_(xp, grad_avg, grad, 1 - alpha, work)
            # avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            xp.multiply(grad_avg, -1.0, out=work)
            xp.multiply(work, grad_avg, out=work)
            xp.add(square_avg, work, out=work)
            xp.sqrt(work, out=work)
            touched.append(state["grad_avg"])
        else:
            xp.sqrt(square_avg, out=work)
        xp.add(work, eps, out=work)
        if momentum > 0:
            buf = state["momentum_buffer"]._data
            # buf.mul_(momentum).addcdiv_(g, avg); p.add_(buf, alpha=-lr)
            xp.multiply(buf, momentum, out=buf)
            xp.divide(grad, work, out=work)
            xp.add(buf, work, out=buf)
            xp.multiply(buf, -lr, out=work)
            xp.add(param, work, out=param)
            touched.append(state["momentum_buffer"])
        else:
            # p.addcdiv_(g, avg, value=-lr)
            xp.multiply(grad, -lr, out=grad_work)
            xp.divide(grad_work, work, out=grad_work)
            xp.add(param, grad_work, out=param)
        for t in touched:
            t._bump_version()


def _lerp_(xp, start, end, weight, work):
    """``start.lerp_(end, weight)`` with the two-sided formula of PyTorch's CPU lerp kernel."""
    xp.subtract(end, start, out=work)
    if weight < 0.5:
        xp.multiply(work, weight, out=work)
        xp.add(start, work, out=start)
    else:
        xp.multiply(work, 1 - weight, out=work)
        xp.subtract(end, work, out=start)

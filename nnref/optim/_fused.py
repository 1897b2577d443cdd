"""The speed-tuned optimizer updates, taken with ``fused=True`` or ``foreach=True`` (as in PyTorch,
whose ``_fused_sgd``/``_multi_tensor_adam`` sit beside the readable ``_single_tensor_*`` paths).

Each follows the formulas of the default ``SGD._update``/``Adam._update`` but writes every
intermediate into existing memory (``out=``): the parameter, the optimizer state, or scratch
arrays shared by all parameters of one shape, so a step allocates nothing after the first. The
results agree with the default updates up to rounding (``tests/nn/test_optim.py``).

Their last step, ``param += alpha * update`` in one pass over memory, is
``nnref._ops.fused.add_scaled_`` (BLAS's ``axpy``), which ``Tensor.add_`` takes too.
"""
import math

import numpy as np

from .._ops.fused import add_scaled_, fma
from ..core._device import array_module_of
from ..core._tensor import Tensor
from .optimizer import _addcmul, _lerp


def _plus_scaled(start, alpha, update):
    """``start + alpha * update`` rounded as ``Tensor.add(update, alpha=alpha)`` rounds it (one
    fused multiply-add for float32 and float64: ``nnref._ops.arithmetic._binary``)."""
    alpha = start.dtype.type(alpha)
    if start.dtype in (np.float32, np.float64):
        return fma(update, alpha, start)
    return start + update * alpha


def sgd_update_(optimizer, p, group):
    """``SGD._update`` with no temporaries."""
    ### BEGIN SOLUTION twin=sgd.update
    # Fused: the lines below write into existing arrays (out=), so a step allocates little
    # (only the weight decay and Nesterov's term, rounded once as the default update rounds them);
    # `work` is a scratch array shared by all parameters of this shape.
    lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
    weight_decay, maximize = group["weight_decay"], group["maximize"]
    param, grad = p._data, p.grad._data
    xp = array_module_of(param)  # numpy on the CPU, CuPy on 'cuda'
    (work,) = optimizer._scratch(p, 1)
    d_p = xp.negative(grad, out=work) if maximize else grad
    if weight_decay != 0:
        work[...] = _plus_scaled(d_p, weight_decay, param)
        d_p = work
    if momentum != 0:
        state = optimizer.state[p]
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = Tensor._make(d_p.copy(), p._device)
        else:
            xp.multiply(buf._data, momentum, out=buf._data)
            add_scaled_(buf._data, 1 - dampening, d_p)
            buf._bump_version()
        if group["nesterov"]:
            work[...] = _plus_scaled(d_p, momentum, buf._data)
            d_p = work
        else:
            d_p = buf._data
    add_scaled_(param, -lr, d_p, work)
    p._bump_version()
    ### END SOLUTION


def adam_update_(optimizer, p, group, state):
    """``Adam._update`` with no temporaries."""
    # Fused: the lines below write into existing arrays (out=), so a step allocates little (only
    # the weight decay, rounded once as the default update rounds it); `grad_work` and `work` are
    # scratch arrays shared by all parameters of this shape.
    beta1, beta2 = group["betas"]
    lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
    param, grad = p._data, p.grad._data
    xp = array_module_of(param)  # numpy on the CPU, CuPy on 'cuda'
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    m, v = exp_avg._data, exp_avg_sq._data
    grad_work, work = optimizer._scratch(p, 2)
    step_t = state["step"]  # a CPU tensor, as in PyTorch: the step count is host arithmetic
    step_t._data += 1
    step = float(step_t._data)

    if group["maximize"]:
        grad = xp.negative(grad, out=grad_work)
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            xp.multiply(param, 1 - lr * weight_decay, out=param)
        else:
            grad_work[...] = _plus_scaled(grad, weight_decay, param)
            grad = grad_work

    # m.lerp_(g, 1 - beta1) and v.mul_(beta2).addcmul_(g, g, value=1 - beta2): PyTorch's kernels
    # round each once (a fused multiply-add), which numpy can only do through float64.
    m[...] = _lerp(m, grad, 1 - beta1)
    xp.multiply(v, beta2, out=v)
    v[...] = _addcmul(v, grad, grad, 1 - beta2)

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

"""The speed-tuned optimizer updates, taken with ``fused=True`` or ``foreach=True`` (as in PyTorch,
whose ``_fused_sgd``/``_multi_tensor_adam`` sit beside the readable ``_single_tensor_*`` paths).

Each follows the formulas of the default ``SGD._update``/``Adam._update`` but writes every
intermediate into existing memory (``out=``): the parameter, the optimizer state, or scratch
arrays shared by all parameters of one shape, so a step allocates nothing after the first. The
results agree with the default updates up to rounding (``tests/nn/test_optim.py``).

Their last step, ``param += alpha * update`` in one pass over memory (``add_scaled_``, which the
default ``SGD._update`` uses too):

numpy has no fused "scale and add" (BLAS's ``axpy``), so ``param -= lr * grad`` reads
and writes the parameter-sized arrays twice: once for ``lr * grad`` into a scratch
buffer, once for the subtraction. When SciPy is installed its BLAS ``axpy`` does both
in a single pass, which is what PyTorch's fused optimizer kernels do too. Without SciPy
(or for dtypes BLAS lacks, like float16, or for CUDA arrays, which SciPy cannot read)
the two passes give the same result.
"""
import math

import numpy as np

from ..core._device import array_module_of
from ..core._tensor import Tensor
from .optimizer import _addcmul, _lerp

try:
    from scipy.linalg import blas as _blas
except ImportError:  # SciPy is optional: the fallback below is just one pass slower
    _blas = None

_AXPY = {} if _blas is None else {np.dtype(np.float32): _blas.saxpy, np.dtype(np.float64): _blas.daxpy}


def add_scaled_(param, alpha, update, work=None):
    """``param += alpha * update`` in place: PyTorch's ``param.add_(update, alpha=alpha)``.

    With SciPy, BLAS's ``axpy`` does it in one pass; otherwise ``alpha * update`` goes
    through ``work`` (a scratch array shaped like ``param``) or, without one, a temporary.
    """
    xp = array_module_of(param)
    axpy = _AXPY.get(param.dtype) if xp is np else None  # SciPy's BLAS reads host memory only
    if (axpy is not None and update.dtype == param.dtype and param.flags.c_contiguous
            and update.flags.c_contiguous):
        flat = param.reshape(-1)
        result = axpy(update.reshape(-1), flat, a=alpha)
        if result is flat or xp.shares_memory(result, flat):
            return
        param[...] = result.reshape(param.shape)  # BLAS could not write in place: copy back
        return
    if work is None:
        param += alpha * update
        return
    xp.multiply(update, alpha, out=work)
    xp.add(param, work, out=param)


def sgd_update_(optimizer, p, group):
    """``SGD._update`` with no temporaries."""
    # Fused: every line below writes into an existing array (out=), so a step allocates
    # nothing; `work` is a scratch array shared by all parameters of this shape.
    lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
    weight_decay, maximize = group["weight_decay"], group["maximize"]
    param, grad = p._data, p.grad._data
    xp = array_module_of(param)  # numpy on the CPU, CuPy on 'cuda'
    (work,) = optimizer._scratch(p, 1)
    d_p = grad
    if weight_decay != 0:
        xp.multiply(param, weight_decay, out=work)
        (xp.subtract if maximize else xp.add)(work, grad, out=work)
        d_p = work
    elif maximize:
        d_p = xp.negative(grad, out=work)
    if momentum != 0:
        state = optimizer.state[p]
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = Tensor._make(d_p.copy(), p._device)
        else:
            xp.multiply(buf._data, momentum, out=buf._data)
            if dampening == 0:
                xp.add(buf._data, d_p, out=buf._data)
            else:
                xp.add(buf._data, d_p * (1 - dampening), out=buf._data)
            buf._bump_version()
        if group["nesterov"]:
            if d_p is work:
                xp.add(work, buf._data * momentum, out=work)
            else:
                xp.multiply(buf._data, momentum, out=work)
                xp.add(d_p, work, out=work)
            d_p = work
        else:
            d_p = buf._data
    add_scaled_(param, -lr, d_p, work)
    p._bump_version()


def adam_update_(optimizer, p, group, state):
    """``Adam._update`` with no temporaries."""
    # Fused: each line writes into an existing array (out=), so a step allocates nothing;
    # `grad_work` and `work` are scratch arrays shared by all parameters of this shape.
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
            xp.multiply(param, weight_decay, out=work)
            grad = xp.add(grad, work, out=grad_work)

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

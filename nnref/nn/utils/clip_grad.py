"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm`` and
``clip_grads_with_norm_`` (``torch/nn/utils/clip_grad.py``).

The arithmetic is PyTorch's step for step, so the returned norm and the clipped gradients carry
PyTorch's digits: one ``linalg.vector_norm`` per gradient (grouped by device and dtype, as
``_group_tensors_by_device_and_dtype`` orders them), the norm of their stack, then
``clamp(max_norm * reciprocal(total_norm + 1e-6), max=1.0)`` (``number / tensor`` is
``reciprocal(tensor) * number`` in PyTorch) multiplied into every gradient in place, even when
it is 1.  PyTorch's ``foreach`` kernels (``_foreach_norm``, ``_foreach_mul_``) run these same
per-tensor ops on the CPU, so ``foreach`` changes nothing but its error on an unsupported device.
"""
import functools
import types
import warnings

from ..._creation import tensor
from ..._ops.shape import stack
from ...core._tensor import Tensor
from ...core.autograd.grad_mode import no_grad
from ...linalg import vector_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]

_FOREACH_DEVICES = ("cpu", "cuda")  # _device_has_foreach_support: the foreach kernels' devices plus the CPU


def _no_grad(func):
    """Run ``func`` under ``no_grad``, keeping its name and docstring (PyTorch's ``_no_grad``)."""

    @functools.wraps(func)
    def _no_grad_wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)

    return _no_grad_wrapper


def _grouped_by_device_and_dtype(tensors):
    """The tensors in groups of one (device, dtype), groups in order of first appearance."""
    groups = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def _check_foreach(foreach, device):
    if foreach and device.type not in _FOREACH_DEVICES:
        raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of the tensors' norms: the norm of all of them seen as one vector
    (``_get_total_norm`` of ``torch/nn/utils/clip_grad.py``, ``torch.nn.utils.get_total_norm``)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    first_device = tensors[0].device
    norms = []
    for (device, _), group in _grouped_by_device_and_dtype(tensors).items():
        _check_foreach(foreach, device)
        norms.extend(vector_norm(g, norm_type) for g in group)
    total_norm = vector_norm(stack([norm.to(first_device) for norm in norms]), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                           "so it cannot be clipped. To disable this error and scale the gradients by the "
                           "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients in place by ``min(max_norm / (total_norm + 1e-6), 1)`` for a total norm
    computed before (``_clip_grads_with_norm_`` of ``torch/nn/utils/clip_grad.py``,
    ``torch.nn.utils.clip_grads_with_norm_``)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    # PyTorch multiplies even by a coefficient clamped to 1: a comparison would synchronise a GPU
    clip_coef_clamped = ((total_norm + 1e-6).reciprocal() * max_norm).clamp(max=1.0)
    for (device, _), group in _grouped_by_device_and_dtype(grads).items():
        _check_foreach(foreach, device)
        coef = clip_coef_clamped.to(device)
        for g in group:
            g.mul_(coef)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradients' total ``norm_type``-norm to ``max_norm`` in place; returns the total norm
    before clipping (``torch/nn/utils/clip_grad.py``, ``torch.nn.utils.clip_grad_norm_``)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)  # a generator would be spent by the first pass
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated ``clip_grad_norm_`` under its old name, with PyTorch's FutureWarning
    (``torch/nn/utils/clip_grad.py``)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient into ``[-clip_value, clip_value]`` in place
    (``torch/nn/utils/clip_grad.py``, ``torch.nn.utils.clip_grad_value_``)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for (device, _), group in _grouped_by_device_and_dtype(grads).items():
        _check_foreach(foreach, device)
        for grad in group:
            grad.clamp_(min=-clip_value, max=clip_value)

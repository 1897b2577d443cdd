"""Helpers the distributions share: broadcasting parameters, probabilities to logits and back,
``lazy_property`` (``torch/distributions/utils.py``)."""
from functools import update_wrapper

from ..core import _dtype
from .._creation import arange, empty, tensor
from .._ops.shape_composites import broadcast_tensors
from ..core._tensor import Size, Tensor
from .._type_info import finfo
from ..core.autograd.grad_mode import enable_grad
from ..nn import functional as F

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

# torch.types._Number: what PyTorch accepts as a plain number parameter.
_Number = (int, float, bool)


def broadcast_all(*values):
    """The values broadcast together; numbers become tensors of the first tensor's dtype and
    device, or of the default dtype when all are numbers (``broadcast_all``)."""
    if not all(isinstance(v, (Tensor, *_Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        options = dict(dtype=_dtype.get_default_dtype())
        for value in values:
            if isinstance(value, Tensor):
                options = dict(dtype=value.dtype, device=value.device)
                break
        values = [v if isinstance(v, Tensor) else tensor(v, **options) for v in values]
    return broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    """Standard normal draws of ``shape``: ``empty(shape).normal_()``, PyTorch's stream."""
    return empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """``value`` summed over its ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    required_shape = tuple(value.shape[:-dim]) + (-1,)
    return value.reshape(required_shape).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: ``sigmoid`` of log-odds, or ``softmax`` over the last
    dimension of (unnormalised) log-probabilities (``logits_to_probs``)."""
    if is_binary:
        return logits.sigmoid()
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """``probs`` clamped to ``[eps, 1 - eps]`` of its dtype (``clamp_probs``)."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped first): log-odds, or ``log(p)`` (``probs_to_logits``)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


class lazy_property:
    """A property computed on first access (with grad enabled) and then stored on the
    instance (``lazy_property``): ``Categorical(logits=...).probs``."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What the class attribute looks like: a property to documentation tools, a
    ``lazy_property`` to argument validation."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle of (a batch of) square matrices, in row order (``tril_matrix_to_vec``)."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    index = arange(n, device=mat.device)
    tril_mask = index < index.view(-1, 1) + (diag + 1)
    return mat[..., tril_mask]


def vec_to_tril_matrix(vec, diag=0):
    """(A batch of) lower-triangular matrices filled from vectors in row order
    (``vec_to_tril_matrix``)."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1))
         ** 0.5) / 2
    eps = finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(Size(tuple(vec.shape[:-1]) + (n, n)))
    index = arange(n, device=vec.device)
    tril_mask = index < index.view(-1, 1) + (diag + 1)
    mat[..., tril_mask] = vec
    return mat

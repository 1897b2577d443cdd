"""``nn.utils.parametrizations``: weight normalisation and spectral normalisation written as
parametrizations (``torch/nn/utils/parametrizations.py``), so the weight is recomputed on every
access and the originals live in ``module.parametrizations.weight``.

``orthogonal`` needs ``torch.geqrf``, ``torch.linalg.householder_product`` and
``torch.matrix_exp``, which nnref does not have yet: it raises ``NotImplementedError``.
"""
from ..._ops.weight_norm import norm_except_dim, weight_norm as _weight_norm_op
from ...core._tensor import Tensor
from ...core.autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """``torch.nn.utils.parametrizations.orthogonal``: not available in nnref, which lacks the QR
    reflectors (``geqrf``, ``householder_product``) and ``matrix_exp`` it is built on."""
    raise NotImplementedError(
        "nnref does not implement torch.nn.utils.parametrizations.orthogonal: it needs torch.geqrf, "
        "torch.linalg.householder_product and torch.matrix_exp, which nnref does not have")


class _WeightNorm(Module):
    """``w = g * v / ||v||`` of the originals ``g`` (``original0``) and ``v`` (``original1``)."""

    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm_op(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    """Weight normalisation (https://arxiv.org/abs/1602.07868) as a parametrization: ``weight``
    becomes ``g * v / ||v||``, the norm taken per slice along ``dim`` (over the whole tensor when
    ``dim=None``), with ``g`` in ``parametrizations.weight.original0`` and ``v`` in
    ``original1`` (``torch.nn.utils.parametrizations.weight_norm``).  A ``state_dict`` of the
    legacy ``nn.utils.weight_norm`` (``weight_g``, ``weight_v``) loads into it."""
    _weight_norm = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    """``W / sigma(W)``, ``sigma`` estimated by power iteration on the buffers ``_u`` and ``_v``
    (one step of ``n_power_iterations`` per access in training mode)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # A vector is normalised exactly in forward: nothing to estimate.
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()

            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))

            # Start from singular vectors estimated by 15 steps, not from the random draws.
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place (out=), so a replica sharing the buffers sees the steps;
        # forward clones them before use, so two forwards can be backpropagated through.
        if weight_mat.ndim <= 1:
            raise AssertionError(f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}")
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(weight_mat.H.mv(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalisation (https://arxiv.org/abs/1802.05957) as a parametrization: ``weight``
    becomes ``W / sigma(W)``, ``sigma`` the largest singular value of ``W`` reshaped to a matrix
    with ``dim`` first (1 for ``ConvTranspose``, else 0), estimated by ``n_power_iterations`` of the
    power method per access in training mode (``torch.nn.utils.parametrizations.spectral_norm``).
    The vectors ``u``, ``v`` start from ``normal_`` draws (PyTorch's stream) and 15 power steps."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:  # nnref has no ConvTranspose3d, the third class PyTorch names here
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module

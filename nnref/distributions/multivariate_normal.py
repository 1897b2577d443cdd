"""The multivariate normal distribution (``torch/distributions/multivariate_normal.py``)."""
import math

from .._creation import eye
from .._ops.linalg import matmul
from .._ops.queries import broadcast_shapes
from ..core._tensor import Size
from ..linalg import cholesky
from . import constraints
from ._solve_triangular import solve_triangular
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix times vector over broadcast batches."""
    return matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """The squared Mahalanobis distance ``x^T (L L^T)^{-1} x``, with ``bx``'s batch broadcast
    against ``bL``'s without copying ``bL`` (PyTorch's reshaping, step for step)."""
    n = bx.size(-1)
    bx_batch_shape = tuple(bx.shape[:-1])
    bx_batch_dims = len(bx_batch_shape)
    bL_batch_dims = bL.dim() - 2
    outer_batch_dims = bx_batch_dims - bL_batch_dims
    old_batch_dims = outer_batch_dims + bL_batch_dims
    new_batch_dims = outer_batch_dims + 2 * bL_batch_dims
    bx_new_shape = tuple(bx.shape[:outer_batch_dims])
    for sL, sx in zip(bL.shape[:-2], bx.shape[outer_batch_dims:-1]):
        bx_new_shape += (sx // sL, sL)
    bx_new_shape += (n,)
    bx = bx.reshape(bx_new_shape)
    permute_dims = (list(range(outer_batch_dims))
                    + list(range(outer_batch_dims, new_batch_dims, 2))
                    + list(range(outer_batch_dims + 1, new_batch_dims, 2))
                    + [new_batch_dims])
    bx = bx.permute(permute_dims)
    flat_L = bL.reshape(-1, n, n)
    flat_x = bx.reshape(-1, flat_L.size(0), n)
    flat_x_swap = flat_x.permute(1, 2, 0)
    M_swap = solve_triangular(flat_L, flat_x_swap, upper=False).pow(2).sum(-2)
    M = M_swap.t()
    permuted_M = M.reshape(bx.shape[:-1])
    permute_inv_dims = list(range(outer_batch_dims))
    for i in range(bL_batch_dims):
        permute_inv_dims += [outer_batch_dims + i, old_batch_dims + i]
    reshaped_M = permuted_M.permute(permute_inv_dims)
    return reshaped_M.reshape(bx_batch_shape)


def _precision_to_scale_tril(P):
    """The Cholesky factor of ``P^{-1}`` without inverting ``P``: factor ``P`` flipped."""
    Lf = cholesky(P.flip((-2, -1)))
    L_inv = Lf.flip((-2, -1)).transpose(-2, -1)
    Id = eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return solve_triangular(L_inv, Id, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution with mean ``loc`` and one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (its lower Cholesky factor)
    (``torch.distributions.MultivariateNormal``, ``torch/distributions/multivariate_normal.py``).

    The triangular solves run on numpy's general solver (nnref has no
    ``linalg.solve_triangular``): ``log_prob`` and the precision parameterisation agree with
    PyTorch's to rounding, not bit for bit."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError("scale_tril matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            batch_shape = _broadcast_shapes(scale_tril.shape[:-2], loc.shape[:-1])
            self.scale_tril = scale_tril.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError("covariance_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            batch_shape = _broadcast_shapes(covariance_matrix.shape[:-2], loc.shape[:-1])
            self.covariance_matrix = covariance_matrix.expand(batch_shape + (-1, -1))
        else:
            if precision_matrix.dim() < 2:
                raise ValueError("precision_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            batch_shape = _broadcast_shapes(precision_matrix.shape[:-2], loc.shape[:-1])
            self.precision_matrix = precision_matrix.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = Size(self.loc.shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameters expanded to ``batch_shape`` (the Cholesky
        factor is shared)."""
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        if "covariance_matrix" in self.__dict__:
            new.covariance_matrix = self.covariance_matrix.expand(cov_shape)
        if "scale_tril" in self.__dict__:
            new.scale_tril = self.scale_tril.expand(cov_shape)
        if "precision_matrix" in self.__dict__:
            new.precision_matrix = self.precision_matrix.expand(cov_shape)
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._full_matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return matmul(L, L.mT).expand(self._full_matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # PyTorch's cholesky_inverse(L) is (L L^T)^{-1} = L^{-T} L^{-1}
        L = self._unbroadcasted_scale_tril
        L_inv = solve_triangular(L, eye(L.shape[-1], dtype=L.dtype, device=L.device), upper=False)
        return matmul(L_inv.mT, L_inv).expand(self._full_matrix_shape())

    def _full_matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def mode(self):
        """``loc``."""
        return self.loc

    @property
    def variance(self):
        """The diagonal of the covariance: the squared rows of ``scale_tril`` summed."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=Size()):
        """``loc + scale_tril @ eps`` with standard normal ``eps``: PyTorch's stream."""
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        """``-0.5 (k log(2 pi) + mahalanobis) - log det(scale_tril)``."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        """``0.5 k (1 + log(2 pi)) + log det(scale_tril)``."""
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)


def _broadcast_shapes(*shapes):
    return Size(broadcast_shapes(*shapes))

"""The Laplace (double exponential) distribution (``torch/distributions/laplace.py``)."""
from .._creation import empty
from ..core._tensor import Size
from .._type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import _Number, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution with location ``loc`` and scale ``scale``
    (``torch.distributions.Laplace``, ``torch/distributions/laplace.py``)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

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
        """``2 * scale ** 2``."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        """``sqrt(2) * scale``."""
        return (2 ** 0.5) * self.scale

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, _Number) and isinstance(scale, _Number):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with ``loc`` and ``scale`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        """``loc - scale * sign(u) * log1p(-|u|)`` with ``u`` uniform on ``[eps - 1, 1)``."""
        shape = self._extended_shape(sample_shape)
        eps = finfo(self.loc.dtype).eps
        u = empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        """``-log(2 scale) - |value - loc| / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        """``0.5 - 0.5 * sign(value - loc) * expm1(-|value - loc| / scale)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value):
        """``loc - scale * sign(value - 0.5) * log1p(-2 |value - 0.5|)``."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        """``1 + log(2 scale)``."""
        return 1 + (2 * self.scale).log()

"""The exponential distribution (``torch/distributions/exponential.py``)."""
from .._creation import empty, zeros_like
from ..core._tensor import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _Number, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution with ``rate`` (density ``rate * exp(-rate * x)``)
    (``torch.distributions.Exponential``, ``torch/distributions/exponential.py``)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def mode(self):
        """0."""
        return zeros_like(self.rate)

    @property
    def stddev(self):
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def variance(self):
        """``rate ** -2``."""
        return self.rate.pow(-2)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, _Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with ``rate`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Exponential, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        """``exponential_()`` draws of rate 1 divided by ``rate``: PyTorch's stream."""
        shape = self._extended_shape(sample_shape)
        # PyTorch's rate.new(shape): an uninitialised tensor of rate's dtype and device
        return empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_() / self.rate

    def log_prob(self, value):
        """``log(rate) - rate * value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        """``1 - exp(-rate * value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        """``-log1p(-value) / rate``."""
        return -(-value).log1p() / self.rate

    def entropy(self):
        """``1 - log(rate)``."""
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

"""The Poisson distribution (``torch/distributions/poisson.py``)."""
from .._ops.special import lgamma, xlogy
from ..core._tensor import Size
from ..core.autograd.grad_mode import no_grad
from . import constraints
from ._samplers import poisson
from .exp_family import ExponentialFamily
from .utils import _Number, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The Poisson distribution with ``rate``, over the nonnegative integers
    (``torch.distributions.Poisson``, ``torch/distributions/poisson.py``); ``sample`` draws
    PyTorch's numbers (``torch.poisson``)."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        """``rate``."""
        return self.rate

    @property
    def mode(self):
        """``floor(rate)``."""
        return self.rate.floor()

    @property
    def variance(self):
        """``rate``."""
        return self.rate

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, _Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with ``rate`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        """``torch.poisson(rate)`` of shape ``sample_shape + batch_shape``."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value):
        """``value log(rate) - rate - lgamma(value + 1)``."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return xlogy(value, rate) - rate - lgamma(value + 1)

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()

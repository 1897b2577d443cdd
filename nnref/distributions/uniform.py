"""The continuous uniform distribution on ``[low, high)`` (``torch/distributions/uniform.py``)."""
from .._creation import rand
from ..core._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import _Number, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform draws from the half-open interval ``[low, high)``
    (``torch.distributions.Uniform``, ``torch/distributions/uniform.py``)."""

    has_rsample = True

    @property
    def arg_constraints(self):
        """``low < high`` and ``high > low``, each against the other bound."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def mean(self):
        """``(high + low) / 2``."""
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """NaN: every value in the interval is as likely."""
        return float("nan") * self.high

    @property
    def stddev(self):
        """``(high - low) / sqrt(12)``."""
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        """``(high - low) ** 2 / 12``."""
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, _Number) and isinstance(high, _Number):
            batch_shape = Size()
        else:
            batch_shape = self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with ``low`` and ``high`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = Size(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        super(Uniform, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """``interval(low, high)``."""
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=Size()):
        """``low + rand(shape) * (high - low)``: PyTorch's draws, differentiable in the bounds."""
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        """``log(1[low <= value < high]) - log(high - low)``."""
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return lb.mul(ub).log() - (self.high - self.low).log()

    def cdf(self, value):
        """``(value - low) / (high - low)`` clamped to ``[0, 1]``."""
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        """``value * (high - low) + low``."""
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """``log(high - low)``."""
        return (self.high - self.low).log()

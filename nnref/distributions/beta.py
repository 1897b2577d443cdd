"""The beta distribution (``torch/distributions/beta.py``)."""
from numbers import Number

from .._creation import tensor
from .._ops.shape import stack
from .._ops.special import lgamma
from ..core._tensor import Size
from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import _Number, broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """The beta distribution on ``[0, 1]`` with ``concentration1`` (alpha) and
    ``concentration0`` (beta), a two-category Dirichlet (``torch.distributions.Beta``,
    ``torch/distributions/beta.py``): draws are PyTorch's numbers, differentiable in the
    concentrations."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, _Number) and isinstance(concentration0, _Number):
            concentration1_concentration0 = tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            concentration1_concentration0 = stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(concentration1_concentration0, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its concentrations expanded to ``batch_shape``."""
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``alpha / (alpha + beta)``."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        """The Dirichlet's mode, first category."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        """``alpha beta / ((alpha + beta)^2 (alpha + beta + 1))``."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        """The first category of a Dirichlet draw: PyTorch's numbers."""
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        """The Dirichlet's ``log_prob`` of ``(value, 1 - value)``."""
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        """The Dirichlet's entropy."""
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        """alpha."""
        result = self._dirichlet.concentration[..., 0]
        return tensor([result]) if isinstance(result, Number) else result

    @property
    def concentration0(self):
        """beta."""
        result = self._dirichlet.concentration[..., 1]
        return tensor([result]) if isinstance(result, Number) else result

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return lgamma(x) + lgamma(y) - lgamma(x + y)

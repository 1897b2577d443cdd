"""The gamma distribution (``torch/distributions/gamma.py``)."""
from .._creation import as_tensor
from .._ops.special import digamma, lgamma, xlogy
from ..core._tensor import Size
from .._type_info import finfo
from ..core.autograd.grad_mode import no_grad
from . import constraints
from ._samplers import standard_gamma
from .exp_family import ExponentialFamily
from .utils import _Number, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and ``rate`` (density
    ``rate^a x^(a-1) exp(-rate x) / Gamma(a)``) (``torch.distributions.Gamma``,
    ``torch/distributions/gamma.py``).  ``sample``/``rsample`` draw PyTorch's numbers
    (the ``_samplers`` module), and ``rsample`` is differentiable in both
    parameters (``concentration`` through PyTorch's implicit reparameterisation gradient)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        """``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def mode(self):
        """``(concentration - 1) / rate``, at least 0."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        """``concentration / rate ** 2``."""
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, _Number) and isinstance(rate, _Number):
            batch_shape = Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with both parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        """``_standard_gamma(concentration) / rate``, at least the dtype's ``tiny``."""
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        with no_grad():  # PyTorch clamps value.detach() in place: not recorded in the graph
            value.detach().clamp_(min=finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        """``a log(rate) + (a - 1) log(value) - rate value - lgamma(a)``."""
        value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value)
                - self.rate * value - lgamma(self.concentration))

    def entropy(self):
        """``a - log(rate) + lgamma(a) + (1 - a) digamma(a)``."""
        return (self.concentration - self.rate.log() + lgamma(self.concentration)
                + (1.0 - self.concentration) * digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * (-y.reciprocal()).log()

    def cdf(self, value):
        """PyTorch's is ``special.gammainc(concentration, rate * value)``, which nnref does not have."""
        raise NotImplementedError("nnref's Gamma has no cdf: it needs torch.special.gammainc (the regularised "
                                  "incomplete gamma function), which nnref does not implement")

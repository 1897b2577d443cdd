"""The Dirichlet distribution (``torch/distributions/dirichlet.py``)."""
from .._ops.special import digamma, lgamma, xlogy
from .._tensor import Size
from ..autograd.grad_mode import is_grad_enabled
from ..nn.functional import one_hot
from . import constraints
from ._samplers import sample_dirichlet
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex, with ``concentration`` along the last
    dimension (``torch.distributions.Dirichlet``, ``torch/distributions/dirichlet.py``).
    Draws are PyTorch's numbers; differentiating a draw in ``concentration`` (PyTorch's
    ``_dirichlet_grad``) is not implemented and says so."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with ``concentration`` expanded to ``batch_shape + event_shape``."""
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        """``_sample_dirichlet(concentration)``: PyTorch's draws (gamma draws, normalised)."""
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        if concentration.requires_grad and is_grad_enabled():
            raise NotImplementedError(
                "nnref draws Dirichlet and Beta samples with PyTorch's numbers but cannot differentiate them in "
                "the concentration (PyTorch's _dirichlet_grad is not implemented): call sample(), or detach the "
                "concentration")
        return sample_dirichlet(concentration)

    def log_prob(self, value):
        """``sum((a - 1) log(value)) + lgamma(sum(a)) - sum(lgamma(a))``."""
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration - 1.0, value).sum(-1) + lgamma(self.concentration.sum(-1))
                - lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        """``concentration / concentration.sum(-1)``."""
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """``(a - 1)+`` normalised; where every ``a < 1``, the corner of the largest."""
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = one_hot(mode[mask].argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        """``a (a0 - a) / (a0^2 (a0 + 1))``."""
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        """``sum(lgamma(a)) - lgamma(a0) - (k - a0) digamma(a0) - sum((a - 1) digamma(a))``."""
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (lgamma(self.concentration).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0)
                - ((self.concentration - 1.0) * digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return lgamma(x).sum(-1) - lgamma(x.sum(-1))

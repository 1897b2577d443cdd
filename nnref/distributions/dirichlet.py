"""The Dirichlet distribution (``torch/distributions/dirichlet.py``)."""
import numpy as np

from .._ops._common import wrap
from .._ops.special import digamma, lgamma, xlogy
from ..core._tensor import Size
from ..autograd.function import Function, once_differentiable
from ..nn.functional import one_hot
from . import constraints
from ._samplers import dirichlet_grad, sample_dirichlet
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _Dirichlet_backward(x, concentration, grad_output):
    """The gradient of a draw ``x`` in ``concentration``: ``_dirichlet_grad`` on each category
    against the rest, projected onto the simplex."""
    total = np.broadcast_to(concentration._data.sum(-1, keepdims=True), concentration._data.shape)
    grad = wrap(dirichlet_grad(x._data, concentration._data, total), x)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(Function):
    """A Dirichlet draw, differentiable in its concentration (first order, as PyTorch's)."""

    @staticmethod
    def forward(ctx, concentration):
        x = sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex, with ``concentration`` along the last
    dimension (``torch.distributions.Dirichlet``, ``torch/distributions/dirichlet.py``).
    Draws are PyTorch's numbers, differentiable in ``concentration`` (PyTorch's
    ``_dirichlet_grad``, the same expansions)."""

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
        return _Dirichlet.apply(concentration)

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

"""The multinomial distribution: counts of ``total_count`` categorical draws
(``torch/distributions/multinomial.py``)."""
from .. import _creation
from .._ops.special import lgamma
from ..core._tensor import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all, probs_to_logits

__all__ = ["Multinomial"]


def _binomial_log_prob(total_count, logits, value):
    """``Binomial(total_count, logits=logits).log_prob(value)`` as ``torch/distributions/binomial.py``
    writes it (nnref has no ``Binomial``: it lacks PyTorch's binomial sampler)."""
    log_factorial_n = lgamma(total_count + 1)
    log_factorial_k = lgamma(value + 1)
    log_factorial_nmk = lgamma(total_count - value + 1)
    # binomial.py's _clamp_by_zero: max(x, 0) whose gradient at 0 is 1/2
    clamped = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
    normalize_term = total_count * clamped + total_count * (-logits.abs()).exp().log1p() - log_factorial_n
    return value * logits - log_factorial_k - log_factorial_nmk - normalize_term


class Multinomial(Distribution):
    """The counts of each of ``K`` categories in ``total_count`` draws with ``probs`` (normalised to
    sum to 1) or ``logits`` (normalised likewise), not both (``torch.distributions.Multinomial``).
    ``sample`` needs one ``total_count`` shared by all parameters; ``log_prob`` takes any counts."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    @property
    def mean(self):
        """``probs * total_count``."""
        return self.probs * self.total_count

    @property
    def variance(self):
        """``total_count * probs * (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its categorical expanded to ``batch_shape``."""
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        """Count vectors that sum to at most ``total_count``."""
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        """The normalised log-probabilities of the categories (the categorical's)."""
        return self._categorical.logits

    @property
    def probs(self):
        """The normalised probabilities of the categories (the categorical's)."""
        return self._categorical.probs

    @property
    def param_shape(self):
        """The shape of ``probs`` or ``logits``, whichever was given."""
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()):
        """``total_count`` categorical draws per sample, counted with ``scatter_add_``: PyTorch's
        calls in PyTorch's order, so the same seed gives the same counts."""
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        # (total_count, sample_shape, batch_shape) -> (sample_shape, batch_shape, total_count)
        shifted = list(range(samples.dim()))
        shifted.append(shifted.pop(0))
        samples = samples.permute(*shifted)
        counts = _creation.zeros(self._extended_shape(sample_shape), dtype=samples.dtype, device=samples.device)
        counts.scatter_add_(-1, samples, _creation.ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        """``n H(categorical) - log n!`` plus the expected ``log x_k!`` of each count, whose law
        is binomial (PyTorch's formula)."""
        n = _creation.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - lgamma(n + 1)
        support = _creation.arange(1 + self.total_count, dtype=self.probs.dtype, device=self.probs.device)
        support = support.view((-1,) + (1,) * self.probs.dim())[1:]
        # PyTorch's Binomial(total_count, probs) broadcasts total_count to a tensor like probs
        total_count = _creation.full_like(self.probs, self.total_count)
        binomial_probs = _binomial_log_prob(total_count, probs_to_logits(self.probs, is_binary=True),
                                            support).exp()
        term2 = (binomial_probs * lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        """``log n! - sum log x_k! + sum x_k logits_k`` (a zero count of an impossible category
        adds 0)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -float("inf"))] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers

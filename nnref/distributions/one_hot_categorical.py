"""The categorical distribution with one-hot draws (``torch/distributions/one_hot_categorical.py``)."""
from .._creation import eye
from ..core._tensor import Size
from ..nn.functional import one_hot as _one_hot
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """A categorical distribution whose draws are one-hot vectors of length K, given by
    ``probs`` or ``logits`` (``torch.distributions.OneHotCategorical``,
    ``torch/distributions/one_hot_categorical.py``)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = Size(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameter expanded to ``batch_shape + (K,)``."""
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """The normalised probabilities."""
        return self._categorical.probs

    @property
    def logits(self):
        """The normalised logits."""
        return self._categorical.logits

    @property
    def mean(self):
        """``probs``."""
        return self._categorical.probs

    @property
    def mode(self):
        """The one-hot vector of the most probable category."""
        probs = self._categorical.probs
        mode = probs.argmax(dim=-1)
        return _one_hot(mode, num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self):
        """``probs * (1 - probs)``."""
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        """The shape of ``probs`` or ``logits``, whichever was given."""
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()):
        """``one_hot`` of the categorical draw (PyTorch's stream)."""
        sample_shape = Size(sample_shape)
        probs = self._categorical.probs
        num_events = self._categorical._num_events
        indices = self._categorical.sample(sample_shape)
        return _one_hot(indices, num_events).to(probs)

    def log_prob(self, value):
        """The categorical ``log_prob`` of each one-hot vector's index."""
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        """The categorical entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """The K one-hot vectors along dimension 0, expanded over the batch shape."""
        n = self.event_shape[0]
        values = eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``OneHotCategorical`` whose ``rsample`` passes gradients straight through to ``probs``
    (``draw + (probs - probs.detach())``)
    (``torch.distributions.OneHotCategoricalStraightThrough``,
    ``torch/distributions/one_hot_categorical.py``)."""

    has_rsample = True

    def rsample(self, sample_shape=Size()):
        """The one-hot draw plus ``probs - probs.detach()``: the straight-through estimator."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())

"""Exponential-family distributions: entropy from the log normaliser by automatic
differentiation (``torch/distributions/exp_family.py``)."""
from ..autograd import grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base of the distributions whose density is ``exp(<t(x), theta> - F(theta) + k(x))``
    (``torch.distributions.ExponentialFamily``); its ``entropy`` and the KL divergence of two
    members of one family are the Bregman divergence of ``F``."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy from the Bregman divergence of the log normaliser."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for np_, g in zip(nparams, gradients):
            result -= (np_ * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result

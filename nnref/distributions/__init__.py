"""Probability distributions: sampling with PyTorch's random streams, differentiable
``log_prob``/``entropy``/``rsample``, argument validation and ``kl_divergence``
(``torch.distributions``, ``torch/distributions/__init__.py``).

``Normal(mu, std).rsample()`` for a VAE, ``Categorical(probs).sample()`` and ``.log_prob()``
for REINFORCE: the same ``manual_seed`` gives PyTorch's numbers, because each ``sample`` makes
the same random calls (``normal``, ``multinomial``, ``bernoulli``, ``rand``, ``exponential_``)
in the same order.  PyTorch's distributions that need a gamma, Poisson or binomial sampler
(``Beta``, ``Gamma``, ``Dirichlet``, ``Poisson``, ...) are not here: nnref does not reproduce
those samplers' draws.
"""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import Independent
from .kl import _add_kl_info, kl_divergence, register_kl
from .laplace import Laplace
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .uniform import Uniform

_add_kl_info()
del _add_kl_info

__all__ = [
    "Bernoulli", "Categorical", "Distribution", "Exponential", "ExponentialFamily", "Independent",
    "Laplace", "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Uniform", "kl_divergence", "register_kl",
]

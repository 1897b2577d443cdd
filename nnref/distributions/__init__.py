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
from .normal import Normal
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Normal", "Uniform",
]

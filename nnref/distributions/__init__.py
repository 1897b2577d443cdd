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

# PyTorch's distributions and transforms that nnref does not have: asking for one says so
# (the samplers of most of them, gamma, Poisson, binomial ..., are not reproduced; see above).
_NOT_IN_NNREF = frozenset({
    "AbsTransform", "AffineTransform", "Beta", "Binomial", "CatTransform", "Cauchy", "Chi2", "ComposeTransform",
    "ContinuousBernoulli", "CorrCholeskyTransform", "CumulativeDistributionTransform", "Dirichlet", "ExpTransform",
    "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal",
    "IndependentTransform", "InverseGamma", "Kumaraswamy", "LKJCholesky", "LogNormal", "LogisticNormal",
    "LowRankMultivariateNormal", "LowerCholeskyTransform", "MixtureSameFamily", "NegativeBinomial", "Pareto",
    "Poisson", "PositiveDefiniteTransform", "PowerTransform", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "StackTransform",
    "StickBreakingTransform", "StudentT", "TanhTransform", "Transform", "TransformedDistribution", "VonMises",
    "Weibull", "Wishart", "biject_to", "identity_transform", "transform_to"})


def __getattr__(name):
    if name in _NOT_IN_NNREF:
        raise AttributeError(f"nnref does not implement torch.distributions.{name}: nnref has the distributions "
                             f"{', '.join(__all__[:-2])}; run this program on PyTorch")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Probability distributions: sampling with PyTorch's random streams, differentiable
``log_prob``/``entropy``/``rsample``, argument validation and ``kl_divergence``
(``torch.distributions``, ``torch/distributions/__init__.py``).

``Normal(mu, std).rsample()`` for a VAE, ``Categorical(probs).sample()`` and ``.log_prob()``
for REINFORCE: the same ``manual_seed`` gives PyTorch's numbers, because each ``sample`` makes
the same random calls (``normal``, ``multinomial``, ``bernoulli``, ``rand``, ``exponential_``)
in the same order.  ``Gamma``, ``Beta``, ``Dirichlet`` and ``Poisson`` run PyTorch's rejection
samplers draw for draw (the ``_samplers`` module).  The binomial family's sampler is not
reproduced, so ``Binomial`` and the distributions built on it are not here.
"""
from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import _add_kl_info, kl_divergence, register_kl
from .laplace import Laplace
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .uniform import Uniform

_add_kl_info()
del _add_kl_info

__all__ = [
    "Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "Gamma",
    "Independent", "Laplace", "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Poisson", "Uniform", "kl_divergence", "register_kl",
]

# PyTorch's distributions and transforms that nnref does not have: asking for one says so
# (the binomial sampler is not reproduced; see above).
_NOT_IN_NNREF = frozenset({
    "AbsTransform", "AffineTransform", "Binomial", "CatTransform", "Cauchy", "Chi2", "ComposeTransform",
    "ContinuousBernoulli", "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
    "FisherSnedecor", "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal",
    "IndependentTransform", "InverseGamma", "Kumaraswamy", "LKJCholesky", "LogNormal", "LogisticNormal",
    "LowRankMultivariateNormal", "LowerCholeskyTransform", "MixtureSameFamily", "NegativeBinomial", "Pareto",
    "PositiveDefiniteTransform", "PowerTransform", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "StackTransform",
    "StickBreakingTransform", "StudentT", "TanhTransform", "Transform", "TransformedDistribution", "VonMises",
    "Weibull", "Wishart", "biject_to", "identity_transform", "transform_to"})


def __getattr__(name):
    if name in _NOT_IN_NNREF:
        raise AttributeError(f"nnref does not implement torch.distributions.{name}: nnref has the distributions "
                             f"{', '.join(__all__[:-2])}; run this program on PyTorch")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

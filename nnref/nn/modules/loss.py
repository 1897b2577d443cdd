"""Loss modules (``torch/nn/modules/loss.py``): MSELoss, CrossEntropyLoss, NLLLoss, BCEWithLogitsLoss, ...

Each holds its options (``reduction``, class ``weight`` as a buffer, ...) and
calls the function of the same name in ``nn.functional``.
"""
from .. import functional as F
from ._shape_errors import naming_layer
from ...core._seams import install
from ...core.nn.modules import loss as _core_loss
from ...core.nn.modules.loss import CrossEntropyLoss, MSELoss, _Loss, _WeightedLoss

__all__ = ["MSELoss", "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss"]


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return F._legacy_reduction(size_average, reduce, reduction)
    return reduction


install(_core_loss, "legacy_reduction", _legacy_reduction)
# TorchScript's constants, as PyTorch declares them (the core's classes leave them out).
MSELoss.__constants__ = ["reduction"]
CrossEntropyLoss.__constants__ = ["ignore_index", "reduction", "label_smoothing"]


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of int64 class targets given log-probabilities (``LogSoftmax`` output)."""

    __constants__ = ["ignore_index", "reduction"]

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        with naming_layer(self, input, target):
            return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                              reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid and binary cross-entropy in one numerically stable step; ``pos_weight`` weighs
    the positive class."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        with naming_layer(self, input, target):
            return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                      pos_weight=self.pos_weight,
                                                      reduction=self.reduction)


__all__ += ["L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "KLDivLoss"]


class L1Loss(_Loss):
    """Mean (or sum, or elementwise) absolute error ``|input - target|``."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        with naming_layer(self, input, target):
            return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta`` (divided by ``beta``), absolute error above."""

    __constants__ = ["reduction"]

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        with naming_layer(self, input, target):
            return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, ``delta`` times the absolute error above."""

    __constants__ = ["reduction", "delta"]

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        with naming_layer(self, input, target):
            return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (after a ``Sigmoid``); prefer ``BCEWithLogitsLoss``."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        with naming_layer(self, input, target):
            return F.binary_cross_entropy(input, target, weight=self.weight,
                                          reduction=self.reduction)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of ``target`` from ``input`` (log-probabilities)."""

    __constants__ = ["reduction"]

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


__all__ += ["MarginRankingLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss", "TripletMarginLoss",
            "PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss"]


class MarginRankingLoss(_Loss):
    """``max(0, -target * (input1 - input2) + margin)``: learn to rank ``input1`` above ``input2`` (target 1)
    or below (-1)."""

    __constants__ = ["margin", "reduction"]

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-target * input))`` for targets of 1 or -1."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos(x1, x2)`` for similar pairs (target 1), ``max(0, cos(x1, x2) - margin)`` for dissimilar
    ones (-1)."""

    __constants__ = ["margin", "reduction"]

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``input`` for similar pairs (target 1), ``max(0, margin - input)`` for dissimilar ones (-1);
    ``input`` is a distance."""

    __constants__ = ["margin", "reduction"]

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``max(0, d(a, p) - d(a, n) + margin)``: the anchor nearer the positive than the negative by ``margin``."""

    __constants__ = ["margin", "p", "eps", "swap", "reduction"]

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Negative log-likelihood of counts under a Poisson distribution (rate ``exp(input)`` by default)."""

    __constants__ = ["log_input", "full", "eps", "reduction"]

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Negative log-likelihood of targets under normal distributions: the network predicts the mean
    (``input``) and the variance (``var``)."""

    __constants__ = ["full", "eps", "reduction"]

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Binary cross-entropy of every class's logit, averaged over the classes: multi-label classification."""

    __constants__ = ["reduction"]

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


__all__ += ["MultiMarginLoss", "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss"]


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss (``p`` 1 or 2): the target's score should beat every other by ``margin``."""

    __constants__ = ["p", "margin", "reduction"]

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge loss: each target class's score should beat every other class's by 1."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``max(0, d(a, p) - d(a, n) + margin)`` with a distance function of your choice (a ``PairwiseDistance``
    submodule by default)."""

    __constants__ = ["margin", "swap", "reduction"]

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        from .activation import PairwiseDistance
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap, reduction=self.reduction)


__all__ += ["NLLLoss2d"]


class NLLLoss2d(NLLLoss):
    """Deprecated name of ``NLLLoss`` (which takes ``(N, C, H, W)`` inputs itself); warns as PyTorch does."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        import warnings
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.", FutureWarning,
                      stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)

"""Loss modules (``torch/nn/modules/loss.py``): MSELoss, CrossEntropyLoss, NLLLoss, BCEWithLogitsLoss.

Each holds its options (``reduction``, class ``weight`` as a buffer, ...) and
calls the function of the same name in ``nn.functional``.
"""
from .. import functional as F
from ._shape_errors import naming_layer
from .module import Module

__all__ = ["MSELoss", "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss"]


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return F._legacy_reduction(size_average, reduce, reduction)
    return reduction


class _Loss(Module):
    reduction: str

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean (``reduction='mean'``), sum or elementwise squared error between input and target."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        with naming_layer(self, input, target):
            return F.mse_loss(input, target, reduction=self.reduction)


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


class CrossEntropyLoss(_WeightedLoss):
    """``LogSoftmax`` over the class dim followed by ``NLLLoss``, on raw scores (logits).

    Targets are int64 class indices ``(N)`` (or class probabilities shaped
    like the input); ``label_smoothing`` blends them with a uniform target.
    """

    __constants__ = ["ignore_index", "reduction", "label_smoothing"]

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        with naming_layer(self, input, target):
            return F.cross_entropy(input, target, weight=self.weight,
                                   ignore_index=self.ignore_index, reduction=self.reduction,
                                   label_smoothing=self.label_smoothing)


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

"""``nn.MSELoss`` and ``nn.CrossEntropyLoss`` (``torch/nn/modules/loss.py``): each holds its options
and calls the function of the same name in ``nn.functional``."""
from .. import functional as F
from .module import Module

__all__ = ["MSELoss", "CrossEntropyLoss"]
__seams__ = ("legacy_reduction",)

# Seam: size_average/reduce to reduction; nnref/nn/modules/loss.py puts PyTorch's (and warning)
def legacy_reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        raise NotImplementedError("size_average and reduce are deprecated: use reduction=")
    return reduction


class _Loss(Module):
    reduction: str

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean (``reduction='mean'``), sum or elementwise squared error between input and target."""

    def forward(self, input, target):
        with F.naming_layer(self, input, target):
            return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """``LogSoftmax`` over the class dim followed by ``NLLLoss``, on raw scores (logits)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        with F.naming_layer(self, input, target):
            return F.cross_entropy(input, target, weight=self.weight,
                                   ignore_index=self.ignore_index, reduction=self.reduction,
                                   label_smoothing=self.label_smoothing)

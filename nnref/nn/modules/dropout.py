"""``nn.Dropout`` (the teaching core's, ``nnref/core/nn/modules/dropout.py``) and its channel and
alpha forms (``torch/nn/modules/dropout.py``)."""
from .. import functional as F
from ...core.nn.modules.dropout import Dropout, _DropoutNd

__all__ = ["Dropout"]

# TorchScript's constants, as PyTorch declares them (the core's class leaves them out).
_DropoutNd.__constants__ = ["p", "inplace"]


__all__ += ["Dropout1d", "Dropout2d"]


class Dropout1d(_DropoutNd):
    """In training, zero whole channels of ``(N, C, L)`` or ``(C, L)`` with probability ``p``."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """In training, zero whole channels (feature maps) of ``(N, C, H, W)`` with probability ``p``."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


__all__ += ["Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class Dropout3d(_DropoutNd):
    """In training, zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` with probability ``p``."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout for self-normalising networks (``SELU``): dropped values go to SELU's saturation value and
    an affine map keeps the mean and variance; the identity in evaluation."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (dim 1)."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)

"""The layers of ``nnref.nn``, one file per family as in ``torch/nn/modules/``."""
from .activation import (ELU, GELU, GLU, CosineSimilarity, PairwiseDistance, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax,
                         Mish, ReLU, ReLU6, SiLU, Sigmoid, Softmax, Softmax2d, Softplus, Softsign, Tanh,
                         PReLU, SELU, CELU, Threshold, Hardshrink, Softshrink, Tanhshrink, Softmin, RReLU)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import (Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, LazyConv1d, LazyConv2d, LazyConvTranspose1d,
                   LazyConvTranspose2d)
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .flatten import Flatten, Unflatten, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .fold import Fold, Unfold
from .lazy import LazyModuleMixin
from .linear import Bilinear, Identity, LazyLinear, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss,
                   NLLLoss, SmoothL1Loss, CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, MarginRankingLoss,
                   MultiLabelSoftMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss, MultiLabelMarginLoss,
                   MultiMarginLoss, TripletMarginWithDistanceLoss, NLLLoss2d)
from .module import Module
from .instancenorm import (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LazyInstanceNorm1d, LazyInstanceNorm2d,
                           LazyInstanceNorm3d)
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
                      LPPool1d, LPPool2d, MaxPool1d, MaxPool2d, MaxUnpool1d, MaxUnpool2d)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Conv2d", "MaxPool2d", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
    "Dropout", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Embedding", "Flatten",
    "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss",
]
__all__ += ["Conv1d", "ConvTranspose2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d",
            "GELU", "LeakyReLU", "SiLU", "ELU", "Softplus", "Hardtanh", "ReLU6", "Softmax2d",
            "Dropout1d", "Dropout2d", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "KLDivLoss"]
__all__ += ["LazyLinear", "LazyConv2d"]
__all__ += ["LogSigmoid", "Softsign", "Mish", "Hardswish", "Hardsigmoid", "GLU", "Unflatten"]
__all__ += ["RNNBase", "RNN", "LSTM", "GRU"]
__all__ += ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "GroupNorm"]
__all__ += ["CosineSimilarity", "PairwiseDistance", "Upsample"]
__all__ += ["TransformerDecoderLayer", "TransformerDecoder", "Transformer"]
__all__ += ["PReLU", "SELU", "CELU", "Threshold", "Hardshrink", "Softshrink", "Tanhshrink", "Softmin"]
__all__ += ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d"]
__all__ += ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
            "PixelShuffle", "PixelUnshuffle"]
__all__ += ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "RMSNorm"]
__all__ += ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
__all__ += ["MarginRankingLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss", "TripletMarginLoss",
            "PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss"]
__all__ += ["Bilinear", "UpsamplingNearest2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "LocalResponseNorm"]
__all__ += ["EmbeddingBag"]
__all__ += ["ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
            "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]
__all__ += ["BatchNorm3d"]
__all__ += ["UpsamplingBilinear2d"]
__all__ += ["MultiMarginLoss", "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss", "LPPool1d", "LPPool2d"]
__all__ += ["Fold", "Unfold"]
__all__ += ["MaxUnpool1d", "MaxUnpool2d", "ChannelShuffle"]
__all__ += ["RReLU"]
__all__ += ["NLLLoss2d"]
__all__ += ["ConvTranspose1d", "LazyConvTranspose1d", "LazyConvTranspose2d"]
__all__ += ["LazyConv1d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
            "LazyInstanceNorm3d"]


from ..._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)

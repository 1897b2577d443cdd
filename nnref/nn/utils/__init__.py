"""``nnref.nn.utils``: gradient clipping, parameters as one vector, the padding and packing of
variable-length sequences in ``rnn``, parametrizations (``parametrize``, ``parametrizations``) and
the legacy hook-based weight and spectral normalisation (``torch/nn/utils/__init__.py``)."""
from . import parametrizations, parametrize, rnn
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_", "get_total_norm",
           "parameters_to_vector", "parametrizations", "parametrize", "remove_spectral_norm",
           "remove_weight_norm", "rnn", "spectral_norm", "vector_to_parameters", "weight_norm"]


from ..._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)

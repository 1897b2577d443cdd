"""``nnref.nn.utils``: gradient clipping, parameters as one vector, and the padding and packing of
variable-length sequences in ``rnn`` (``torch/nn/utils/__init__.py``)."""
from . import rnn
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_", "get_total_norm",
           "parameters_to_vector", "rnn", "vector_to_parameters"]


from ..._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)

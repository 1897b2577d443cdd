"""``nnref.nn.functional``: the stateless functions that layers call (``torch/nn/functional.py``)."""
from .._ops.linalg import addmm, matmul

__all__ = ["linear"]


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``, recorded with the same nodes PyTorch records.

    A 2-D input with a bias is one fused ``addmm`` (``AddmmBackward0``); other
    inputs with a bias are flattened to 2-D around it; without a bias it is a
    plain ``matmul``.
    """
    if bias is not None and weight.dim() == 2:
        if input.dim() == 2:
            return addmm(bias, input, weight.t())
        rows = input.reshape(-1, input.shape[-1]) if input.dim() else input
        out = addmm(bias, rows, weight.t())
        return out.view(*input.shape[:-1], weight.shape[0])
    out = matmul(input, weight.t())
    return out if bias is None else out + bias

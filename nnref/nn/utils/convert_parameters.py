"""A model's parameters as one vector and back: ``parameters_to_vector`` and
``vector_to_parameters`` (``torch/nn/utils/convert_parameters.py``)."""
from ..._ops.shape import cat
from ...core._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one vector, in order (a differentiable
    ``cat`` of views) (``torch/nn/utils/convert_parameters.py``)."""
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec, parameters):
    """Point each parameter's ``.data`` at its slice of ``vec`` (consecutive slices, in order)
    (``torch/nn/utils/convert_parameters.py``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _typename(obj):
    """``torch.typename`` of a non-tensor: its type's qualified name, without ``builtins.``."""
    module, qualname = type(obj).__module__, type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _check_param_device(param, old_param_device):
    """The first parameter's CUDA device index (-1 on the CPU); a later parameter elsewhere raises
    PyTorch's TypeError (``_check_param_device``)."""
    device = param.get_device() if param.device.type == "cuda" else -1
    if old_param_device is None:
        return device
    if device != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device

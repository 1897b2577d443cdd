"""What ``nn`` and ``optim`` take from the checkpoint code, kept below both.

``serialization`` sits above ``nn`` and ``optim`` (it saves and loads modules and optimizers), so
the two pieces they use themselves live here: the message that refuses to pickle a tensor, a
module or an optimizer (with the lines that save its values instead), and the converter that
``load_state_dict`` applies to a state_dict of PyTorch tensors.
"""
from collections import OrderedDict
import sys

import numpy as np

from .core import _dtype
from .core._device import CPU
from .core._tensor import Tensor
from .core.nn.modules.module import Module
from .core.optim.optimizer import Optimizer

__all__ = ["convert_torch_tensors"]

_DTYPES = {d.name: d for d in _dtype.ALL_DTYPES}


def _recipe(obj):
    """How to save and reload ``obj``'s values: the lines a user can copy."""
    kind = type(obj).__name__
    if isinstance(obj, Module):
        return (f"Save its values instead:\n    nnref.save(model.state_dict(), path)\nand reload "
                f"them into a model built as before:\n    model = {kind}(...)\n    "
                "model.load_state_dict(nnref.load(path))")
    if isinstance(obj, Optimizer):
        return (f"Save its values instead:\n    nnref.save(optimizer.state_dict(), path)\nand "
                f"reload them into an optimizer built as before:\n    optimizer = {kind}("
                "model.parameters(), ...)\n    optimizer.load_state_dict(nnref.load(path))\n"
                "(and the model's with nnref.save(model.state_dict(), path))")
    return ("Save it with\n    nnref.save(tensor, path)\nand reload it with\n    tensor = "
            "nnref.load(path)\n(a model's tensors: nnref.save(model.state_dict(), path), then "
            "model.load_state_dict(nnref.load(path)))")


def _not_picklable_message(obj):
    """Why ``pickle.dump`` of a tensor, module or optimizer fails, and what to do instead."""
    return (f"an nnref {type(obj).__name__} cannot be pickled: nnref keeps tensors out of "
            "pickles, whose loading can run any code, so this pickle could never be loaded. "
            + _recipe(obj))


def convert_torch_tensors(state_dict):
    """``state_dict`` with PyTorch tensors replaced by nnref tensors (exact, through numpy).

    Only when torch is already imported (nnref never imports it); other values
    pass through, and the result keeps the ``_metadata`` of the original.
    """
    torch = sys.modules.get("torch")
    if torch is None or not any(isinstance(v, torch.Tensor) for v in state_dict.values()):
        return state_dict
    converted = OrderedDict((k, _from_torch(torch, k, v) if isinstance(v, torch.Tensor) else v)
                            for k, v in state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        converted._metadata = metadata
    return converted


def _from_torch(torch, key, value):
    name = str(value.dtype).replace("torch.", "")
    if name not in _DTYPES:
        raise TypeError(f"'{key}' is a PyTorch tensor of dtype {value.dtype}, which nnref does "
                        f"not have; convert it first, e.g. state_dict['{key}'] = "
                        f"nnref.tensor(value.float().numpy())")
    value = value.detach().cpu()
    if value.dtype == torch.bfloat16:  # numpy has no bfloat16: move the bits
        array = value.contiguous().view(torch.int16).numpy().view(_DTYPES[name].numpy)
    else:
        array = value.numpy()
    return Tensor._make(np.array(array, copy=True), CPU)

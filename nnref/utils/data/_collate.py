"""``default_collate`` and ``default_convert`` (``torch/utils/data/_utils/collate.py``).

``default_collate`` turns a list of samples into one batch, recursively: tensors are
stacked along a new first dimension, numbers become a tensor (floats float64, ints
int64), numpy arrays become tensors, and tuples, lists, dicts and namedtuples are
collated field by field (a tuple of fields becomes a *list*, as in PyTorch).
"""
import collections.abc
import copy
import re

import numpy as np

from ..._creation import as_tensor, tensor
from ..._ops.shape import stack
from ...core._tensor import Tensor
from ...core import _dtype

__all__ = ["default_collate", "default_convert"]

_NP_STR_OBJ = re.compile("[SaUO]")
_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def default_convert(data):
    """What ``DataLoader(batch_size=None)`` applies to each sample: numpy arrays become tensors."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray) and _NP_STR_OBJ.search(data.dtype.str) is None:
        return as_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


def _stack_tensors(batch):
    try:
        return stack(batch, 0)
    except RuntimeError as exc:
        raise RuntimeError(f"{exc}. default_collate stacks the samples' tensors, so every sample "
                           "must have the same shape; pad them or pass a collate_fn") from None


def default_collate(batch):
    """Collate a list of samples into a batch (see the module's docstring)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack_tensors(batch)
    if isinstance(elem, np.ndarray):
        if _NP_STR_OBJ.search(elem.dtype.str) is not None:
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=_dtype.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(collated)
                return clone
            return type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = default_collate(samples)
                return clone
            return type(elem)([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(_ERR.format(type(elem)))

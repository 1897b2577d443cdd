"""Views and what an in-place change through one does to the graph (chapter 05 teaches it).

Mirrors ``rebase_history`` and ``VariableHooks::grad_fn`` of ``torch/csrc/autograd/variable.cpp``
and ``CopySlices``.  PyTorch places a view in its base by sizes, strides and an offset; here, by
``positions``: for each element of the view, the row-major index of the base element it aliases.
"""
import math

import numpy as np

from ._device import array_module_of
from ._tensor import Tensor, bind
from .autograd.grad_mode import _GradState
from .autograd.engine import _validate_outputs
from .autograd.graph import Node

__all__ = ["make_view", "view_positions", "CopySlices", "AsStridedBackward0", "check_inplace",
           "rebase_history", "refresh_view_history"]
__seams__ = ("take", "put_into_zeros", "view_meta_message")

# ``_view_meta`` values (PyTorch's ``CreationMeta``): why a view may not be changed in place.
NO_GRAD_MODE = "no_grad"
INFERENCE_MODE = "inference"
MULTI_OUTPUT = "multi_output"


# Seams: the mirror's indexing ops, which record a graph, as PyTorch's (nnref/_ops/indexing.py).
def take(tensor, positions):
    return tensor._make(tensor._data[positions].copy(), tensor._device)


def put_into_zeros(grad, shape, positions):
    data = array_module_of(grad._data).zeros(shape, dtype=grad._data.dtype)
    array_module_of(data).add.at(data, positions, grad._data)
    return grad._make(data, grad._device)


# Seam: PyTorch's three messages for a view's ``_view_meta`` (nnref/_ops/inplace.py).
def view_meta_message(tensor, meta):
    return (f"this view ({meta}) may not be modified in place with grad mode enabled: make it "
            "and change it in the same mode, or clone() it first")


def make_view(base, data):
    """A tensor over ``base``'s memory (``data``), sharing its counter; ``_base`` is the owner."""
    out = Tensor._make(data, base._device)
    out._version_counter = base._version_counter
    root = base._base
    out._base = base if root is None else root
    out._view_version = base._version_counter[0]
    out._inference = base._inference
    meta = base._view_meta
    if not _GradState.enabled and (base._requires_grad or base._grad_fn is not None):
        # Made without recording from a tensor that requires grad: PyTorch's view still requires
        # grad, as a leaf of its own (no grad_fn), and may not be changed in place under autograd.
        out._requires_grad = True
        if meta is None:
            meta = INFERENCE_MODE if _GradState.inference else NO_GRAD_MODE
    out._view_meta = meta
    return out


def _address(array):
    return array.ctypes.data if isinstance(array, np.ndarray) else array.data.ptr


def view_positions(base, view):
    """For each element of the array ``view`` (inside ``base``'s memory), the row-major index of
    the element of ``base`` at the same address: the view's geometry, as an index array."""
    xp = array_module_of(base)
    if not view.size:
        return xp.zeros(view.shape, dtype=np.int64)
    itemsize = base.itemsize
    # Byte offsets of base's lowest and highest element, relative to its first one.
    low = sum((n - 1) * s for n, s in zip(base.shape, base.strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(base.shape, base.strides) if s > 0)
    start = _address(base) + low
    # An int64 buffer laid out like the base's memory, one slot per element of base's dtype.
    memory = xp.full((high - low) // itemsize + 1, -1, dtype=np.int64)

    def placed(array):
        offset = (_address(array) - start) // itemsize
        strides = tuple(s // itemsize * memory.itemsize for s in array.strides)
        return xp.lib.stride_tricks.as_strided(memory[offset:], array.shape, strides)

    placed(base)[...] = xp.arange(base.size).reshape(base.shape)
    return placed(view).copy()


class AsStridedBackward0(Node):
    """The node of a view whose base changed in place: the view's gradient is added into a zero
    gradient of the base at the positions the view covers."""

    def __init__(self, base, positions):
        super().__init__((base,))
        self.positions = positions
        self.base_shape = base._data.shape

    def backward(self, grad):
        size = math.prod(self.base_shape)
        return (put_into_zeros(grad, (size,), self.positions).reshape(self.base_shape),)


class CopySlices(Node):
    """The base's node after an in-place op changed it through a view (PyTorch's ``CopySlices``).

    ``fn`` is the in-place op's own node (``MulBackward0`` for ``v.mul_(2)``), whose first input
    is the view's old value.  The base's gradient passes through outside the view; inside, it is
    replaced by ``fn``'s gradient for that input.  ``next_functions``: the base's old history,
    then ``fn``'s other inputs.  ``expanded`` (the view repeats an element): backward refuses, as
    PyTorch's ``grad_slice.copy_`` does.
    """

    def __init__(self, base, positions, fn, expanded=False):
        super().__init__((base,))
        self.expanded = expanded
        self.next_functions = self.next_functions + fn.next_functions[1:]
        self._input_metadata = self._input_metadata + fn._input_metadata[1:]
        self._no_edge = (None, 0) in self.next_functions
        self.positions, self.fn, self.base_shape = positions, fn, base._data.shape

    def name(self):
        return "torch::autograd::CopySlices"

    def backward(self, grad):
        flat = grad.reshape(-1)
        region = take(flat, self.positions)
        results = _validate_outputs(self.fn, self.fn.apply(region))
        if self.next_functions[0][0] is None:
            return (None,) + tuple(results[1:])
        written = results[0]
        if self.expanded and written is not None:
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.")
        base_grad = flat.clone()
        base_grad[Tensor._make(self.positions, grad._device)] = 0.0 if written is None else written
        return (base_grad.reshape(self.base_shape),) + tuple(results[1:])

    def release_variables(self):
        self.fn.release_variables()


def check_inplace(tensor, through_view=False):
    """Refuse an in-place op that autograd would record wrongly (PyTorch's ``check_inplace``);
    ``through_view``: the op writes through a view of ``tensor`` made on the way (``t[0] = 1``)."""
    base = tensor._base
    if base is not None:
        meta = tensor._view_meta
        if meta is not None:
            raise RuntimeError(view_meta_message(tensor, meta))
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
    if tensor._grad_fn is None and tensor._requires_grad:
        raise RuntimeError(("a view of a leaf Variable" if through_view else "a leaf Variable") +
                           " that requires grad is being used in an in-place operation.")


def rebase_history(tensor, node):
    """Make the in-place op's ``node`` the new history of ``tensor`` (or of its base); a
    ``retain_grad()`` follows the tensor, so ``.grad`` stays the gradient of its newest value."""
    base = tensor._base
    if base is None:
        _set_history(tensor, node)
        return
    positions = view_positions(base._data, tensor._data)
    data = tensor._data
    expanded = any(stride == 0 and size > 1 for stride, size in zip(data.strides, data.shape))
    _set_history(base, CopySlices(base, positions, node, expanded))
    _set_history(tensor, AsStridedBackward0(base, positions))
    tensor._view_version = tensor._version_counter[0]


def refresh_view_history(view):
    """A view's ``grad_fn`` after its memory changed in place: over the base's newest history."""
    base = view._base
    view._view_version = view._version_counter[0]
    if base._requires_grad or base._grad_fn is not None:
        _set_history(view, AsStridedBackward0(base, view_positions(base._data, view._data)))


def _set_history(tensor, node):
    old, old_nr = tensor._grad_fn, tensor._output_nr
    tensor._grad_fn, tensor._output_nr = node, 0
    if tensor._retains_grad and old is not None:
        del old._retains_grad_hooks[old_nr]
        node._set_retains_grad_hook(0, tensor)


bind(_refresh_view_grad_fn=refresh_view_history)

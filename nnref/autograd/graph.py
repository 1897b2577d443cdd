"""``nnref.autograd.graph`` (``torch/autograd/graph.py``): the graph's node types, as PyTorch
names them.  They live in the teaching core, ``nnref/core/autograd/graph.py``.

Here too is what makes ``AccumulateGrad`` adopt a gradient's buffer as PyTorch does
(``accumulate_grad.h``: the first gradient becomes ``.grad`` without a copy when nothing else
holds it), installed in the core's ``exclusively_owned`` seam, the row-major copy it keeps
otherwise (``clone_grad``), and PyTorch's words for a saved tensor changed in place, in its
``modified_message`` seam.
"""
import re
import sys

from .._layout import contiguous_format
from ..core._seams import install
from ..core.autograd import graph as _core_graph
from ..core.autograd.graph import AccumulateGrad, Node, gradient_edge

__all__ = ["Node", "AccumulateGrad", "gradient_edge"]


def _held_by_callee(obj):
    return sys.getrefcount(obj)


def _references_a_call_adds():
    """How many references to an argument one plain Python-to-Python call adds.

    One since Python 3.11, whose calls move the argument from the caller's stack
    into the callee's frame; two on 3.10, where both keep one.
    """
    probe = object()
    return _held_by_callee(probe) - sys.getrefcount(probe)


# References to a gradient the engine hands over, as seen inside _exclusively_owned: the
# engine's argument tuple, AccumulateGrad.apply's parameter, the call into
# _exclusively_owned and getrefcount's own argument. One more means someone else (a hook,
# another edge, the user) still holds it.
_ENGINE_REFERENCES = 3 + _references_a_call_adds()


def _exclusively_owned(grad):
    """True when nothing but this gradient can reach its memory, so a leaf may keep it.

    The memory may be a view (``W``'s gradient arrives as a transpose of a transpose) as long
    as the view covers the whole buffer row-major and nothing else holds the buffer.
    """
    if grad.grad_fn is not None or sys.getrefcount(grad) > _ENGINE_REFERENCES:
        return False
    # References to the array: the tensor's ``_data`` and getrefcount's argument.
    if not grad._data.flags.c_contiguous or sys.getrefcount(grad._data) != 2:
        return False
    owner = grad._data.base
    # References to the owner: the view's base, the local name ``owner`` and the argument, and
    # the ``_data`` of the tensor the view was made from, if that tensor is still alive.
    expected = 3
    base = grad._base
    if base is not None:
        # References to that tensor: the view's ``_base``, the local name and the argument.
        if sys.getrefcount(base) != 3 or base._data is not owner:
            return False
        expected = 4
    return owner is None or (owner.base is None and owner.nbytes == grad._data.nbytes
                             and sys.getrefcount(owner) == expected)


def _modified_message(saved, node):
    """PyTorch's words (``saved_variable.cpp``): an output is named after the node that saved
    it, an input after its grad_fn *now*, both without the ``Backward0`` suffix."""
    tensor = saved.tensor
    made_by, output_nr = (node, saved.output_nr) if saved.is_output else (tensor.grad_fn, tensor._output_nr)
    which = "" if made_by is None else (
        f", which is output {output_nr} of {re.sub(r'Backward[0-9]*$', '', made_by.name())},")
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{tensor.type()} {list(tensor.shape)}]{which} is at version "
            f"{tensor._version_counter[0]}; expected version {saved.version} instead. Hint: "
            "replace the in-place operation (the one ending in '_', or '+=') with its "
            "out-of-place form, or clone() the tensor before modifying it.")


def _clone_grad(grad):
    return grad.clone(memory_format=contiguous_format)


install(_core_graph, "exclusively_owned", _exclusively_owned)
install(_core_graph, "modified_message", _modified_message)
install(_core_graph, "clone_grad", _clone_grad)

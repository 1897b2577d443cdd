"""The in-place comparisons ``eq_``, ``ne_``, ``lt_``, ``le_``, ``gt_``, ``ge_`` (and ``greater_``,
``less_equal_``, ...): the truth values written into ``self`` as 1 and 0 of its own dtype.

Mirrors ``aten/src/ATen/native/BinaryOps.cpp``.  As in PyTorch, the result stays in the graph
with a flat gradient: ``GtBackward0`` (a number compared) or ``GtBackward1`` (a tensor), whose
inputs get zeros (``tools/autograd/derivatives.yaml``: ``zeros_like``).
"""
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import record, wrap
from . import arithmetic
from .inplace import apply_inplace

__all__ = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_"]


class _Flat(Node):
    def backward(self, grad):
        zeros = grad * 0
        return (zeros,) if len(self.next_functions) == 1 else (zeros, zeros)


_NODES = {}
for _op in ("Eq", "Ne", "Lt", "Le", "Gt", "Ge"):
    for _overload in ("0", "1"):
        _NODES[_op + _overload] = type(f"{_op}Backward{_overload}", (_Flat,), {"__module__": __name__})
        globals()[f"{_op}Backward{_overload}"] = _NODES[_op + _overload]


def _in_place(name):
    compare = getattr(arithmetic, name)

    def as_values(input, other):
        out = wrap(compare(input, other)._data.astype(input._dtype.numpy), input)
        if isinstance(other, Tensor):
            return record(out, _NODES[name.capitalize() + "1"], (input, other))
        return record(out, _NODES[name.capitalize() + "0"], (input,))

    def method(self, other):
        return apply_inplace(self, as_values, other)
    method.__name__ = name + "_"
    method.__doc__ = (f"``self.{name}(other)`` written into ``self`` as 1 and 0 of its dtype (``torch.Tensor.{name}_``, "
                      "``aten/src/ATen/native/BinaryOps.cpp``).")
    return method


eq_, ne_, lt_, le_, gt_, ge_ = (_in_place(n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))

"""``einsum``: sums of products named by an equation such as ``'bij,bjk->bik'``.

PyTorch contracts the operands pairwise with permutes, reshapes and ``bmm``
(``aten/src/ATen/native/Linear.cpp``), so its graph shows those ops.  nnref
computes the whole equation with one ``numpy.einsum`` (``optimize=True``) and
records one ``EinsumBackward`` node, whose gradient for each operand is again an
einsum (the output's gradient contracted with the other operands), so it can be
differentiated again.  The node's name is the one difference in the graph.
"""
import string

from ..core._device import array_module
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import check_one_device, record, result_type, wrap

__all__ = ["einsum"]


def _explicit(equation, operands):
    """The equation with ``...`` spelt out as letters and the output written, e.g. ``ij,jk->ik``."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation"
                           if len(terms) < len(operands) else
                           "einsum(): fewer operands were provided than specified in the equation")
    used = set(equation)
    spare = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in used]
    longest = 0
    for term, op in zip(terms, operands):
        if "..." in term:
            longest = max(longest, op._data.ndim - (len(term) - 3))
    ellipsis = "".join(spare[:longest])
    spelt = []
    for term, op in zip(terms, operands):
        if "..." in term:
            count = op._data.ndim - (len(term) - 3)
            term = term.replace("...", ellipsis[longest - count:])
        if len(term) != op._data.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term)}) "
                               f"does not match the number of dimensions ({op._data.ndim}) for "
                               f"operand {len(spelt)}{'' if '...' in equation else ' and no ellipsis was given'}")
        spelt.append(term)
    if arrow:
        output = output.replace("...", ellipsis)
    else:  # implicit output: the ellipsis, then the letters used once, in alphabetical order
        letters = "".join(spelt)
        output = ellipsis + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                           and c not in ellipsis))
    return spelt, output


class EinsumBackward(Node):
    """Each operand's gradient: the output gradient contracted with the other operands."""

    def backward(self, grad):
        operands = self.saved_tensors
        grads = []
        for k, (term, operand) in enumerate(zip(self.terms, operands)):
            if self.next_functions[k][0] is None:
                grads.append(None)
                continue
            if len(set(term)) != len(term):
                raise RuntimeError(f"nnref's einsum cannot differentiate an operand with a repeated "
                                   f"subscript ({term!r}, a diagonal); take torch.diagonal first")
            others = [t for i, t in enumerate(self.terms) if i != k]
            available = set(self.output).union(*others)
            kept = "".join(c for c in term if c in available)
            tensors = [grad] + [o for i, o in enumerate(operands) if i != k]
            g = einsum(",".join([self.output] + others) + "->" + kept, *tensors)
            # Subscripts only this operand had were summed away: broadcast the gradient back.
            for position, c in enumerate(term):
                if c not in available:
                    g = g.unsqueeze(position)
            grads.append(g.expand(operand.shape) if g.shape != operand.shape else g)
        return tuple(grads)


def einsum(equation=None, *operands):
    """Sum of products over the subscripts the output leaves out (``'ij,jk->ik'`` is matmul)."""
    if equation is None or not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least "
                         "one operand and its subscripts list")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not all(isinstance(op, Tensor) for op in operands):
        raise TypeError("einsum(): operands must be tensors")
    check_one_device(*operands)
    terms, output = _explicit(equation, operands)
    dtype = result_type(*operands)
    xp = array_module(operands[0]._device)
    arrays = [op._data.astype(dtype._accumulate, copy=False) for op in operands]
    try:
        data = xp.einsum(",".join(terms) + "->" + output, *arrays, optimize=len(arrays) > 2)
    except ValueError as exc:
        raise RuntimeError(f"einsum(): {exc}") from None
    out = wrap(xp.asarray(data).astype(dtype.numpy, copy=False), operands[0])
    return record(out, EinsumBackward, tuple(operands), saved=tuple(operands), terms=terms,
                  output=output)

"""Calling a node directly, ``grad_fn(grad)``: what it returns, compared with PyTorch.

PyTorch's nodes compute no gradient for an input without an edge (a number,
or a tensor that needs no grad) and hand back ``None`` there; a node with a
single input returns that gradient itself, not a 1-tuple.
"""
import pytest

import nnref
from core_helpers import assert_close

torch = pytest.importorskip("torch")


def described(result):
    """Tensors as (values, dtype name), None as None, tuples kept: comparable across libraries."""
    if isinstance(result, tuple):
        return tuple(described(r) for r in result)
    if result is None:
        return None
    return result.tolist(), str(result.dtype).rsplit(".", 1)[-1]


CALLS = {
    "add_number": lambda m, w: (m.add(w, 1), [1.0]),
    "number_first": lambda m, w: (m.add(m.tensor([1.0]), w), [1.0]),
    "mul_number": lambda m, w: (w * 3, [1.0]),
    "mul_constant_tensor": lambda m, w: (w * m.tensor([5.0]), [1.0]),
    "constant_minus_leaf": lambda m, w: (m.tensor([5.0]) - w, [1.0]),
    "div_by_number": lambda m, w: (w / 4, [1.0]),
    "where_number": lambda m, w: (m.where(w > 0, w, 2.0), [1.0]),
    "where_constant_first": lambda m, w: (m.where(w > 0, m.tensor([3.0]), w), [1.0]),
    "addmm_middle": lambda m, w: (m.addmm(m.ones(1, 1), w.view(1, 1), m.ones(1, 1)), [[1.0]]),
    "both_need_grad": lambda m, w: (w * (w + 1), [1.0]),
    "single_input": lambda m, w: (w.sum(), 1.0),
    "expand": lambda m, w: (w.expand(2), [1.0, 1.0]),
    "cat_keeps_all": lambda m, w: (m.cat([w, m.ones(1)]), [1.0, 1.0]),
    "stack_keeps_all": lambda m, w: (m.stack([w, m.ones(1)]), [[1.0], [1.0]]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_calling_a_node_returns_what_pytorch_returns(name):
    def run(m):
        w = m.tensor([1.5], requires_grad=True)
        out, grad = CALLS[name](m, w)
        return described(out.grad_fn(m.tensor(grad)))
    assert run(nnref) == run(torch)


def test_the_notes_example():
    """``b = torch.add(w, 1); b.grad_fn(torch.tensor([1.]))`` gives ``(tensor([1.]), None)``."""
    w = nnref.tensor([1.0], requires_grad=True)
    grads = nnref.add(w, 1).grad_fn(nnref.tensor([1.0]))
    assert len(grads) == 2 and grads[1] is None
    assert_close(grads[0], torch.tensor([1.0]))


def test_post_hook_sees_none_for_an_input_without_edge():
    def run(m):
        w = m.tensor([1.0], requires_grad=True)
        b = w + 1
        seen = []
        b.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(
            (described(grad_inputs), described(grad_outputs))))
        b.sum().backward()
        return seen, described(w.grad)
    assert run(nnref) == run(torch)


def test_accumulate_grad_called_directly():
    def run(m):
        w = m.tensor([1.0], requires_grad=True)
        accumulator = (w * 2).grad_fn.next_functions[0][0]
        return accumulator(m.tensor([2.0])), described(w.grad)
    assert run(nnref) == run(torch)

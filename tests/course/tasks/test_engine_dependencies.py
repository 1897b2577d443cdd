"""Task ``engine.dependencies``: ``_dependencies`` in ``nnref/autograd/engine.py`` (chapter 03, Backward).

``_dependencies(root)`` returns a dict: for every node reachable from
``root`` through ``next_functions`` (``root`` itself left out unless an edge
leads back to it), the number of edges that enter it.  An edge to ``None``
(an input that needs no gradient) is skipped.  The engine runs a node only
once all of its incoming edges delivered their gradient, which is how a
tensor used twice receives the sum of both gradients.  No recursion: a chain
of thousands of operations must work.
"""
import nnref
from nnref.core.autograd import engine
from task_helpers import require_pytorch


def counts_for(tensor):
    return engine._dependencies(engine._GraphRoot([(tensor.grad_fn, 0)]))


def test_counts_edges_into_each_node():
    x = nnref.tensor([2.0], requires_grad=True)
    y = x * x          # two edges from MulBackward0 into x's AccumulateGrad
    z = y + x          # and one more from AddBackward0
    counts = counts_for(z)
    accumulate_x = y.grad_fn.next_functions[0][0]
    assert counts[z.grad_fn] == 1
    assert counts[y.grad_fn] == 1
    assert counts[accumulate_x] == 3
    assert len(counts) == 3


def test_edges_to_none_are_skipped():
    x = nnref.tensor([2.0], requires_grad=True)
    y = x * nnref.tensor([3.0])  # the constant's edge is (None, 0)
    counts = counts_for(y)
    assert None not in counts and len(counts) == 2


def test_backward_sums_the_gradients_of_a_shared_tensor():
    x = nnref.tensor([1.0, 2.0], requires_grad=True)
    a, b = x * 2, x * 3
    (a * b).sum().backward()  # d/dx 6x^2 = 12x
    assert x.grad.tolist() == [12.0, 24.0]


def test_long_chain():
    x = nnref.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(3000):
        y = y + 1
    counts = counts_for(y)
    assert len(counts) == 3001 and set(counts.values()) == {1}
    y.backward()
    assert x.grad.item() == 1.0


def test_same_gradients_as_pytorch():
    torch = require_pytorch()

    def grads(lib):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        w = lib.tensor([1.5, 0.25, -0.5], requires_grad=True)
        h = (x * w).tanh()
        out = (h * h + h * x + w.exp() * h).sum()
        out.backward()
        return x.grad.tolist(), w.grad.tolist()

    for ours, theirs in zip(grads(nnref), grads(torch)):
        assert max(abs(a - b) for a, b in zip(ours, theirs)) < 1e-6

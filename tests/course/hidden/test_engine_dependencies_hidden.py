"""Hidden tests of ``engine.dependencies``: the student's counts against the reference."""
# ``expected`` is computed by the code under test here; the grader takes the right-hand side of
# every assert from its run of this file on the reference nnref (coursekit/checks.py).
import random

import nnref
from nnref.core.autograd import engine


def random_graph(seed):
    rng = random.Random(seed)
    leaves = [nnref.tensor([rng.uniform(0.5, 1.5)], requires_grad=rng.random() < 0.8) for _ in range(4)]
    values = list(leaves)
    for _ in range(30):
        a, b = rng.choice(values), rng.choice(values)
        values.append(rng.choice([a * b, a + b, a - b, (a * 0.5).tanh() + b]))
    return sum(values[-5:])


def numbered(dependencies, out):
    """The counts as data: each node by its place in a walk of the graph (not by the code under test)."""
    order, stack = {}, [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in order:
            continue
        order[id(node)] = len(order)
        stack.extend(function for function, _ in node.next_functions)
    return sorted((order.get(id(node), -1), type(node).__name__, count) for node, count in dependencies.items())


def test_counts_like_the_reference():
    for seed in range(20):
        out = random_graph(seed)
        if out.grad_fn is None:
            continue
        root = engine._GraphRoot([(out.grad_fn, 0)])
        expected = numbered(engine._dependencies(root), out)
        assert numbered(engine._dependencies(root), out) == expected, seed


def test_several_roots():
    x = nnref.tensor([1.0, 2.0], requires_grad=True)
    a, b = x * 3, x.exp()
    nnref.autograd.backward([a.sum(), b.sum()])
    assert max(abs(g - e) for g, e in zip(x.grad.tolist(), (3 + 2.718281828, 3 + 7.389056099))) < 1e-5


def test_autograd_grad_with_a_shared_input():
    x = nnref.tensor([2.0], requires_grad=True)
    y = x * x * x
    (g,) = nnref.autograd.grad(y, x, create_graph=True)
    (gg,) = nnref.autograd.grad(g, x)
    assert g.item() == 12.0 and gg.item() == 12.0

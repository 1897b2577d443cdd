"""AccumulateGrad may adopt a gradient buffer instead of copying it, but must never alias.

Adopting is what PyTorch does when nothing else can see the buffer; if two
leaves (or a leaf and the caller's ``gradient=``) ended up sharing memory, the
next in-place accumulation into one would silently change the other.
"""
import numpy as np
import pytest

import nnref


def shares(a, b):
    return a is b or np.shares_memory(a._data, b._data)


def leaves(*shapes):
    return [nnref.ones(*shape, requires_grad=True) for shape in shapes]


@pytest.mark.parametrize("build", [
    lambda x, y: x + y,
    lambda x, y: x - y * -1,
    lambda x, y: x.clone() + y.clone(),
    lambda x, y: (x + 0) + y,
    lambda x, y: nnref.cat([x, y]).view(2, 2).sum(0),
    lambda x, y: nnref.stack([x, y]).sum(0),
    lambda x, y: nnref.where(nnref.tensor([True, False]), x, y) + nnref.where(
        nnref.tensor([False, True]), x, y),
    lambda x, y: x.expand(2, 2).sum(0) + y,
    lambda x, y: x[:] + y[...],
], ids=["add", "sub", "clone", "chain", "cat", "stack", "where", "expand", "views"])
def test_two_leaves_never_share_a_gradient(build):
    x, y = leaves((2,), (2,))
    build(x, y).sum().backward()
    assert not shares(x.grad, y.grad)
    first_x, first_y = x.grad.tolist(), y.grad.tolist()
    build(x, y).sum().backward()  # accumulates in place into each .grad
    assert x.grad.tolist() == [2 * v for v in first_x]
    assert y.grad.tolist() == [2 * v for v in first_y]
    x.grad.zero_()
    assert y.grad.tolist() == [2 * v for v in first_y]


def test_leaf_used_twice_gets_its_own_buffer():
    (x,) = leaves((3,))
    (x + x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    (x + x).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0]


@pytest.mark.parametrize("build", [lambda x: x, lambda x: x + 0, lambda x: x.clone(),
                                   lambda x: x * 1, lambda x: x[...]],
                         ids=["leaf_itself", "add_zero", "clone", "mul_one", "alias"])
def test_user_gradient_never_becomes_the_leaf_grad(build):
    (x,) = leaves((2,))
    g = nnref.tensor([1.0, 2.0])
    build(x).backward(g)
    assert x.grad.tolist() == [1.0, 2.0]
    assert not shares(x.grad, g)
    (x * 3).sum().backward()  # in-place accumulation must not write into g
    assert g.tolist() == [1.0, 2.0]
    g.mul_(10)  # and changing g must not change x.grad
    assert x.grad.tolist() == [4.0, 5.0]


def test_autograd_backward_with_grad_tensors_does_not_alias():
    x, y = leaves((2,), (2,))
    g = nnref.tensor([1.0, 1.0])
    nnref.autograd.backward([x, y], [g, g])
    assert not shares(x.grad, g) and not shares(y.grad, g) and not shares(x.grad, y.grad)
    x.grad.add_(1)
    assert g.tolist() == [1.0, 1.0] and y.grad.tolist() == [1.0, 1.0]


def test_hook_that_keeps_the_gradient_does_not_alias_grad():
    (x,) = leaves((2,))
    kept = []
    x.register_hook(lambda g: kept.append(g))
    (x + 0).sum().backward()
    assert not shares(kept[0], x.grad)
    (x + 0).sum().backward()
    assert kept[0].tolist() == [1.0, 1.0] and x.grad.tolist() == [2.0, 2.0]


def test_retained_grad_does_not_alias_leaf_grad():
    x, w = leaves((2,), (2,))
    y = x * 1
    y.retain_grad()
    (y + w).sum().backward()
    assert not shares(y.grad, w.grad) and not shares(y.grad, x.grad)
    w.grad.add_(5)
    assert y.grad.tolist() == [1.0, 1.0]


def test_adopted_gradient_is_writable_and_owned():
    """Gradients that arrive as broadcast (read-only) views are copied, so .grad can be updated."""
    x, y = leaves((2, 2), (2, 2))
    (x.sum() + y.t().sum()).backward()
    for t in (x, y):
        assert t.grad._data.flags.writeable and t.grad._data.flags.owndata
        t.grad.add_(1)
    assert x.grad.tolist() == [[2.0, 2.0]] * 2


def test_existing_grad_object_is_updated_in_place():
    """As in PyTorch: a second backward adds into the same .grad tensor (when not create_graph)."""
    (x,) = leaves((2,))
    x.sum().backward()
    first = x.grad
    (x * 2).sum().backward()
    assert x.grad is first and first.tolist() == [3.0, 3.0]


def test_create_graph_accumulation_is_out_of_place():
    (x,) = leaves((2,))
    with pytest.warns(UserWarning, match="create_graph=True will create a reference cycle"):
        (x * x).sum().backward(create_graph=True)  # PyTorch warns here too
    first = x.grad
    with pytest.warns(UserWarning):
        (x * x).sum().backward(create_graph=True)
    assert x.grad is not first and first.tolist() == [2.0, 2.0] and x.grad.tolist() == [4.0, 4.0]


@pytest.mark.parametrize("batch", [3, 1])
def test_linear_layer_gradients_are_adopted_without_copies(monkeypatch, batch):
    """A parameter's first gradient is the engine's own fresh buffer: kept, not cloned.

    This is PyTorch's "steal the gradient" optimisation; without it every training step pays
    one extra copy of every weight.  The weight's gradient also comes out row-major like the
    weight itself, so the optimizer reads it contiguously.  At batch 1 the weight's gradient
    is an outer product, which takes its own route (``linalg._outer``).
    """
    from nnref import nn
    clones = []
    original = nnref.Tensor.clone
    monkeypatch.setattr(nnref.Tensor, "clone",
                        lambda self, **kw: clones.append(tuple(self.shape)) or original(self, **kw))
    layer = nn.Linear(6, 4)
    layer(nnref.ones(batch, 6)).sum().backward()
    assert clones == []
    assert layer.weight.grad._data.flags.c_contiguous
    assert np.array_equal(layer.weight.grad.numpy(), np.full((4, 6), batch, dtype=np.float32))
    assert np.array_equal(layer.bias.grad.numpy(), np.full(4, batch, dtype=np.float32))


@pytest.mark.parametrize("keep", ["leaf hook", "node pre-hook"])
def test_batch_one_weight_gradient_kept_by_a_hook_is_copied(keep):
    """At batch 1 a weight's gradient arrives as a view (a transpose of the outer product's
    transpose), which the accumulator adopts by dropping the view's base. When a hook still
    holds that gradient, it must be copied instead, and what the hook kept must not change."""
    from nnref import nn
    layer = nn.Linear(3, 2)
    out = layer(nnref.ones(1, 3))
    kept = []
    if keep == "leaf hook":
        layer.weight.register_hook(lambda g: kept.append(g))
    else:  # TBackward0, between addmm and the weight, sees W.t()'s gradient first
        out.grad_fn.next_functions[2][0].register_prehook(lambda grads: kept.append(grads[0]))
    out.sum().backward()
    before = kept[0].tolist()
    assert not shares(kept[0], layer.weight.grad)
    layer.weight.grad.add_(5)
    assert kept[0].tolist() == before

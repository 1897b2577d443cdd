"""The backward engine: ordering, summing, freeing, routing, hooks and grad modes.

Most tests run the same function with both libraries (``run(m)``) and
compare what it returns; each also states the expected PyTorch result so it
means something without PyTorch.
"""
import sys

import numpy as np
import pytest

import nnref
from core_helpers import assert_close, assert_same, both

try:
    import torch
except ImportError:
    torch = None

# -- long chains -----------------------------------------------------------------------------------
def test_chain_of_10000_ops_backpropagates_without_recursion():
    limit = sys.getrecursionlimit()
    x = nnref.tensor([1.0], dtype=nnref.float64, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    sys.setrecursionlimit(min(limit, 2000))  # the engine must not depend on a deep Python stack
    try:
        y.backward()
    finally:
        sys.setrecursionlimit(limit)
    np.testing.assert_allclose(x.grad._data, [1.0001 ** 10_000], rtol=1e-9)
    del y  # freeing a 10,000-node graph must not overflow the stack either


def test_long_chain_with_create_graph_and_retain_graph():
    x = nnref.tensor(0.5, dtype=nnref.float64, requires_grad=True)
    y = x
    for _ in range(1_000):
        y = (y * 0.5).tanh() + x * 1e-3
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    (g,) = nnref.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(x.grad.item(), 2 * g.item())
    (h,) = nnref.autograd.grad(g, x)  # frees the graph, forward nodes included
    assert np.isfinite(h.item())


# -- summing before passing on ---------------------------------------------------------------------
def test_non_leaf_used_several_times_gets_one_summed_gradient():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        calls = []
        y.register_hook(lambda g: calls.append(g.clone()))
        (y * 3 + y * 4 + y).sum().backward()
        return calls, x.grad
    calls, grad = both(run)
    assert len(calls) == 1  # one call, with 3 + 4 + 1 = 8, like PyTorch
    np.testing.assert_allclose(calls[0]._data, [8.0, 8.0])
    np.testing.assert_allclose(grad._data, [16.0, 16.0])


def test_diamond_runs_every_node_once_in_pytorch_order():
    """Node execution order (recorded with pre-hooks) equals PyTorch's."""
    def run(m):
        x = m.tensor([0.5, -1.0], requires_grad=True)
        w = m.tensor([2.0, 3.0], requires_grad=True)
        a = x * w
        b = a.exp()
        c = a.tanh()
        d = (b + c) * a
        out = d.sum() + (x * 2).sum()
        order = []
        seen, stack = set(), [out.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            node.register_prehook(lambda grads, node=node: order.append(type(node).__name__))
            stack.extend(child for child, _ in node.next_functions)
        out.backward()
        return order, x.grad, w.grad
    order, _, _ = both(run)
    assert order.count("MulBackward0") == 3 and order.count("AccumulateGrad") == 2


# -- freeing saved tensors -------------------------------------------------------------------------
def test_saved_tensors_are_freed_after_backward():
    x = nnref.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=r"retain_graph=True"):
        y.backward()
    with pytest.raises(RuntimeError, match="freed"):
        y.grad_fn.next_functions[0][0].saved_tensors  # noqa: B018


def test_retain_graph_allows_a_second_backward():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        first = x.grad.clone()
        y.backward()
        return first, x.grad
    first, total = both(run)
    np.testing.assert_allclose(total._data, 2 * first._data)


def test_nodes_without_saved_tensors_can_run_again():
    """PyTorch only refuses when a freed saved tensor is needed: x + 1 and sum save none.

    ``x * 2`` does save something: PyTorch keeps the number 2 as a (wrapped) tensor,
    so that graph cannot be run twice, in either library.
    """
    def run(m):
        x = m.ones(2, requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        z = (x * 2).sum()
        z.backward()
        with pytest.raises(RuntimeError, match="retain_graph=True"):
            z.backward()
        return x.grad
    assert both(run).tolist() == [4.0, 4.0]


def test_autograd_grad_also_frees_unless_retained():
    x = nnref.tensor([1.0], requires_grad=True)
    y = x.exp()
    nnref.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        nnref.autograd.grad(y, x)


# -- shapes and dtypes of gradients ----------------------------------------------------------------
def test_broadcast_gradients_are_reduced_to_operand_shape_and_dtype():
    def run(m):
        a = m.ones(3, 1, requires_grad=True)
        b = m.ones(4, dtype=m.float64, requires_grad=True)
        c = m.tensor(2.0, requires_grad=True)
        (a * b * c).sum().backward()
        return a.grad, b.grad, c.grad
    a, b, c = both(run)
    assert a.shape == (3, 1) and a.dtype is nnref.float32
    assert b.shape == (4,) and b.dtype is nnref.float64
    assert c.shape == () and c.item() == 12.0
    np.testing.assert_allclose(a._data, [[8.0]] * 3)


def test_gradient_argument_gives_vector_jacobian_product():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        (x * x).backward(m.tensor([1.0, 3.0]))
        return x.grad
    assert both(run).tolist() == [2.0, 12.0]


def test_gradients_accumulate_across_backward_calls():
    def run(m):
        x = m.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        return x.grad
    assert both(run).tolist() == [5.0, 5.0]


# -- routing: inputs= and autograd.grad ------------------------------------------------------------
def test_backward_inputs_only_accumulates_into_those():
    def run(m):
        x = m.ones(2, requires_grad=True)
        w = m.ones(2, requires_grad=True)
        (x * w * 3).sum().backward(inputs=[w])
        return x.grad, w.grad
    xg, wg = both(run)
    assert xg is None and wg.tolist() == [3.0, 3.0]


def test_backward_inputs_non_leaf_gets_grad_and_retains_it():
    def run(m):
        x = m.ones(2, requires_grad=True)
        h = x * 2
        (h * 5).sum().backward(inputs=[h])
        return h.grad, h.retains_grad, x.grad
    hg, retains, xg = both(run)
    assert hg.tolist() == [5.0, 5.0] and retains and xg is None


def test_autograd_grad_returns_without_touching_grad_fields():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        w = m.tensor([3.0, 4.0], requires_grad=True)
        gx, gw = m.autograd.grad((x * w).sum(), (x, w))
        return gx, gw, x.grad, w.grad
    gx, gw, xg, wg = both(run)
    assert gx.tolist() == [3.0, 4.0] and gw.tolist() == [1.0, 2.0] and xg is None and wg is None


def test_autograd_grad_allow_unused_and_materialize():
    def run(m):
        x, w = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
        unused = m.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
        zeros = m.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)
        return unused, zeros
    unused, zeros = both(run)
    assert unused[1] is None and zeros[1].tolist() == [0.0, 0.0]
    x, w = nnref.ones(2, requires_grad=True), nnref.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        nnref.autograd.grad((x * 2).sum(), [x, w])


def test_autograd_grad_of_non_leaf_input():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        h = x * x
        (g,) = m.autograd.grad((h * 3).sum(), h)
        return g, x.grad
    g, xg = both(run)
    assert g.tolist() == [3.0, 3.0] and xg is None


def test_grad_fn_can_be_called_directly():
    def run(m):
        x = m.ones(2, requires_grad=True)
        y = x * 3
        return y.grad_fn(m.ones(2))
    result = both(run)
    assert result[0].tolist() == [3.0, 3.0] and result[1] is None


# -- hooks -----------------------------------------------------------------------------------------
def test_tensor_hooks_order_replacement_and_removal():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        log = []
        y.register_hook(lambda g: log.append(("first", g.tolist())) or g + 1)
        h2 = y.register_hook(lambda g: log.append(("second", g.tolist())))
        y.retain_grad()  # registered before the third hook, yet runs after every hook
        y.register_hook(lambda g: log.append(("third", g.tolist())) or g * 10)
        y.sum().backward(retain_graph=True)
        first = (list(log), y.grad.clone(), x.grad.clone())
        h2.remove()
        log.clear()
        x.grad = None
        y.grad = None
        y.sum().backward()
        return first, (log, y.grad, x.grad)
    (log1, yg1, xg1), (log2, yg2, xg2) = both(run)
    assert [name for name, _ in log1] == ["first", "second", "third"]
    assert log1[1][1] == [2.0, 2.0]           # second sees what first returned
    assert yg1.tolist() == [20.0, 20.0]       # retain_grad sees the final hooked value
    assert xg1.tolist() == [60.0, 60.0]
    assert [name for name, _ in log2] == ["first", "third"]


def test_hooks_on_leaves_run_before_accumulation():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g.tolist()) or g * 100)
        (x * 2).sum().backward()
        return seen, x.grad
    seen, grad = both(run)
    assert seen == [[2.0, 2.0]] and grad.tolist() == [200.0, 200.0]


def test_hook_handle_is_a_context_manager():
    x = nnref.tensor([1.0], requires_grad=True)
    calls = []
    with x.register_hook(lambda g: calls.append(1)):
        (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert calls == [1]


def test_node_prehook_and_hook():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y.exp().sum()
        log = []
        y.grad_fn.register_prehook(lambda go: log.append(("pre", [g.tolist() for g in go])))
        y.grad_fn.register_hook(lambda gi, go: log.append(
            ("post", [None if g is None else g.tolist() for g in gi], [g.tolist() for g in go])))
        y.register_hook(lambda g: log.append(("tensor", g.tolist())))
        z.backward()
        return [entry[0] for entry in log], x.grad
    order, grad = both(run)
    assert order == ["tensor", "pre", "post"]


def test_node_hooks_can_replace_gradients():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
        y.sum().backward()
        return x.grad
    assert both(run).tolist() == [21.0, 21.0]


def test_hook_on_accumulate_grad_node():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        log = []
        acc.register_prehook(lambda go: log.append([g.tolist() for g in go]))
        y.sum().backward()
        return log, x.grad
    log, grad = both(run)
    assert log == [[[2.0, 2.0]]]


# -- grad modes ------------------------------------------------------------------------------------
def test_no_grad_enable_grad_set_grad_enabled():
    def run(m):
        x = m.ones(2, requires_grad=True)
        facts = []
        with m.no_grad():
            facts.append(((x * 2).requires_grad, m.is_grad_enabled()))
            with m.enable_grad():
                facts.append(((x * 2).requires_grad, m.is_grad_enabled()))
            facts.append(m.is_grad_enabled())
        facts.append(m.is_grad_enabled())
        m.set_grad_enabled(False)  # takes effect at once, as a plain call
        facts.append(((x * 2).requires_grad, m.is_grad_enabled()))
        m.set_grad_enabled(True)
        with m.set_grad_enabled(False):
            facts.append((x * 2).requires_grad)
        facts.append(m.is_grad_enabled())
        try:
            with m.no_grad():
                raise ValueError
        except ValueError:
            pass
        facts.append(m.is_grad_enabled())  # restored after an exception
        return facts
    assert both(run) == [(False, False), (True, True), False, True, (False, False), False, True, True]


def test_grad_mode_decorators():
    def run(m):
        x = m.ones(2, requires_grad=True)

        @m.no_grad()
        def called(a):
            return a * 2

        @m.no_grad
        def bare(a):
            return a * 2

        @m.enable_grad()
        def enabled(a):
            return a * 2

        @m.set_grad_enabled(False)
        def disabled(a):
            return a * 2

        facts = [called(x).requires_grad, bare(x).requires_grad, disabled(x).requires_grad,
                 m.is_grad_enabled(), called.__name__]
        with m.no_grad():
            facts.append(enabled(x).requires_grad)
            facts.append(m.is_grad_enabled())
        return facts
    assert both(run) == [False, False, False, True, "called", True, False]


# -- detach and requires_grad ----------------------------------------------------------------------
def test_detach_shares_memory_and_version():
    def run(m):
        x = m.ones(2, requires_grad=True)
        d = x.detach()
        facts = [d.requires_grad, d.is_leaf, d.grad_fn is None]
        d.add_(1)  # allowed: d does not require grad; x sees it
        facts += [x.tolist(), x._version]
        y = x * 2
        y.detach_()
        facts += [y.requires_grad, y.grad_fn is None, y.is_leaf]
        return facts
    assert both(run) == [False, True, True, [2.0, 2.0], 1, False, True, True]


def test_data_is_invisible_to_version_check():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        x.data.mul_(2)  # PyTorch's escape hatch: no version bump, so no error (and a wrong grad)
        y.sum().backward()
        return x.grad, x._version
    grad, version = both(run)
    assert grad.tolist() == [4.0, 8.0] and version == 0


def test_data_setter_replaces_values():
    def run(m):
        x = m.ones(2, requires_grad=True)
        x.data = m.tensor([5.0, 6.0])
        return x, x.requires_grad
    value, flag = both(run)
    assert value.tolist() == [5.0, 6.0] and flag


def test_requires_grad_propagates_through_ops():
    def run(m):
        a = m.ones(2)
        b = m.ones(2, requires_grad=True)
        return [(a * 2).requires_grad, (a * b).requires_grad, (b > 0).requires_grad,
                (b.detach() + a).requires_grad, b.sum().requires_grad, a.requires_grad_().is_leaf]
    assert both(run) == [False, True, False, False, True, True]


def test_grad_is_populated_only_for_leaves_and_warns_for_non_leaves():
    x = nnref.ones(2, requires_grad=True)
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="retain_grad"):
        assert y.grad is None
    assert x.grad.tolist() == [2.0, 2.0]


def test_assigned_grad_is_used_for_accumulation():
    def run(m):
        x = m.ones(2, requires_grad=True)
        x.grad = m.tensor([10.0, 20.0])
        (x * 2).sum().backward()
        return x.grad
    assert both(run).tolist() == [12.0, 22.0]


def test_create_graph_gradients_match():
    def run(m):
        x = m.tensor([3.0], requires_grad=True)
        (g,) = m.autograd.grad(x ** 2, x, create_graph=True)
        return g, g.requires_grad, repr(g)
    g, requires, text = both(run)
    assert requires and g.tolist() == [6.0]


def test_backward_of_multiple_roots():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        a, b = (x * 2).sum(), (x * x).sum()
        m.autograd.backward([a, b])
        return x.grad
    assert both(run).tolist() == [4.0, 6.0]


def test_float32_values_and_gradients_close_to_torch():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)

    def run(m):
        x = m.tensor(data, requires_grad=True)
        y = (m.softmax(x @ x.t(), -1).log() * x.sum(1, keepdim=True).tanh()).mean()
        y.backward()
        return y, x.grad
    (y, g), (ty, tg) = run(nnref), run(torch)
    assert_close(y, ty, rtol=1e-5, atol=1e-6)
    assert_close(g, tg, rtol=1e-4, atol=1e-6)


def test_autograd_grad_with_the_same_input_twice():
    def run(m):
        x = m.ones(2, requires_grad=True)
        return m.autograd.grad((x * 2).sum(), [x, x])
    gx, gx_again = both(run)
    assert gx.tolist() == gx_again.tolist() == [2.0, 2.0]


def test_root_gradient_rules():
    def run(m):
        x = m.ones(2, requires_grad=True)
        (x * 2).backward(m.ones(2, dtype=m.float64))  # converted to the output's dtype
        dtype = str(x.grad.dtype).rsplit(".", 1)[-1]
        (x * 2).sum().backward(m.tensor(2.0))
        (g,) = m.autograd.grad((x * 2).sum(), x, grad_outputs=m.tensor(3.0))
        (h,) = m.autograd.grad([(x * 2).sum(), (x * 3).sum()], x)
        return dtype, x.grad, g, h
    dtype, grad, g, h = both(run)
    assert dtype == "float32" and grad.tolist() == [6.0, 6.0] and h.tolist() == [5.0, 5.0]


def test_node_post_hook_sees_gradients_reduced_to_input_shapes():
    """validate_outputs (sum to shape, cast to dtype) runs before a node's post-hooks."""
    def run(m):
        x = m.ones(3, 2, requires_grad=True)
        b = m.ones(2, dtype=m.float64, requires_grad=True)
        y = x + b
        seen = []
        y.grad_fn.register_hook(lambda gi, go: seen.append(
            [(list(g.shape), str(g.dtype).rsplit(".", 1)[-1]) for g in gi]))
        y.sum().backward()
        return seen
    assert both(run) == [[([3, 2], "float32"), ([2], "float64")]]


def test_node_post_hook_gets_none_for_outputs_without_gradient():
    def run(m):
        x = m.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
        parts = x.unbind(0)
        seen = []
        parts[0].grad_fn.register_hook(lambda gi, go: seen.append([g is None for g in go]))
        (parts[1] * 2).sum().backward()
        return seen, x.grad
    seen, grad = both(run)
    assert seen == [[True, False]] and grad.tolist() == [[0.0, 0.0], [2.0, 2.0]]


def test_wrong_number_of_gradients_from_a_node_is_an_error():
    x = nnref.ones(2, requires_grad=True)
    y = x.exp()
    y.grad_fn.backward = lambda grad: (grad, grad)  # one input, two gradients
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        y.sum().backward()


def test_domain_edges_match_torch_without_warnings():
    """0 ** 0, 0 ** x, log(0), 1/0 ...: PyTorch's values and gradients, and no numpy warnings."""
    import warnings

    def run(m):
        results = []
        for f, data in [
            (lambda x: x ** x, [0.0, 2.0]), (lambda x: x ** 0, [0.0, 2.0]),
            (lambda x: 0 ** x, [0.0, 2.0, -1.0]), (lambda x: 2 ** x, [0.0, 2.0]),
            (lambda x: x ** -1, [0.0, 2.0]), (lambda x: x ** 0.5, [0.0, 1.0]),
            (lambda x: x.sqrt(), [0.0, 1.0]), (lambda x: x.log(), [0.0, 1.0]),
            (lambda x: x / x, [0.0, 2.0]), (lambda x: 1 / x, [0.0, -2.0]),
            (lambda x: x.softmax(0), [float("inf"), 1.0]),
            (lambda x: x.log_softmax(0), [-1e30, 1.0, 2.0]),
            (lambda x: x ** m.tensor([0.0, 3.0]), [0.0, 2.0]),
            (lambda x: m.tensor([0.0, 2.0]) ** x, [0.0, 3.0]),
            (lambda x: x ** m.tensor([2.0, 3.0]), [-1.0, 2.0]),
        ]:
            x = m.tensor(data, requires_grad=True)
            y = f(x)
            y.sum().backward()
            results.append((y, x.grad))
        return results
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any numpy RuntimeWarning fails the test
        ours = run(nnref)
    if torch is not None:
        assert_same(ours, run(torch))


def test_ready_leaves_run_in_the_same_order_as_pytorch_every_time():
    """Accumulators all share one priority; ties resolve first-in first-out, like PyTorch's queue."""
    torch = pytest.importorskip("torch")

    def order(lib):
        log = []
        w, x = lib.tensor([1.0], requires_grad=True), lib.tensor([2.0], requires_grad=True)
        w.register_hook(lambda g: log.append("w"))
        x.register_hook(lambda g: log.append("x"))
        ((w + x) * (w + 1)).backward()
        p, q, r = (lib.tensor([1.0], requires_grad=True) for _ in range(3))
        for name, t in zip("pqr", (p, q, r)):
            t.register_hook(lambda g, name=name: log.append(name))
        (p * q * r).backward()
        return log

    expected = order(torch)
    assert all(order(nnref) == expected for _ in range(50))

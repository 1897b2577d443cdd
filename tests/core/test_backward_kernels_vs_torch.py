"""The single-op backward kernels (ReLU's ``threshold_backward``, softmax's and log_softmax's
``_*_backward_data``) and the matrix-product layouts, against PyTorch.

Each kernel replaced a chain of tensor ops, so besides the values this checks what the chain
could not give: PyTorch's node names in a double-backward graph, its gradients with respect to
both of the kernel's inputs, and its select semantics at infinite and NaN gradients.
"""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")


def _both(fn):
    return fn(torch), fn(nnref)


def _assert_same(expected, actual, atol=1e-6):
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-5,
                               atol=atol, equal_nan=True)


@pytest.mark.parametrize("grad", [[INF, INF, 2.0, NAN, NAN, -INF], [1.0, -1.0, 0.5, 2.0, 3.0, 4.0]])
def test_relu_backward_selects_like_pytorch(grad):
    """A dropped element gets 0 even for an infinite or NaN gradient; a NaN input passes it."""
    def run(fw):
        x = fw.tensor([1.0, -2.0, NAN, 0.0, 3.0, -0.0], requires_grad=True)
        return fw.autograd.grad(fw.relu(x), x, fw.tensor(grad))[0]
    expected, actual = _both(run)
    _assert_same(expected, actual)


def test_relu_backward_keeps_large_arrays_exact():
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((64, 512)).astype(np.float32), rng.standard_normal((64, 512)).astype(np.float32)
    g[::7, ::5] = INF

    def run(fw):
        t = fw.tensor(x, requires_grad=True)
        return fw.autograd.grad(fw.relu(t), t, fw.tensor(g))[0]
    expected, actual = _both(run)
    _assert_same(expected, actual, atol=0)


def _double_backward(fw, op, dtype):
    gen = np.random.default_rng(1)
    x = fw.tensor(gen.standard_normal((3, 4)), dtype=dtype, requires_grad=True)
    v = fw.tensor(gen.standard_normal((3, 4)), dtype=dtype, requires_grad=True)
    y = op(fw, x)
    (g,) = fw.autograd.grad(y, x, v, create_graph=True)
    names = (g.grad_fn.name(), [None if n is None else n.name() for n, _ in g.grad_fn.next_functions])
    w = fw.tensor(gen.standard_normal((3, 4)), dtype=dtype)
    second = fw.autograd.grad((g * w).sum(), (x, v), allow_unused=True)
    return g, names, second


OPS = {
    "relu": lambda fw, x: fw.relu(x),
    "softmax": lambda fw, x: fw.softmax(x, 1),
    "log_softmax": lambda fw, x: fw.log_softmax(x, 0),
    "F.threshold": lambda fw, x: fw.nn.functional.threshold(x, 0.1, 0.0),
}


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_double_backward_nodes_and_values_match_pytorch(name, dtype):
    (tg, tnames, tsecond), (ng, nnames, nsecond) = (
        _double_backward(fw, OPS[name], getattr(fw, dtype)) for fw in (torch, nnref))
    assert nnames == tnames
    _assert_same(tg, ng)
    for expected, actual in zip(tsecond, nsecond):
        assert (actual is None) == (expected is None)
        if expected is not None:
            _assert_same(expected, actual)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_half_precision_backward_rounds_once_like_pytorch(op):
    """16-bit gradients are computed in float32 and rounded once at the end, as PyTorch's kernel."""
    values = np.array([[0.5, -1.25, 0.33], [1.5, 0.2, -0.7]], dtype=np.float32)

    def run(fw):
        # From the same float16 log-probabilities, so only the backward kernels are compared.
        y = fw.tensor(values, dtype=fw.float16, requires_grad=True)
        out = getattr(fw, op)(y, 1)
        return fw.autograd.grad(out, y, fw.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], dtype=fw.float16))[0]
    expected, actual = _both(run)
    assert actual.dtype == nnref.float16
    np.testing.assert_allclose(actual.numpy().astype(np.float32), expected.numpy().astype(np.float32),
                               rtol=2e-3, atol=1e-3)


@pytest.mark.parametrize("rows", [1, 2, 8, 63, 64, 65, 300])
@pytest.mark.parametrize("inner,cols", [(1, 512), (784, 512), (16, 700), (512, 10)])
def test_linear_products_match_pytorch_in_value_and_layout(rows, inner, cols):
    """``x @ W.t()`` (with and without bias) and its gradients take other BLAS routes at some
    shapes; values agree with PyTorch's and every result is row-major, as PyTorch's."""
    gen = np.random.default_rng(rows * 1000 + inner)
    x = gen.standard_normal((rows, inner)).astype(np.float32)
    w = gen.standard_normal((cols, inner)).astype(np.float32)
    b = gen.standard_normal(cols).astype(np.float32)

    def run(fw):
        tx, tw, tb = (fw.tensor(a, requires_grad=True) for a in (x, w, b))
        plain, biased = tx @ tw.t(), fw.nn.functional.linear(tx, tw, tb)
        (biased.sum() + (plain * plain).sum()).backward()
        return plain, biased, tx.grad, tw.grad, tb.grad
    for expected, actual in zip(*_both(run)):
        np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(),
                                   rtol=1e-4, atol=1e-3 * max(1.0, np.sqrt(inner)))
        assert actual.is_contiguous() and expected.is_contiguous()

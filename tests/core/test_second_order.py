"""Second derivatives: with ``create_graph=True`` the gradients are themselves differentiable.

Checked against closed forms, against finite differences of the first
derivative, and against PyTorch; then every op case of ``core_op_cases`` goes
through a "gradgradcheck": the function ``x -> d(f(x) . v)/dx`` must itself
pass ``gradcheck``.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nnref
from core_helpers import assert_close, numpy_of
from core_op_cases import CASES

try:
    import torch
except ImportError:
    torch = None


def first_derivative(m, f, x):
    """df/dx as a tensor that stays in the graph."""
    (g,) = m.autograd.grad(f(m, x).sum(), x, create_graph=True)
    return g


def second_derivative(m, f, values):
    """d/dx sum(df/dx), the diagonal of the Hessian for elementwise f."""
    x = m.tensor(values, dtype=m.float64, requires_grad=True)
    g = first_derivative(m, f, x)
    assert g.requires_grad and g.grad_fn is not None
    (h,) = m.autograd.grad(g.sum(), x)
    return g, h


def cube(m, x):
    return x ** 3


def tanh(m, x):
    return m.tanh(x)


def mlp(m, x):
    """A two-layer network of x with fixed weights: every node has a real second derivative."""
    w1 = m.tensor([[0.5, -1.0, 0.25], [1.5, 0.5, -0.75]], dtype=m.float64)
    w2 = m.tensor([[1.0], [-2.0], [0.5]], dtype=m.float64)
    h = m.tanh(x.unsqueeze(-1) * w1[0] + w1[1])
    return (m.sigmoid(h @ w2).squeeze(-1) * x).exp()


VALUES = [-1.5, -0.3, 0.2, 1.1]


def test_cube_second_derivative_is_6x():
    g, h = second_derivative(nnref, cube, VALUES)
    np.testing.assert_allclose(g._data, 3 * np.array(VALUES) ** 2)
    np.testing.assert_allclose(h._data, 6 * np.array(VALUES))


def test_tanh_second_derivative_closed_form():
    _, h = second_derivative(nnref, tanh, VALUES)
    t = np.tanh(VALUES)
    np.testing.assert_allclose(h._data, -2 * t * (1 - t * t), rtol=1e-12)


@pytest.mark.parametrize("f", [cube, tanh, mlp], ids=lambda f: f.__name__)
def test_second_derivative_matches_finite_differences_of_first(f):
    _, h = second_derivative(nnref, f, VALUES)
    eps = 1e-6
    x = np.array(VALUES)

    def grad_at(values):
        t = nnref.tensor(values, requires_grad=True)
        (g,) = nnref.autograd.grad(f(nnref, t).sum(), t)
        return g._data
    numeric = (grad_at(x + eps) - grad_at(x - eps)) / (2 * eps)
    np.testing.assert_allclose(h._data, numeric, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [cube, tanh, mlp], ids=lambda f: f.__name__)
def test_second_derivative_matches_torch(f):
    torch = pytest.importorskip("torch")
    g, h = second_derivative(nnref, f, VALUES)
    tg, th = second_derivative(torch, f, VALUES)
    assert_close(g, tg, rtol=1e-12)
    assert_close(h, th, rtol=1e-12)


def test_grad_fn_of_a_gradient_matches_torch_for_pow():
    """x**3's gradient is ``grad * (3 * x**2)``: a MulBackward0 in both libraries.

    (PyTorch's tanh/sigmoid/relu gradients use fused ``*_backward`` kernels with
    their own node names, e.g. TanhBackwardBackward0; nnref builds them from
    ordinary ops, so only the values agree there.)
    """
    torch = pytest.importorskip("torch")
    g, _ = second_derivative(nnref, cube, VALUES)
    tg, _ = second_derivative(torch, cube, VALUES)
    assert type(g.grad_fn).__name__ == type(tg.grad_fn).__name__ == "MulBackward0"


def test_third_derivative_of_cube_is_6():
    x = nnref.tensor([0.5, -2.0], dtype=nnref.float64, requires_grad=True)
    (g,) = nnref.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (h,) = nnref.autograd.grad(g.sum(), x, create_graph=True)
    (k,) = nnref.autograd.grad(h.sum(), x)
    np.testing.assert_allclose(k._data, [6.0, 6.0])


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_with_create_graph_leaves_differentiable_grad():
    """``loss.backward(create_graph=True)`` puts a grad with a grad_fn into ``x.grad`` (as torch)."""
    def run(m):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        first = x.grad
        assert first.requires_grad and first.grad_fn is not None
        (h,) = m.autograd.grad(first.sum(), x)
        return first.detach().clone(), h
    g, h = run(nnref)
    np.testing.assert_allclose(g._data, [3.0, 12.0])
    np.testing.assert_allclose(h._data, [6.0, 12.0])
    if torch is not None:
        tg, th = run(torch)
        assert_close(g, tg)
        assert_close(h, th)


def test_without_create_graph_gradients_are_constants():
    x = nnref.tensor([1.0, 2.0], requires_grad=True)
    (g,) = nnref.autograd.grad((x ** 3).sum(), x)
    assert not g.requires_grad and g.grad_fn is None


# -- every op: its backward must itself be differentiable -----------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_gradgradcheck(name, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    arrays, f = CASES[name](data.draw, rng)
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out_shape = f(nnref, *(nnref.tensor(a) for a in arrays)).shape
    v = np.asarray(rng.standard_normal(out_shape))

    def gradient(m, *inputs):
        """d(sum(f(x) * v))/dx for every input, kept in the graph."""
        out = f(m, *inputs)
        return m.autograd.grad(out, inputs, grad_outputs=m.tensor(v), create_graph=True)

    inputs = [nnref.tensor(a, requires_grad=True) for a in arrays]
    assert nnref.autograd.gradcheck(lambda *ts: gradient(nnref, *ts), inputs)

    if torch is None:
        return
    # A Hessian-vector product, compared with PyTorch's.  Where f is linear in x, the gradient
    # may or may not be recorded as depending on x (relu: PyTorch records it, nnref does not);
    # either way the second derivative must be zero.
    u = [rng.standard_normal(a.shape) for a in arrays]
    for_each = []
    for m in (nnref, torch):
        xs = [m.tensor(a, requires_grad=True) for a in arrays]
        grads = gradient(m, *xs)
        hvp = [np.zeros(a.shape) for a in arrays]
        differentiable = [(g, ui) for g, ui in zip(grads, u) if g.requires_grad]
        if differentiable:
            total = sum((g * m.tensor(ui)).sum() for g, ui in differentiable)
            second = m.autograd.grad(total, xs, allow_unused=True)
            hvp = [numpy_of(h) if h is not None else z for h, z in zip(second, hvp)]
        for_each.append(([numpy_of(g) for g in grads], hvp))
    for ours, theirs in zip(for_each[0][0] + for_each[0][1], for_each[1][0] + for_each[1][1]):
        # Entries that are zero in exact arithmetic come out as round-off of the array's scale
        # (seen: 8e-11 vs 1.2e-10 for std's second derivative), so atol follows that scale.
        scale = max(1.0, float(np.abs(theirs).max(initial=0.0)))
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9 * scale)


ACTIVATIONS_WITH_SECOND_DERIVATIVES = {
    "elu": lambda m, x: m.nn.functional.elu(x),
    "elu alpha 0.4": lambda m, x: m.nn.functional.elu(x, alpha=0.4),
    "selu": lambda m, x: m.nn.functional.selu(x),
    "celu": lambda m, x: m.nn.functional.celu(x, alpha=1.7),
    "hardtanh": lambda m, x: m.nn.functional.hardtanh(x, -0.8, 1.2),
    "relu6": lambda m, x: m.nn.functional.relu6(x * 4),
}


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
@pytest.mark.parametrize("name", ACTIVATIONS_WITH_SECOND_DERIVATIVES)
def test_elu_and_hardtanh_families_differentiate_twice_as_pytorch(name):
    """Their gradients record ``EluBackwardBackward0`` / ``HardtanhBackwardBackward0``: second and
    third derivatives, and the second derivative's gradient for ``grad_output`` too."""
    f = ACTIVATIONS_WITH_SECOND_DERIVATIVES[name]
    values = [-2.5, -1.0, -0.3, 0.0, 0.25, 0.9, 1.5, 3.0]
    seen = {}
    for m in (nnref, torch):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        v = m.tensor([0.5, -1.0, 2.0, 1.5, -0.7, 0.3, 1.1, -2.0], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(f(m, x), x, v, create_graph=True)
        (h, hv) = m.autograd.grad(g.sum(), (x, v), create_graph=True)
        third = m.autograd.grad(h.sum(), x, allow_unused=True)[0] if h.requires_grad else None
        seen[m.__name__] = ((type(g.grad_fn).__name__, h.requires_grad), g.tolist(), h.tolist(), hv.tolist(),
                            None if third is None else third.tolist())
    ours, theirs = seen["nnref"], seen["torch"]
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


PRODUCTS = {
    "prod": lambda m, x: m.prod(x),
    "prod dim 1": lambda m, x: m.prod(x, 1),
    "prod dim 0 keepdim": lambda m, x: m.prod(x, 0, keepdim=True),
    "prod of a 0-d tensor": lambda m, x: m.prod(x[0, 0]),
}


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
@pytest.mark.parametrize("name", PRODUCTS)
def test_prod_differentiates_twice_as_pytorch(name):
    f = PRODUCTS[name]
    values = [[1.5, -0.7, 2.0], [0.3, 1.1, -1.4]]
    seen = {}
    for m in (nnref, torch):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(f(m, x).sum(), x, create_graph=True)
        h = m.autograd.grad((g * g).sum(), x)[0].tolist() if g.requires_grad else None  # a constant
        seen[m.__name__] = ((None if g.grad_fn is None else type(g.grad_fn).__name__, h is None), g.tolist(), h)
    assert seen["nnref"][0] == seen["torch"][0]
    np.testing.assert_allclose(seen["nnref"][1], seen["torch"][1], rtol=1e-12)
    if seen["torch"][2] is not None:
        np.testing.assert_allclose(seen["nnref"][2], seen["torch"][2], rtol=1e-12)


def test_prod_second_derivative_with_zeros_is_refused_not_wrong():
    x = nnref.tensor([0.0, 2.0, 3.0], requires_grad=True)
    (g,) = nnref.autograd.grad(x.prod(), x)  # first order stays exact
    assert g.tolist() == [6.0, 0.0, 0.0]
    with pytest.raises(NotImplementedError, match="holds zeros"):
        nnref.autograd.grad(x.prod(), x, create_graph=True)

"""quantile/nanquantile, cdist, Tensor.unfold and histogram against PyTorch 2.13: values bit for
bit, shapes, dtypes, grad_fn names, gradients (ties included) and error types and messages."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)

INTERPOLATIONS = ["linear", "lower", "higher", "midpoint", "nearest"]


def _run(lib, fn, data, *args, grad_out=None, **kwargs):
    """``fn`` of ``lib`` on a leaf made from ``data``, backpropagated with ``grad_out``."""
    x = lib.tensor(data, requires_grad=True)
    y = fn(lib)(x, *args, **kwargs)
    if grad_out is None:
        return y, None
    y.backward(lib.tensor(grad_out(tuple(y.shape))))
    return y, x.grad


def _same(nn_tensor, torch_tensor, ulps=0):
    """Equal shapes and dtypes, values equal (or within ``ulps`` units in the last place)."""
    assert tuple(nn_tensor.shape) == tuple(torch_tensor.shape)
    assert str(nn_tensor.dtype) == str(torch_tensor.dtype)
    got, expected = nn_tensor.detach().numpy(), torch_tensor.detach().numpy()
    if ulps:
        np.testing.assert_allclose(got, expected, rtol=ulps * np.finfo(got.dtype).eps, atol=0)
    else:
        np.testing.assert_array_equal(got, expected)


def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return type(error).__name__, str(error).splitlines()[0]
    return None


def _same_error(make):
    expected, got = _error(lambda: make(torch)), _error(lambda: make(nnref))
    assert expected is not None and got == expected


# -- quantile ------------------------------------------------------------------------------------

@st.composite
def _quantile_cases(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=3)))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape).astype(dtype)
    ndim = len(shape)
    dim = None if ndim == 0 or draw(st.booleans()) else draw(st.integers(-ndim, ndim - 1))
    # Ties among at most 16 sorted values: PyTorch's CPU sort is a stable insertion sort there, and
    # std::sort's unstable introsort beyond (nnref's sort is stable), which moves the gradient.
    if (dim is not None or data.size <= 16) and draw(st.booleans()):
        data = np.round(data * 2)
    if draw(st.booleans()) and data.size:
        data.flat[rng.integers(data.size)] = np.nan
    q = draw(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.5, 1.0]),
                       st.lists(st.floats(0, 1), min_size=1, max_size=3).map(lambda v: np.array(v, dtype))))
    return data, dim, q, draw(st.booleans()), draw(st.sampled_from(INTERPOLATIONS)), seed


@settings(max_examples=300, deadline=None)
@given(_quantile_cases(), st.sampled_from(["quantile", "nanquantile"]))
def test_quantile_matches_torch(case, name):
    data, dim, q, keepdim, interpolation, seed = case
    results = []
    for lib in (torch, nnref):
        qq = lib.tensor(q) if isinstance(q, np.ndarray) else q
        grad_out = lambda shape: np.random.default_rng(seed).standard_normal(shape).astype(data.dtype)  # noqa: E731
        results.append(_run(lib, lambda m: getattr(m, name), data, qq, dim=dim, keepdim=keepdim,
                            interpolation=interpolation, grad_out=grad_out))
    (ty, tg), (ny, ng) = results
    assert type(ny.grad_fn).__name__ == type(ty.grad_fn).__name__ == "SqueezeBackward4"
    _same(ny, ty)
    # Several q on one sorted value: PyTorch's sum of their gradients (in its order, each term a
    # product or, on a DEFAULT CPU, a twice-rounded lerp weight) can differ by a few ulps from the
    # sum nnref's gather backward makes (measured up to 2.8 ulps in float64 under DEFAULT).
    _same(ng, tg, ulps=4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quantile_methods_out_and_q_gradient(dtype):
    rng = np.random.default_rng(0)
    data = rng.standard_normal((4, 6)).astype(dtype)
    out = {}
    for lib in (torch, nnref):
        x = lib.tensor(data, requires_grad=True)
        q = lib.tensor(np.array([0.3, 0.7], dtype), requires_grad=True)
        y = x.quantile(q, 1, True, interpolation="midpoint")
        z = lib.nanquantile(x, q, dim=0, keepdim=True)
        (y * 2 + z.sum((1, 2), keepdim=True)).backward(lib.ones(y.shape))
        target = lib.empty(7, dtype=x.dtype)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            written = lib.quantile(x.detach(), 0.25, dim=0, out=target)
        out[lib] = (y, z, x.grad, q.grad, written, target, len(caught))
    for got, expected in zip(out[nnref], out[torch]):
        if isinstance(expected, int):
            assert got == expected
        else:
            _same(got, expected, ulps=8 if expected is out[torch][3] else 0)  # q.grad: sums in another order
    assert out[nnref][4] is out[nnref][5]


@pytest.mark.parametrize("make", [
    lambda L: L.quantile(L.randn(3, 5), 1.5),
    lambda L: L.quantile(L.randn(3, 5), float("nan")),
    lambda L: L.quantile(L.randn(3, 5), L.tensor([0.5, 1.5])),
    lambda L: L.quantile(L.randn(3, 5), L.tensor([[0.5]])),
    lambda L: L.quantile(L.randn(3, 5), L.tensor([0.5], dtype=L.float64)),
    lambda L: L.quantile(L.arange(5), 0.5),
    lambda L: L.quantile(L.arange(5), 1.5),
    lambda L: L.quantile(L.randn(3).half(), 0.5),
    lambda L: L.quantile(L.empty(0), 0.5),
    lambda L: L.nanquantile(L.zeros(3, 0), 0.5, dim=1),
    lambda L: L.quantile(L.randn(3, 5), 0.5, interpolation="cubic"),
    lambda L: L.quantile(L.randn(3, 5), 0.5, dim=2),
    lambda L: L.quantile(L.randn(3, 5), 0.5, dim=1, out=L.empty(3, dtype=L.float64)),
    lambda L: L.quantile(L.zeros(2 ** 24 + 2), 0.5),
])
def test_quantile_errors(make):
    _same_error(make)


# -- Tensor.unfold -------------------------------------------------------------------------------

@st.composite
def _unfold_cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=3)))
    ndim = max(len(shape), 1)
    dim = draw(st.integers(-ndim, ndim - 1))
    length = shape[dim] if shape else 1
    return shape, dim, draw(st.integers(0, length)), draw(st.integers(1, 4)), draw(st.integers(0, 2 ** 16))


@settings(max_examples=200, deadline=None)
@given(_unfold_cases(), st.sampled_from([np.float32, np.float64]))
def test_unfold_matches_torch(case, dtype):
    shape, dim, size, step, seed = case
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    grad_out = lambda s: np.random.default_rng(seed + 1).standard_normal(s).astype(dtype)  # noqa: E731
    (ty, tg), (ny, ng) = [_run(lib, lambda m: m.Tensor.unfold, data, dim, size, step, grad_out=grad_out)
                          for lib in (torch, nnref)]
    assert type(ny.grad_fn).__name__ == type(ty.grad_fn).__name__ == "UnfoldBackward0"
    _same(ny, ty)
    _same(ng, tg)


def test_unfold_is_a_view():
    for lib in (torch, nnref):
        x = lib.arange(10.0)
        y = x.unfold(0, 4, 3)
        x[3] = 100.0
        assert y[1, 0].item() == 100.0 and y._base is x and y._version == x._version == 1
        z = x.clone().requires_grad_()
        w = z * 1
        w.unfold(0, 2, 2).mul_(2)  # an in-place change through the view reaches the base's graph
        w.sum().backward()
        assert z.grad.tolist() == [2.0] * 10


@pytest.mark.parametrize("make", [
    lambda L: L.randn(3, 5).unfold(1, 6, 1),
    lambda L: L.randn(3, 5).unfold(1, 2, 0),
    lambda L: L.randn(3, 5).unfold(1, 2, -1),
    lambda L: L.randn(3, 5).unfold(1, -1, 1),
    lambda L: L.randn(3, 5).unfold(2, 1, 1),
    lambda L: L.tensor(3.0).unfold(0, 2, 1),
])
def test_unfold_errors(make):
    _same_error(make)

"""torch.histogram and torch.cdist against PyTorch (``aten/src/ATen/native/Histogram.cpp``,
``aten/src/ATen/native/Distance.cpp``)."""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)


def _both(fn):
    out = []
    for lib in (torch, nnref):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            out.append((type(e).__name__, str(e)))
    return out


def _arrays(result):
    return [t.detach().numpy() for t in result]


@pytest.fixture(params=[1, 2, 3])
def same_threads(request):
    """PyTorch's weighted histogram adds per thread (chunks of at least 200 values) and then sums the
    threads' histograms, so both libraries run with the same thread count."""
    before = torch.get_num_threads(), nnref.get_num_threads()
    torch.set_num_threads(request.param)
    nnref.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before[0])
    nnref.set_num_threads(before[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram_matches_torch_bit_for_bit(dtype, same_threads):
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 100, 1000):
        data = (rng.standard_normal(n) * 3).astype(dtype)
        data[:n // 10] = np.round(data[:n // 10])  # values on the edges
        weights = rng.random(n).astype(dtype)
        for bins in (1, 3, 7, 50):
            for kw in ({}, {"range": (-2.0, 2.5)}, {"density": True}, {"range": (-1, 1), "density": True}):
                for weighted in (False, True):
                    def call(lib):
                        extra = {"weight": lib.tensor(weights)} if weighted else {}
                        return lib.histogram(lib.tensor(data), bins, **kw, **extra)
                    expected, got = _both(call)
                    for e, g in zip(_arrays(expected), _arrays(got)):
                        assert g.dtype == e.dtype
                        np.testing.assert_array_equal(g, e)


def test_histogram_with_edges_tensor_and_named_tuple():
    rng = np.random.default_rng(1)
    data = rng.standard_normal((4, 25)).astype(np.float32)
    edges = np.array([-3, -1, -0.5, 0, 0.25, 2, 2.5], np.float32)
    data[0, :7] = edges
    expected, got = _both(lambda lib: lib.histogram(lib.tensor(data), lib.tensor(edges),
                                                    weight=lib.tensor(data).abs(), density=True))
    for e, g in zip(_arrays(expected), _arrays(got)):
        np.testing.assert_array_equal(g, e)
    assert repr(got) == repr(expected)
    hist, bin_edges = got
    assert got.hist is hist and got.bin_edges is bin_edges
    expected, got = _both(lambda lib: lib.tensor(data).histogram(lib.tensor(edges)))
    np.testing.assert_array_equal(got.hist.numpy(), expected.hist.numpy())


def test_histogram_out_and_autograd():
    results = []
    for lib in (torch, nnref):
        x = lib.tensor([1.0, 2.0, 1.0, 4.0])
        hist, edges = lib.empty(0), lib.empty(0)
        r = lib.histogram(x, 3, out=(hist, edges))
        results.append((r.hist is hist, hist.numpy(), edges.numpy()))
        y = lib.tensor([1.0, 2.0], requires_grad=True)
        h = lib.histogram(y, 2)
        assert h.hist.requires_grad and h.bin_edges.requires_grad
        with pytest.raises(RuntimeError, match="derivative for aten::histogram is not implemented"):
            h.hist.sum().backward()
    assert results[0][0] and results[1][0]
    for e, g in zip(results[0][1:], results[1][1:]):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("case", range(11))
def test_histogram_errors_match_torch(case):
    calls = [
        lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 0),
        lambda lib: lib.histogram(lib.tensor([1, 2]), 3),
        lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 3, range=(2.0, 1.0)),
        lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 3, range=(0.0, float("inf"))),
        lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), lib.tensor([[0.0, 1.0]])),
        lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 3, weight=lib.ones(3)),
        lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), lib.tensor([1.0])),
        lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 3, weight=lib.ones(2, dtype=lib.float64)),
        lambda lib: lib.histogram(lib.tensor([1.0, float("nan")]), 3),
        lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), lib.tensor([0.0, 1.0], dtype=lib.float64)),
        lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 3, range=(1.0,)),
    ]
    expected, got = _both(calls[case])
    assert got == expected


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_bit_for_bit(dtype):
    """histogram's edges (and affine_grid's base grid) are at::linspace's: fused multiply-adds from
    both ends, not numpy's linspace (which differed in the last bit, e.g. linspace(-1, 1, 7)[3])."""
    for steps in list(range(0, 40)) + [100, 1001]:
        for start, end in [(-1, 1), (0.3, 7.1), (5, -2), (2, 2)]:
            e = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
            g = nnref.linspace(start, end, steps, dtype=getattr(nnref, dtype)).numpy()
            assert g.dtype == e.dtype
            np.testing.assert_array_equal(g, e)


def _cdist_run(lib, a, b, go, **kw):
    x = lib.tensor(a, requires_grad=True)
    y = lib.tensor(b, requires_grad=True)
    r = lib.cdist(x, y, **kw)
    r.backward(lib.tensor(go))
    names = []
    node = r.grad_fn
    while node is not None and len(names) < 2:
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return r.detach().numpy(), x.grad.numpy(), y.grad.numpy(), names


SHAPES = [((5, 7), (6, 7)), ((2, 5, 9), (1, 4, 9)), ((3, 1, 4, 3), (2, 6, 3)), ((4, 1), (3, 1)), ((3, 20), (2, 20))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, float("inf"), 0.5, 1.5, 3.0])
def test_cdist_direct_path_matches_torch(dtype, p):
    """The direct kernel (p != 2, or at most 25 rows, or donot_use_mm): bit for bit, except where
    ATen's vectorised backward takes pow from SLEEF and where float64 pow differs from glibc's by an ulp."""
    rng = np.random.default_rng(int(p * 10) if np.isfinite(p) else 99)
    for s1, s2 in SHAPES:
        a = rng.standard_normal(s1).astype(dtype)
        b = rng.standard_normal(s2).astype(dtype)
        a[..., 0, :1] = b.reshape(-1, *b.shape[-2:])[0, 0, :1]  # some equal coordinates
        go = rng.standard_normal(np.broadcast_shapes(s1[:-2], s2[:-2]) + (s1[-2], s2[-2])).astype(dtype)
        expected, got = _cdist_run(torch, a, b, go, p=p), _cdist_run(nnref, a, b, go, p=p)
        assert got[3] == expected[3] and expected[3][0] == "CdistBackward0"
        exact_pow = p in (0.0, 1.0, 2.0) or np.isinf(p)
        for k, (e, g) in enumerate(zip(expected[:3], got[:3])):
            assert g.dtype == e.dtype and g.shape == e.shape
            if exact_pow or (k == 0 and dtype == np.float32):
                np.testing.assert_array_equal(g, e)
            else:  # measured: a few units in the last place
                np.testing.assert_allclose(g, e, rtol=64 * np.finfo(dtype).eps, atol=64 * np.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cdist_mm_path_matches_torch(dtype):
    """p = 2 with more than 25 rows (or use_mm_for_euclid_dist): PyTorch's |a|^2 - 2ab + |b|^2 form
    and graph; the GEMM's summation order is BLAS's, so values agree to a few ulps of the terms."""
    rng = np.random.default_rng(7)
    for s1, s2, mode in [((30, 4), (3, 4), None), ((2, 40, 6), (2, 5, 6), None), ((5, 3), (4, 3), "use_mm_for_euclid_dist"),
                         ((3, 1, 26, 2), (2, 3, 2), None)]:
        a = rng.standard_normal(s1).astype(dtype)
        b = rng.standard_normal(s2).astype(dtype)
        go = rng.standard_normal(np.broadcast_shapes(s1[:-2], s2[:-2]) + (s1[-2], s2[-2])).astype(dtype)
        kw = {} if mode is None else {"compute_mode": mode}
        expected, got = _cdist_run(torch, a, b, go, **kw), _cdist_run(nnref, a, b, go, **kw)
        assert got[3] == expected[3] == ["ViewBackward0", "EuclideanDistBackward0"]
        scale = max(np.abs(a).max(), np.abs(b).max()) ** 2 * a.shape[-1]
        np.testing.assert_allclose(got[0], expected[0], rtol=0, atol=8 * np.finfo(dtype).eps * scale ** 0.5 * 4)
        for e, g in zip(expected[1:3], got[1:3]):
            np.testing.assert_allclose(g, e, rtol=1e-3 if dtype == np.float32 else 1e-11,
                                       atol=1e-3 if dtype == np.float32 else 1e-11)


@pytest.mark.parametrize("case", range(9))
def test_cdist_errors_match_torch(case):
    calls = [
        lambda lib: lib.cdist(lib.ones(3), lib.ones(2, 3)),
        lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(3)),
        lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 2)),
        lambda lib: lib.cdist(lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 3, dtype=lib.int64)),
        lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3), p=-1),
        lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3), compute_mode="x"),
        lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3, dtype=lib.float64)),
        lambda lib: lib.cdist(lib.ones(30, 3), lib.ones(2, 3, dtype=lib.float64)),
        lambda lib: lib.cdist(lib.ones(2, 2, 3), lib.ones(3, 2, 3)),
    ]
    expected, got = _both(calls[case])
    assert got == expected


def test_cdist_empty_and_zero_columns():
    for s1, s2 in [((0, 3), (4, 3)), ((5, 0), (4, 0)), ((2, 0, 3), (2, 4, 3))]:
        expected, got = _both(lambda lib: lib.cdist(lib.ones(s1), lib.ones(s2)))
        assert tuple(got.shape) == tuple(expected.shape)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_cdist_double_backward_is_refused_not_silently_constant():
    names = []
    for lib in (torch, nnref):
        a = lib.tensor([[0.0, 1.0], [2.0, 0.5]], requires_grad=True)
        (ga,) = lib.autograd.grad(lib.cdist(a, lib.ones(3, 2)).sum(), a, create_graph=True)
        names.append(type(ga.grad_fn).__name__)
    assert names[1] == names[0] == "CdistBackwardBackward0"
    with pytest.raises(NotImplementedError, match="double backward"):
        ga.sum().backward()

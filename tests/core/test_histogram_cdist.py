"""torch.histogram and torch.cdist against PyTorch (``aten/src/ATen/native/Histogram.cpp``,
``aten/src/ATen/native/Distance.cpp``)."""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


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


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram_matches_torch_bit_for_bit(dtype):
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

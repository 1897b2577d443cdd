"""F.grid_sample and F.affine_grid against PyTorch: values, gradients (input and grid), grad_fn
names, warnings and errors, bit for bit (``aten/src/ATen/native/cpu/GridSamplerKernel.cpp``)."""
import itertools
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)

MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


def _run(lib, x, g, go, **kw):
    xi = lib.tensor(x, requires_grad=True)
    gi = lib.tensor(g, requires_grad=True)
    out = lib.nn.functional.grid_sample(xi, gi, **kw)
    out.backward(lib.tensor(go))
    return out.detach().numpy(), xi.grad.numpy(), gi.grad.numpy(), type(out.grad_fn).__name__


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode,padding,align_corners", list(itertools.product(MODES, PADDINGS, [False, True])))
def test_grid_sample_matches_torch_bit_for_bit(dtype, mode, padding, align_corners):
    rng = np.random.default_rng(hash((mode, padding, align_corners)) % 2**32)
    for h, w, ho, wo in [(5, 7, 4, 19), (1, 3, 3, 9), (6, 1, 2, 17), (3, 4, 8, 8)]:
        x = rng.standard_normal((2, 3, h, w)).astype(dtype)
        g = (rng.random((2, ho, wo, 2)) * 4 - 2).astype(dtype)  # well outside [-1, 1] too
        go = rng.standard_normal((2, 3, ho, wo)).astype(dtype)
        kw = dict(mode=mode, padding_mode=padding, align_corners=align_corners)
        expected, got = _run(torch, x, g, go, **kw), _run(nnref, x, g, go, **kw)
        assert got[3] == expected[3] == "GridSampler2DBackward0"
        for e, r in zip(expected[:3], got[:3]):
            assert r.dtype == e.dtype
            np.testing.assert_array_equal(r, e)


def test_grid_sample_overlapping_points_sum_in_kernel_order():
    """Many grid points on the same pixels: the float32 input gradient adds in the kernel's order."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
    g = (rng.random((1, 7, 37, 2)) * 2 - 1).astype(np.float32)
    go = rng.standard_normal((1, 2, 7, 37)).astype(np.float32)
    for kw in (dict(align_corners=False), dict(mode="nearest", align_corners=True)):
        np.testing.assert_array_equal(_run(nnref, x, g, go, **kw)[1], _run(torch, x, g, go, **kw)[1])


def test_grid_sample_transposed_grid_and_nan():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
    g = (rng.random((1, 2, 6, 11)) * 3 - 1.5).astype(np.float32)
    g[0, 0, 1, 2] = np.nan
    for padding in PADDINGS:
        outs = [lib.nn.functional.grid_sample(lib.tensor(x), lib.tensor(g).permute(0, 2, 3, 1),
                                              padding_mode=padding, align_corners=False).numpy()
                for lib in (torch, nnref)]
        np.testing.assert_array_equal(outs[1], outs[0])


def _warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def test_align_corners_warning():
    for lib in (torch, nnref):
        lib.manual_seed(0)
    x = np.zeros((1, 1, 2, 2), np.float32)
    g = np.zeros((1, 1, 1, 2), np.float32)
    theta = np.eye(2, 3, dtype=np.float32)[None]
    calls = [lambda lib: lib.nn.functional.grid_sample(lib.tensor(x), lib.tensor(g)),
             lambda lib: lib.nn.functional.affine_grid(lib.tensor(theta), [1, 1, 2, 2]),
             lambda lib: lib.nn.functional.affine_grid(lib.tensor(theta), [1, 1, 1, 2], align_corners=True)]
    for call in calls:
        assert _warnings(lambda: call(nnref)) == _warnings(lambda: call(torch))


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e), str(e)
    return None


@pytest.mark.parametrize("case", range(10))
def test_errors_match_torch(case):
    f32 = np.float32
    calls = [
        lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2), mode="area",
                                                  align_corners=False),
        lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2), padding_mode="x",
                                                  align_corners=False),
        lambda lib: lib.nn.functional.grid_sample(lib.zeros(2, 1, 2, 2), lib.zeros(1, 1, 1, 2), align_corners=False),
        lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 3), align_corners=False),
        lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2, dtype=lib.float64),
                                                  align_corners=False),
        lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 0, 2), lib.zeros(1, 1, 1, 2), align_corners=False),
        lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3, dtype=lib.int64), [1, 1, 2, 2], False),
        lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 3, 3), [1, 1, 2, 2], False),
        lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 2, 2], False),
        lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 1, 0, 2], False),
    ]
    assert _error(lambda: calls[case](nnref)) == _error(lambda: calls[case](torch))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode,padding,align_corners",
                         list(itertools.product(["bilinear", "nearest"], PADDINGS, [False, True])))
def test_grid_sample_5d_matches_torch_bit_for_bit(dtype, mode, padding, align_corners):
    """Volumetric sampling (grid_sampler_3d, GridSampler3DBackward0): PyTorch's scalar loop."""
    rng = np.random.default_rng(hash((mode, padding, align_corners, "3d")) % 2**32)
    for d, h, w, do, ho, wo in [(3, 4, 5, 2, 3, 7), (1, 2, 1, 4, 1, 3), (2, 2, 2, 3, 3, 3)]:
        x = rng.standard_normal((2, 3, d, h, w)).astype(dtype)
        g = (rng.random((2, do, ho, wo, 3)) * 4 - 2).astype(dtype)
        go = rng.standard_normal((2, 3, do, ho, wo)).astype(dtype)
        kw = dict(mode=mode, padding_mode=padding, align_corners=align_corners)
        expected, got = _run(torch, x, g, go, **kw), _run(nnref, x, g, go, **kw)
        assert got[3] == expected[3] == "GridSampler3DBackward0"
        for e, r in zip(expected[:3], got[:3]):
            np.testing.assert_array_equal(r, e)


def test_grid_sample_5d_errors():
    calls = [lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2, 2), lib.zeros(1, 1, 1, 1, 3),
                                                       mode="bicubic", align_corners=False),
             lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2, 2), lib.zeros(1, 1, 1, 1, 2),
                                                       align_corners=False),
             lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2, 2), lib.zeros(1, 1, 1, 3),
                                                       align_corners=False),
             lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 1, 2),
                                                       align_corners=False),
             lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2), lib.zeros(1, 1, 1),
                                                       align_corners=False)]
    for call in calls:
        assert _error(lambda: call(nnref)) == _error(lambda: call(torch))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [[2, 3, 5, 7], [2, 1, 1, 4], [2, 1, 3, 4, 6]])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(dtype, size, align_corners):
    rng = np.random.default_rng(len(size) * 10 + size[2])
    dims = len(size) - 2
    theta = rng.standard_normal((2, dims, dims + 1)).astype(dtype)
    results = []
    for lib in (torch, nnref):
        t = lib.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grid = lib.nn.functional.affine_grid(t, size, align_corners=align_corners)
        grad = lib.tensor(rng.standard_normal(tuple(grid.shape)).astype(dtype) if lib is torch else results[0][3])
        grid.backward(grad)
        results.append((grid.detach().numpy(), t.grad.numpy(), type(grid.grad_fn).__name__, grad.numpy()))
    (g0, t0, n0, _), (g1, t1, n1, _) = results
    assert n1 == n0 == "AffineGridGeneratorBackward0"
    assert g1.shape == g0.shape and g1.dtype == g0.dtype
    np.testing.assert_array_equal(g1, g0)
    # grad_theta is a bmm over every grid point: BLAS's summation order, to a few units in the last place.
    np.testing.assert_allclose(t1, t0, rtol=0, atol=16 * np.finfo(dtype).eps * np.abs(t0).max())


def test_double_backward_is_refused_not_silently_constant():
    """PyTorch differentiates grid_sample's backward (GridSampler2DBackwardBackward0); nnref names that
    node but raises when it is reached, rather than treating the gradient as a constant."""
    results = []
    for lib in (torch, nnref):
        x = lib.ones(1, 1, 3, 3, requires_grad=True)
        g = lib.zeros(1, 2, 2, 2, requires_grad=True)
        out = lib.nn.functional.grid_sample(x, g, align_corners=False)
        gx, gg = lib.autograd.grad(out.sum(), (x, g), create_graph=True)
        results.append((type(gx.grad_fn).__name__, type(gg.grad_fn).__name__))
    assert results[1] == results[0]
    with pytest.raises(NotImplementedError, match="double backward"):
        gg.sum().backward()

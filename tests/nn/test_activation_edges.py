"""The activation kernels of ``nnref._ops.native_activation`` and adaptive max pooling against
PyTorch at the edges of their domains (NaN, infinities, signed zeros, subnormals, thresholds,
values whose exponential overflows), in float32 and float64; and exact GELU's float32 accuracy
against a float64 reference, since its erf is a polynomial approximation."""
import math

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)
special = pytest.importorskip("scipy.special")

EDGES = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-40, -1e-40, 1e-30, -1e-30, 1e-8, -1e-8,
         1.0, -1.0, 2.5, -2.5, 5.0, -5.0, 13.0, -13.0, 19.99, 20.0, 20.01, 25.0, 88.8, -88.8,
         100.0, -100.0, 3e38, -3e38]

ACTIVATIONS = {
    "gelu": lambda F, x: F.gelu(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.1),
    "leaky_relu slope 0": lambda F, x: F.leaky_relu(x, 0.0),
    "leaky_relu slope 2": lambda F, x: F.leaky_relu(x, 2.0),
    "leaky_relu slope -0.5": lambda F, x: F.leaky_relu(x, -0.5),
    "silu": lambda F, x: F.silu(x),
    "elu": lambda F, x: F.elu(x),
    "elu alpha 0.7": lambda F, x: F.elu(x, 0.7),
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x, 0.5),
    "softplus": lambda F, x: F.softplus(x),
    "softplus beta 2 threshold 3": lambda F, x: F.softplus(x, 2.0, 3.0),
    "hardtanh": lambda F, x: F.hardtanh(x, -0.5, 1.5),
    "relu6": lambda F, x: F.relu6(x),
}

# PyTorch's own float32 artefacts, not followed: its vectorised GELU gives NaN at +inf and
# overflows to inf at 3e38 (GELU is x there); and the ELU family's gradient at NaN is the
# positive side's or NaN depending on which of its loops (vectorised or not) met the NaN.
SKIP_VALUES = {("gelu", "float32"): [math.inf, 3e38]}
SKIP_GRADS = {name: [math.nan] for name in ("elu", "elu alpha 0.7", "selu", "celu")}


def _kept(values, skipped):
    return np.array([not any(v == s or (math.isnan(v) and math.isnan(s)) for s in skipped)
                     for v in values])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_edges_match_pytorch(name, dtype):
    rng = np.random.default_rng(0)
    data = np.array(EDGES + list(rng.standard_normal(64) * 6), dtype=dtype)
    upstream = rng.standard_normal(data.shape).astype(dtype)
    ours = nnref.tensor(data, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)
    with np.errstate(all="ignore"):
        y_ours = ACTIVATIONS[name](nnref.nn.functional, ours)
        y_ours.backward(nnref.tensor(upstream))
    y_theirs = ACTIVATIONS[name](torch.nn.functional, theirs)
    y_theirs.backward(torch.tensor(upstream))
    assert type(y_ours.grad_fn).__name__ == type(y_theirs.grad_fn).__name__
    assert y_ours.dtype == getattr(nnref, dtype) and ours.grad.dtype == getattr(nnref, dtype)
    rtol, atol = (1e-5, 1e-6) if dtype == "float32" else (1e-12, 1e-14)
    kept = _kept(data, SKIP_VALUES.get((name, dtype), []))
    np.testing.assert_allclose(y_ours.detach().numpy()[kept], y_theirs.detach().numpy()[kept],
                               rtol=rtol, atol=atol, err_msg=f"{name} value")
    kept = _kept(data, SKIP_GRADS.get(name, []))
    np.testing.assert_allclose(ours.grad.numpy()[kept], theirs.grad.numpy()[kept],
                               rtol=rtol, atol=atol, err_msg=f"{name} gradient")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["gelu", "silu", "selu", "softplus", "leaky_relu"])
def test_16_bit_activations_compute_in_float32_as_pytorch(name, dtype):
    data = np.linspace(-12, 12, 241, dtype=np.float32)
    ours = nnref.tensor(data).to(getattr(nnref, dtype)).requires_grad_()
    theirs = torch.tensor(data).to(getattr(torch, dtype)).requires_grad_()
    y_ours, y_theirs = (ACTIVATIONS[name](nnref.nn.functional, ours),
                        ACTIVATIONS[name](torch.nn.functional, theirs))
    y_ours.sum().backward()
    y_theirs.sum().backward()
    assert y_ours.dtype == getattr(nnref, dtype) and ours.grad.dtype == getattr(nnref, dtype)
    tolerance = 1e-3 if dtype == "float16" else 1e-2
    np.testing.assert_allclose(y_ours.detach().float().numpy(), y_theirs.detach().float().numpy(),
                               rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(ours.grad.float().numpy(), theirs.grad.float().numpy(),
                               rtol=tolerance, atol=tolerance)


def test_float32_gelu_is_accurate_to_float32_rounding():
    """Abramowitz & Stegun's erf (absolute error 1.5e-7, float32 rounding adds as much) keeps
    float32 GELU and its derivative within 5e-7 of their float64 values (rounding a value near
    12 to float32 alone costs up to 4.8e-7); near 0, where GELU is about x / 2, within 8 units in
    the last place.  PyTorch's float32 GELU comes from oneDNN, whose kernel follows the CPU:
    measured on this grid, 1.07e-6 (AVX-512), 3.75e-7 (AVX2), 4.66e-7 (SSE4.1); so the bound,
    not PyTorch's error, is what holds on every CPU."""
    grid = np.concatenate([np.linspace(-12, 12, 240_001), np.geomspace(1e-30, 1e-3, 500),
                           -np.geomspace(1e-30, 1e-3, 500)]).astype(np.float32)
    x = grid.astype(np.float64)
    cdf = special.erfc(-x / math.sqrt(2)) / 2
    exact, exact_slope = x * cdf, cdf + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    errors = {}
    for name, lib in (("nnref", nnref), ("torch", torch)):
        t = lib.tensor(grid, requires_grad=True)
        y = lib.nn.functional.gelu(t)
        y.sum().backward()
        errors[name] = (np.abs(y.detach().numpy() - exact), np.abs(t.grad.numpy() - exact_slope))
    value_error, slope_error = errors["nnref"]
    assert value_error.max() < 5e-7 and slope_error.max() < 4e-7
    assert errors["torch"][0].max() < 1.2e-6  # the bound the book quotes for PyTorch's kernel
    tiny = np.abs(x) < 1e-3
    assert np.all(value_error[tiny] <= 8 * np.spacing(np.abs(exact[tiny]).astype(np.float32)))


MASKING = {
    "relu": lambda lib, x: lib.relu(x),
    "threshold": lambda lib, x: lib.nn.functional.threshold(x, 0.5, 2.0),
    "hardtanh": lambda lib, x: lib.nn.functional.hardtanh(x, -0.5, 1.5),
    "relu6": lambda lib, x: lib.nn.functional.relu6(x),
    "hardsigmoid": lambda lib, x: lib.nn.functional.hardsigmoid(x),
    "hardswish": lambda lib, x: lib.nn.functional.hardswish(x),
    "clamp": lambda lib, x: lib.clamp(x, -1.0, 1.0),
    "clamp min": lambda lib, x: lib.clamp(x, min=0.0),
    "clamp_min": lambda lib, x: lib.clamp_min(x, 0.25),
    "clamp_max": lambda lib, x: lib.clamp_max(x, 0.25),
    "clamp max 0": lambda lib, x: lib.clamp(x, max=0.0),
    "relu_ of a copy": lambda lib, x: lib.nn.functional.relu(x * 1, inplace=True),
    "clamp_min tensor": lambda lib, x: lib.clamp_min(x, lib.full((x.shape[-1],), 0.25, dtype=x.dtype)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(MASKING))
def test_masking_ops_match_pytorch_bit_for_bit(name, dtype):
    """Where these ops drop a gradient PyTorch *selects* +0: never the -0 of a negative gradient
    times 0, nor the NaN of an infinite one; the kept ones, NaN and -0 included, pass unchanged.
    Their values keep the sign of a zero as PyTorch's clamp does (``relu(-0.0)`` is -0.0).
    (Inputs on the boundaries -3, 0, 0.25, 1, 3, 6; rows of 64 elements, PyTorch's vector loop.)"""
    rng = np.random.default_rng(1)
    pool = np.array([-3, -1, -0.5, -0.0, 0, 0.25, 0.5, 1, 1.5, 3, 6, 7, -7, 2.5, -2.5], dtype=dtype)
    x = rng.choice(np.concatenate([pool, pool + np.dtype(dtype).type(0.125)]), (4, 64))
    upstream = rng.choice(np.array([-1, -0.0, 0.0, 2, np.inf, -np.inf, np.nan], dtype=dtype), (4, 64))
    results = []
    for lib in (torch, nnref):
        t = lib.tensor(x, requires_grad=True)
        with np.errstate(all="ignore"):
            y = MASKING[name](lib, t)
            y.backward(lib.tensor(upstream))
        results.append((y.detach().numpy(), t.grad.numpy()))
    bits = np.int32 if dtype == "float32" else np.int64
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_array_equal(ours.view(bits), theirs.view(bits))


def test_silu_output_may_change_in_place_before_backward_as_in_pytorch():
    """PyTorch's SiluBackward0 saves only the input: so does nnref's (the denominator it keeps is its own)."""
    grads = []
    for lib in (nnref, torch):
        x = lib.tensor([-2.0, 0.5, 3.0], requires_grad=True)
        y = lib.nn.functional.silu(x)
        z = y * 1
        y.mul_(2)
        z.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


# -- adaptive max pooling ---------------------------------------------------------------------

def _pool_inputs(rng, shape):
    ties = rng.integers(0, 3, shape).astype(np.float32)
    with_nan = ties.copy()
    with_nan[rng.random(shape) < 0.15] = np.nan
    return {"normal": rng.standard_normal(shape).astype(np.float32), "ties": ties,
            "nan": with_nan, "infinities": rng.choice(np.float32([-np.inf, np.inf, 0, 1]), shape)}


@pytest.mark.parametrize("size, output_size", [((28, 28), (7, 7)), ((30, 30), (7, 7)), ((5, 7), (7, 5)),
                                               ((13, 4), (3, 4)), ((1, 9), (1, 2)), ((9, 9), (None, 4))])
def test_adaptive_max_pool_picks_pytorchs_position(size, output_size):
    """The first maximum in row-major order, or the last NaN (PyTorch's ``val > max || isnan(val)``
    scan); windows that overlap (a size the output does not divide) add their gradients."""
    rng = np.random.default_rng(sum(size))
    for kind, data in _pool_inputs(rng, (2, 3) + size).items():
        for batched in (True, False):
            array = data if batched else data[0]
            ours = nnref.tensor(array, requires_grad=True)
            theirs = torch.tensor(array, requires_grad=True)
            v_ours, i_ours = nnref.nn.functional.adaptive_max_pool2d(ours, output_size, True)
            v_theirs, i_theirs = torch.nn.functional.adaptive_max_pool2d(theirs, output_size, True)
            np.testing.assert_array_equal(v_ours.detach().numpy(), v_theirs.detach().numpy(), err_msg=kind)
            np.testing.assert_array_equal(i_ours.numpy(), i_theirs.numpy(), err_msg=kind)
            upstream = rng.standard_normal(tuple(v_theirs.shape)).astype(np.float32)
            v_ours.backward(nnref.tensor(upstream))
            v_theirs.backward(torch.tensor(upstream))
            np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-6, atol=1e-6,
                                       err_msg=kind)


def test_adaptive_max_pool_empty_outputs_and_integer_inputs_as_pytorch():
    for shape, output_size in (((0, 3, 5, 5), (2, 2)), ((2, 3, 5, 5), (0, 2)), ((3, 5, 5), (2, 0))):
        values, indices = nnref.nn.functional.adaptive_max_pool2d(nnref.zeros(shape), output_size, True)
        expected = torch.nn.functional.adaptive_max_pool2d(torch.zeros(shape), output_size, True)
        assert tuple(values.shape) == tuple(expected[0].shape)
        assert tuple(indices.shape) == tuple(expected[1].shape) and indices.dtype == nnref.int64
    with pytest.raises(NotImplementedError, match="\"adaptive_max_pool2d\" not implemented for 'Long'"):
        nnref.nn.functional.adaptive_max_pool2d(nnref.ones(1, 2, 4, 4, dtype=nnref.int64), 2)
    with pytest.raises(NotImplementedError, match="\"adaptive_max_pool2d\" not implemented for 'Long'"):
        torch.nn.functional.adaptive_max_pool2d(torch.ones(1, 2, 4, 4, dtype=torch.int64), 2)


@pytest.mark.parametrize("args", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                  dict(kernel_size=3, stride=1), dict(kernel_size=(2, 3), stride=(1, 2),
                                                                      padding=(1, 1), dilation=(2, 1)),
                                  dict(kernel_size=3, stride=2, ceil_mode=True)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool_picks_pytorchs_element_with_ties_signed_zeros_and_nans(args, dtype):
    """The running maximum over kernel offsets gives PyTorch's value bit for bit (the sign of a
    zero included) and its index: the first maximum, or the last NaN."""
    rng = np.random.default_rng(3)
    pool = np.array([0.0, -0.0, 1.0, -1.0, np.nan], dtype=dtype)
    x = rng.choice(pool, size=(2, 3, 13, 14), p=[0.35, 0.35, 0.1, 0.1, 0.1])
    results = []
    for fw in (torch, nnref):
        t = fw.tensor(x, requires_grad=True)
        values, indices = fw.nn.functional.max_pool2d(t, return_indices=True, **args)
        (grad,) = fw.autograd.grad(values, t, fw.ones(tuple(values.shape), dtype=values.dtype))
        results.append((values.detach().numpy(), indices.numpy(), grad.numpy()))
    (tv, ti, tg), (nv, ni, ng) = results
    np.testing.assert_array_equal(np.signbit(nv), np.signbit(tv))
    np.testing.assert_array_equal(nv, tv)  # NaN positions must agree too
    np.testing.assert_array_equal(ni, ti)
    np.testing.assert_array_equal(ng, tg)


def test_float32_gelu_follows_pytorchs_erf_over_blocks_and_strides():
    """float32 GELU runs PyTorch's erf formula block by block: an input of several blocks, seen
    through a transpose, matches PyTorch's values and gradient, and far in the negative tail both
    round Phi to 0, so GELU is -0.0 there as in PyTorch (a tail formula would give -1e-23)."""
    rng = np.random.default_rng(5)
    data = (rng.standard_normal((300, 1100)) * 4).astype(np.float32)
    data[0, :4] = [-6.0, -10.0, -20.0, -1e30]
    upstream = rng.standard_normal((1100, 300)).astype(np.float32)
    results = []
    for lib in (nnref, torch):
        x = lib.tensor(data, requires_grad=True)
        y = lib.nn.functional.gelu(x.t())
        y.backward(lib.tensor(upstream))
        results.append((y.detach().numpy(), x.grad.numpy()))
    (y_ours, g_ours), (y_theirs, g_theirs) = results
    np.testing.assert_allclose(y_ours, y_theirs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g_ours, g_theirs, rtol=1e-5, atol=1e-6)
    tail = y_theirs[:4, 0]
    assert np.all(tail == 0) and np.all(np.signbit(tail))
    np.testing.assert_array_equal(np.signbit(y_ours[:4, 0]), np.signbit(tail))
    np.testing.assert_array_equal(y_ours[:4, 0], tail)


@pytest.mark.parametrize("size, output_size", [((30, 30), (7, 7)), ((5, 7), (7, 5)), ((13, 4), (3, 4)),
                                               ((8, 8), (3, 3)), ((1, 9), (1, 2))])
@pytest.mark.parametrize("upstream_kind", ["finite", "with infinities"])
def test_adaptive_avg_pool_with_infinities_and_nan_is_pytorchs_bit_for_bit(size, output_size, upstream_kind):
    """An infinity or NaN stays in the windows that contain it (a 0/1 coverage product would
    spread NaN across its row and column of windows, 0 * inf); such sums run in PyTorch's order,
    so values, and gradients from an upstream gradient with infinities, match its bits,
    overlapping windows included (a finite upstream gradient takes the products: to rounding)."""
    rng = np.random.default_rng(sum(size))
    pool = np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, -1.5, 2.25, 0.5, 1.0, 3.0], np.float32)
    data = rng.choice(pool, (2, 3) + size, p=[.1, .1, .02, .02, .02, .2, .2, .1, .1, .14])
    upstream = rng.standard_normal((2, 3) + tuple(output_size)).astype(np.float32)
    if upstream_kind != "finite":
        upstream.reshape(-1)[::5] = np.inf
    results = []
    for lib in (torch, nnref):
        x = lib.tensor(data, requires_grad=True)
        with np.errstate(all="ignore"):
            y = lib.nn.functional.adaptive_avg_pool2d(x, output_size)
            y.backward(lib.tensor(upstream))
        results.append((y.detach().numpy(), x.grad.numpy()))
    for exact, theirs, ours in zip((True, upstream_kind != "finite"), *results):
        nan = np.isnan(theirs)
        np.testing.assert_array_equal(np.isnan(ours), nan)
        if exact:
            np.testing.assert_array_equal(ours[~nan].view(np.int32), theirs[~nan].view(np.int32))
        else:
            np.testing.assert_allclose(ours[~nan], theirs[~nan], rtol=1e-6, atol=1e-7)

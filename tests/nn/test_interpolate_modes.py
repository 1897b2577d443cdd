"""F.interpolate's linear modes (linear, bilinear, trilinear), nearest-exact, nearest in 3-d and
area, nn.Upsample and nn.UpsamplingBilinear2d, against PyTorch: values, gradients, second
derivatives, grad_fn names, dtypes and errors.

float32 results are PyTorch's to the bit where PyTorch runs its generic kernel (1-d, 3-d, and 2-d
outputs with H + W > 128); its 2-d kernel for small outputs sums the four corners in another
order, so those are compared to a few ulps. Gradients are sums in another order: a few ulps.
"""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)

MODES = {3: "linear", 4: "bilinear", 5: "trilinear"}
TOLERANCE = {"float64": 1e-12, "float32": 2e-6, "float16": 2e-3}


def _run(m, values, dtype, call):
    x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
    y = call(m, x)
    weights = m.tensor(np.linspace(-1.0, 1.0, y.numel()).reshape(tuple(y.shape)), dtype=y.dtype)
    y.backward(weights)
    return (y.detach().float().numpy(), x.grad.float().numpy(), type(y.grad_fn).__name__, str(y.dtype),
            tuple(y.shape))


def _compare(values, dtype, call, exact=False):
    theirs = _run(torch, values, dtype, call)
    ours = _run(nnref, values, dtype, call)
    assert ours[2:] == theirs[2:]
    scale = max(1.0, float(np.abs(theirs[0]).max()))
    if exact:
        np.testing.assert_array_equal(ours[0], theirs[0])
    else:
        np.testing.assert_allclose(ours[0], theirs[0], rtol=0, atol=TOLERANCE[dtype] * scale)
    gscale = max(1.0, float(np.abs(theirs[1]).max()))
    np.testing.assert_allclose(ours[1], theirs[1], rtol=0, atol=TOLERANCE[dtype] * gscale * 2)


SHAPES = [  # (input shape, size or None, scale_factor or None)
    ((2, 3, 5), 8, None), ((2, 3, 5), 3, None), ((1, 1, 1), 4, None), ((2, 1, 6), 1, None), ((2, 3, 7), 7, None),
    ((2, 3, 5), None, 1.7), ((2, 3, 9), None, 0.45), ((1, 2, 4), None, 2), ((1, 2, 4), None, 3.3),
    ((2, 3, 4, 5), (7, 3), None), ((1, 2, 1, 1), (3, 4), None), ((2, 2, 5, 6), None, (1.5, 0.7)),
    ((1, 3, 70, 60), None, 1.3), ((2, 1, 3, 4), None, 2.0), ((1, 2, 80, 9), (100, 50), None),
    ((2, 2, 3, 4, 5), (4, 2, 7), None), ((1, 2, 2, 3, 4), None, (1.5, 0.7, 2.0)), ((1, 1, 1, 2, 1), None, 3),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape,size,scale", SHAPES)
def test_linear_modes_match_pytorch(shape, size, scale, align_corners, dtype):
    values = np.random.default_rng(len(shape) + sum(shape)).standard_normal(shape)
    mode = MODES[len(shape)]

    def call(m, x):
        return m.nn.functional.interpolate(x, size=size, scale_factor=scale, mode=mode, align_corners=align_corners)
    # Bit-for-bit where PyTorch runs its generic kernel (see the module docstring).
    generic = len(shape) != 4 or sum(call(torch, torch.zeros(shape)).shape[2:]) > 128
    _compare(values, dtype, call, exact=generic and dtype == "float32")


@pytest.mark.parametrize("recompute", [None, False, True])
@pytest.mark.parametrize("scale", [1.7, 0.6, 2.5, (1.3, 2.2)])
def test_scale_factor_sets_the_source_positions_unless_recomputed(scale, recompute):
    values = np.random.default_rng(1).standard_normal((2, 3, 6, 7))

    def call(m, x):
        return m.nn.functional.interpolate(x, scale_factor=scale, mode="bilinear", recompute_scale_factor=recompute)
    _compare(values, "float32", call)


@pytest.mark.parametrize("mode,shape", [("nearest-exact", (2, 3, 5)), ("nearest-exact", (2, 3, 5, 6)),
                                        ("nearest-exact", (1, 2, 3, 4, 5)), ("nearest", (1, 2, 3, 4, 5)),
                                        ("area", (2, 3, 7)), ("area", (2, 3, 7, 9))])
@pytest.mark.parametrize("how", [{"scale_factor": 1.7}, {"scale_factor": 0.6}, {"size": 4}])
def test_nearest_exact_nearest_3d_and_area_match_pytorch(mode, shape, how):
    values = np.random.default_rng(2).standard_normal(shape)
    how = dict(how)
    if "size" in how and len(shape) > 3:
        how["size"] = (4,) * (len(shape) - 2)

    def call(m, x):
        return m.nn.functional.interpolate(x, mode=mode, **how)
    _compare(values, "float32", call)


@pytest.mark.parametrize("shape,size", [((2, 3, 5), 8), ((2, 2, 4, 5), (7, 3)), ((1, 2, 2, 3, 4), (3, 5, 2))])
@pytest.mark.parametrize("align_corners", [False, True])
def test_second_derivatives_and_backward_nodes_match_pytorch(shape, size, align_corners):
    values = np.random.default_rng(3).standard_normal(shape)
    results = []
    for m in (torch, nnref):
        x = m.tensor(values, requires_grad=True)
        y = m.nn.functional.interpolate(x, size=size, mode=MODES[len(shape)], align_corners=align_corners)
        (first,) = m.autograd.grad((y * y * 1.5).sum(), x, create_graph=True)
        (second,) = m.autograd.grad((first * first).sum(), x)
        v = m.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)), requires_grad=True)
        (vjp,) = m.autograd.grad(y, x, v, create_graph=True)
        (back,) = m.autograd.grad((vjp * vjp).sum(), v)
        results.append([first.detach().numpy(), second.numpy(), back.numpy(), type(vjp.grad_fn).__name__])
    theirs, ours = results
    assert ours[3] == theirs[3]
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_gradcheck_and_gradgradcheck():
    x = nnref.tensor(np.random.default_rng(4).standard_normal((1, 2, 3, 4)), requires_grad=True)

    def f(t):
        return nnref.nn.functional.interpolate(t, scale_factor=1.6, mode="bilinear", align_corners=False)
    assert nnref.autograd.gradcheck(f, (x,))
    assert nnref.autograd.gradgradcheck(f, (x,))


def test_infinities_spread_as_pytorchs():
    inf = float("inf")
    for size in (2, 3):
        ours = nnref.nn.functional.interpolate(nnref.tensor([[[inf, 1.0]]]), size=size, mode="linear")
        theirs = torch.nn.functional.interpolate(torch.tensor([[[inf, 1.0]]]), size=size, mode="linear")
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def _outcome(m, call):
    try:
        out = call(m)
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return type(exc).__name__, str(exc).split("; convert the input")[0]  # nnref adds a hint
    return repr(out) if isinstance(out, m.nn.Module) else tuple(out.shape)


ERRORS = {
    "align_corners_with_nearest": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), size=3, align_corners=True),
    "align_corners_with_area": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), size=3, mode="area",
                                                                     align_corners=False),
    "size_and_scale": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), size=3, scale_factor=2, mode="linear"),
    "neither": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), mode="linear"),
    "bilinear_on_3d": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), size=3, mode="bilinear"),
    "linear_on_4d": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4, 4), size=3, mode="linear"),
    "trilinear_on_4d": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4, 4), size=3, mode="trilinear"),
    "bilinear_on_5d": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 2, 4, 4), size=3, mode="bilinear"),
    "two_d_input": lambda m: m.nn.functional.interpolate(m.zeros(1, 4), size=3, mode="linear"),
    "unknown_mode": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), size=3, mode="cubic"),
    "size_length": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), size=(3, 4), mode="linear"),
    "scale_length": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), scale_factor=(2.0, 3.0), mode="linear"),
    "recompute_with_size": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), size=3, mode="linear",
                                                                 recompute_scale_factor=True),
    "zero_output": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), scale_factor=0.1, mode="linear"),
    "zero_output_2d": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 3, 4), scale_factor=0.2, mode="bilinear"),
    "zero_output_3d": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 2, 3, 4), size=(1, 0, 2), mode="trilinear"),
    "antialias_linear": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), size=3, mode="linear", antialias=True),
    "long_linear": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4, dtype=m.int64), size=3, mode="linear"),
    "int_bilinear": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 2, 4, dtype=m.int32), size=3,
                                                          mode="bilinear"),
    "long_trilinear": lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 2, 2, 4, dtype=m.int64), size=3,
                                                            mode="trilinear"),
    "empty_batch": lambda m: m.nn.functional.interpolate(m.zeros(0, 2, 3), scale_factor=2, mode="linear"),
    "upsample_repr": lambda m: m.nn.Upsample(scale_factor=2, mode="bilinear"),
    "upsample_tuple_repr": lambda m: m.nn.Upsample(scale_factor=(2, 3), mode="trilinear", align_corners=True),
    "upsample_zero_scale": lambda m: m.nn.Upsample(scale_factor=0),
    "upsample_size_repr": lambda m: m.nn.Upsample(size=(4, 5), mode="nearest-exact"),
    "bilinear2d_repr": lambda m: m.nn.UpsamplingBilinear2d(size=3),
    "bilinear2d_scale_repr": lambda m: m.nn.UpsamplingBilinear2d(scale_factor=2),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_shapes_and_reprs_are_pytorchs(name):
    assert _outcome(nnref, ERRORS[name]) == _outcome(torch, ERRORS[name])


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4, 4), size=3, mode="bilinear", antialias=True),
    lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4, 4), size=3, mode="bicubic"),
    lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 2, 4, 4), size=3, mode="area"),
    lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4, 4, dtype=m.uint8), size=3, mode="bilinear"),
])
def test_what_nnref_lacks_says_so(call):
    with pytest.raises(NotImplementedError, match="nnref"):
        call(nnref)


@pytest.mark.parametrize("build", [lambda m: m.nn.UpsamplingBilinear2d(scale_factor=2),
                                   lambda m: m.nn.UpsamplingBilinear2d(size=(5, 3)),
                                   lambda m: m.nn.Upsample(scale_factor=1.5, mode="bilinear"),
                                   lambda m: m.nn.Upsample(size=(3, 4, 5), mode="trilinear", align_corners=True)])
def test_upsampling_layers_match_pytorch(build):
    shape = (2, 3, 2, 3, 4) if "trilinear" in repr(build(torch)) else (2, 3, 4, 3)
    values = np.random.default_rng(5).standard_normal(shape)
    _compare(values, "float64", lambda m, x: build(m)(x))

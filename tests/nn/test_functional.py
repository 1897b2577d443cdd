"""``nnref.nn.functional`` against ``torch.nn.functional``: values, gradients, dtypes, graph nodes.

Every case runs the same call on the same random data in both libraries and
backpropagates the same upstream gradient, in float32 and float64.
"""
import warnings

import numpy as np
import pytest

import nnref
import nnref.nn.functional as F
from nnref._ops import native
from nn_compare import assert_close, backward_both, grad_fn_name, pair, raised, random_pair, rng  # noqa: F401

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)
TF = torch.nn.functional

DTYPES = [np.float32, np.float64]


def check(rng, dtype, shapes, ours, theirs, node=True):
    """Forward + backward of ``ours(*inputs)`` vs ``theirs(*inputs)``; compares every input's grad."""
    inputs = [random_pair(torch, rng, s, dtype) for s in shapes]
    out_ours = ours(*[a for a, _ in inputs])
    out_theirs = theirs(*[b for _, b in inputs])
    assert_close(out_ours, out_theirs, "forward")
    if node:
        assert grad_fn_name(out_ours) == grad_fn_name(out_theirs)
    backward_both(out_ours, out_theirs, torch, rng)
    for i, (a, b) in enumerate(inputs):
        assert_close(a.grad, b.grad, f"grad of input {i}")
    return out_ours, out_theirs


# -- activations -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh"])
def test_activations(rng, dtype, name):
    check(rng, dtype, [(4, 5)], getattr(F, name), getattr(torch, name))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family(rng, dtype, name, dim):
    check(rng, dtype, [(3, 4, 5)], lambda x: getattr(F, name)(x, dim),
          lambda x: getattr(TF, name)(x, dim))


def test_softmax_implicit_dim_warns_and_picks_pytorchs_dim(rng):
    for shape in [(5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)]:
        x_ours, x_theirs = random_pair(torch, rng, shape)
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            ours = F.softmax(x_ours)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = TF.softmax(x_theirs)
        assert_close(ours, theirs)


def test_relu_inplace_records_relu_node(rng):
    a_ours, a_theirs = random_pair(torch, rng, (3, 4))
    y_ours, y_theirs = a_ours * 1, a_theirs * 1
    assert F.relu(y_ours, inplace=True) is y_ours
    TF.relu(y_theirs, inplace=True)
    assert grad_fn_name(y_ours) == grad_fn_name(y_theirs) == "ReluBackward0"
    backward_both(y_ours, y_theirs, torch, rng)
    assert_close(a_ours.grad, a_theirs.grad)


def test_flatten(rng):
    check(rng, np.float32, [(2, 3, 4)], lambda x: F.flatten(x, 1), lambda x: torch.flatten(x, 1))


# -- dropout -----------------------------------------------------------------------------------
def test_dropout_scales_survivors_and_zeroes_about_p(rng):
    x = nnref.tensor(rng.uniform(1, 2, (200, 50)).astype(np.float32), requires_grad=True)
    y = F.dropout(x, 0.3)
    assert grad_fn_name(y) == "MulBackward0"  # what PyTorch records on the CPU
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(y.detach().numpy()[kept], x.detach().numpy()[kept] / 0.7, rtol=1e-6)
    assert abs(1 - kept.mean() - 0.3) < 0.02
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept / np.float32(0.7), rtol=1e-6)


def test_dropout_identity_cases_match_pytorch(rng):
    x, x_t = random_pair(torch, rng, (3, 4))
    assert F.dropout(x, 0.5, training=False) is x and TF.dropout(x_t, 0.5, training=False) is x_t
    assert F.dropout(x, 0.0) is x and TF.dropout(x_t, 0.0) is x_t
    zero, zero_t = F.dropout(x, 1.0), TF.dropout(x_t, 1.0)
    assert_close(zero, zero_t)
    assert grad_fn_name(zero) == grad_fn_name(zero_t) == "MulBackward0"


def test_dropout_inplace(rng):
    x = nnref.tensor(rng.standard_normal((50, 40)).astype(np.float32))
    before = x.numpy().copy()
    assert F.dropout(x, 0.5, inplace=True) is x
    kept = x.numpy() != 0
    np.testing.assert_allclose(x.numpy()[kept], before[kept] * 2, rtol=1e-6)


# -- convolution and pooling -------------------------------------------------------------------
CONV_CASES = [
    # (input shape, weight shape, kwargs)
    ((2, 3, 8, 8), (4, 3, 3, 3), dict(padding=1)),
    ((2, 4, 9, 7), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)),
    ((1, 3, 5, 5), (2, 3, 3, 3), dict(padding="same")),
    ((2, 4, 8, 8), (4, 1, 2, 2), dict(padding="same", dilation=2, groups=4)),
    ((3, 2, 6, 5), (5, 2, 1, 1), dict(stride=2)),
    ((2, 3, 7, 7), (4, 3, 7, 7), dict(padding="valid")),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x_shape, w_shape, kwargs", CONV_CASES)
def test_conv2d(rng, dtype, bias, x_shape, w_shape, kwargs):
    shapes = [x_shape, w_shape] + ([(w_shape[0],)] if bias else [])
    ours, theirs = check(rng, dtype, shapes, lambda *a: F.conv2d(*a, **kwargs),
                         lambda *a: TF.conv2d(*a, **kwargs))
    assert ours.grad_fn.name() == "ConvolutionBackward0"
    assert ours.is_contiguous()


def test_conv2d_unbatched_records_pytorchs_nodes(rng):
    ours, theirs = check(rng, np.float32, [(3, 6, 6), (2, 3, 3, 3)], F.conv2d, TF.conv2d)
    assert [n.name() for n, _ in ours.grad_fn.next_functions] == ["ConvolutionBackward0"]


def test_conv2d_next_functions_follow_inputs(rng):
    x, _ = random_pair(torch, rng, (1, 2, 4, 4), requires_grad=False)
    w, _ = random_pair(torch, rng, (3, 2, 3, 3))
    out = F.conv2d(x, w)
    assert [n is None for n, _ in out.grad_fn.next_functions] == [True, False, True]


MAX_POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True),
    dict(kernel_size=(3, 2), stride=1, ceil_mode=True),
    dict(kernel_size=2, stride=1),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", MAX_POOL_CASES)
def test_max_pool2d(rng, dtype, kwargs):
    check(rng, dtype, [(2, 3, 9, 8)], lambda x: F.max_pool2d(x, **kwargs),
          lambda x: TF.max_pool2d(x, **kwargs))
    x, x_t = random_pair(torch, rng, (2, 3, 9, 8), dtype)
    _, indices = F.max_pool2d(x, return_indices=True, **kwargs)
    _, indices_t = TF.max_pool2d(x_t, return_indices=True, **kwargs)
    assert indices.dtype == nnref.int64
    np.testing.assert_array_equal(indices.numpy(), indices_t.numpy())


def test_max_pool2d_unbatched_and_ties(rng):
    check(rng, np.float32, [(3, 6, 6)], lambda x: F.max_pool2d(x, 2), lambda x: TF.max_pool2d(x, 2))
    # Equal values: both pick the first maximum of each window.
    x, x_t = pair(torch, np.ones((1, 1, 4, 4), np.float32), requires_grad=True)
    out, out_t = F.max_pool2d(x, 2), TF.max_pool2d(x_t, 2)
    backward_both(out, out_t, torch, rng)
    assert_close(x.grad, x_t.grad)


@pytest.mark.parametrize("kwargs", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1)])
def test_max_pool2d_nans_and_ties_pick_what_pytorch_picks(rng, kwargs):
    """Ties keep the first maximum; a NaN wins over numbers and over an earlier NaN (PyTorch's rule)."""
    values = rng.standard_normal((2, 2, 6, 6)).astype(np.float32)
    values[0, 0, 0, :3] = values[0, 0, 1, 0] = np.nan
    values[1, 1] = 0
    x, x_t = pair(torch, values, requires_grad=True)
    (out, indices), (out_t, indices_t) = (F.max_pool2d(x, return_indices=True, **kwargs),
                                          TF.max_pool2d(x_t, return_indices=True, **kwargs))
    np.testing.assert_array_equal(out.detach().numpy(), out_t.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), indices_t.numpy())
    backward_both(out, out_t, torch, rng)
    assert_close(x.grad, x_t.grad)


# -- normalisation and embedding ---------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (4, 3, 5, 6)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(rng, dtype, shape, training):
    stats = rng.standard_normal(3).astype(dtype), rng.uniform(0.5, 2, 3).astype(dtype)
    mean, mean_t = pair(torch, stats[0])
    var, var_t = pair(torch, stats[1])
    check(rng, dtype, [shape, (3,), (3,)],
          lambda x, w, b: F.batch_norm(x, mean, var, w, b, training, 0.3, 1e-3),
          lambda x, w, b: TF.batch_norm(x, mean_t, var_t, w, b, training, 0.3, 1e-3))
    assert_close(mean, mean_t, "running_mean")
    assert_close(var, var_t, "running_var")


def test_batch_norm_without_running_stats_or_affine(rng):
    check(rng, np.float64, [(5, 3, 4)], lambda x: F.batch_norm(x, None, None, training=True),
          lambda x: TF.batch_norm(x, None, None, training=True))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("normalized_shape", [(8,), (3, 8)])
def test_layer_norm(rng, dtype, normalized_shape):
    check(rng, dtype, [(4, 3, 8), normalized_shape, normalized_shape],
          lambda x, w, b: F.layer_norm(x, normalized_shape, w, b),
          lambda x, w, b: TF.layer_norm(x, normalized_shape, w, b))
    check(rng, dtype, [(4, 3, 8)], lambda x: F.layer_norm(x, normalized_shape, eps=1e-2),
          lambda x: TF.layer_norm(x, normalized_shape, eps=1e-2))


@pytest.mark.parametrize("kwargs", [{}, dict(padding_idx=2), dict(scale_grad_by_freq=True),
                                    dict(padding_idx=-1, scale_grad_by_freq=True)])
def test_embedding(rng, kwargs):
    indices = rng.integers(0, 10, (4, 5))
    idx, idx_t = pair(torch, indices)
    check(rng, np.float32, [(10, 3)], lambda w: F.embedding(idx, w, **kwargs),
          lambda w: TF.embedding(idx_t, w, **kwargs))


def test_embedding_max_norm_renormalises_rows_in_place(rng):
    weight = rng.standard_normal((10, 3)).astype(np.float32) * 3
    w, w_t = pair(torch, weight)
    idx, idx_t = pair(torch, np.array([[1, 2, 2], [7, 0, 1]]))
    assert_close(F.embedding(idx, w, max_norm=1.0), TF.embedding(idx_t, w_t, max_norm=1.0))
    assert_close(w, w_t, "renormalised weight")


# -- errors ------------------------------------------------------------------------------------
ERROR_CASES = {
    "conv2d 2-D input": lambda T, F: F.conv2d(T.randn(4, 3), T.randn(2, 3, 3, 3)),
    "conv2d channels": lambda T, F: F.conv2d(T.randn(1, 4, 5, 5), T.randn(2, 3, 3, 3)),
    "conv2d kernel too big": lambda T, F: F.conv2d(T.randn(1, 3, 2, 2), T.randn(2, 3, 3, 3)),
    "conv2d dtype": lambda T, F: F.conv2d(T.randn(1, 3, 5, 5, dtype=T.float64), T.randn(2, 3, 3, 3)),
    "conv2d same strided": lambda T, F: F.conv2d(T.randn(1, 3, 5, 5), T.randn(2, 3, 3, 3), stride=2,
                                                 padding="same"),
    "conv2d bias size": lambda T, F: F.conv2d(T.randn(1, 3, 5, 5), T.randn(2, 3, 3, 3), T.randn(3)),
    "max_pool2d 1-D": lambda T, F: F.max_pool2d(T.randn(4), 2),
    "max_pool2d too small": lambda T, F: F.max_pool2d(T.randn(4, 1, 1), 2),
    "max_pool2d padding": lambda T, F: F.max_pool2d(T.randn(1, 4, 4), 3, padding=2),
    "batch_norm one value": lambda T, F: F.batch_norm(T.randn(1, 3), None, None, training=True),
    "batch_norm channels": lambda T, F: F.batch_norm(T.randn(2, 5), T.zeros(3), T.ones(3)),
    "layer_norm shape": lambda T, F: F.layer_norm(T.randn(2, 7), (8,)),
    "embedding float": lambda T, F: F.embedding(T.tensor([1.0]), T.randn(3, 2)),
    "embedding range": lambda T, F: F.embedding(T.tensor([3]), T.randn(3, 2)),
    "dropout p": lambda T, F: F.dropout(T.randn(2), 1.5),
    "softmax dim": lambda T, F: F.softmax(T.randn(2, 3), 2),
}


@pytest.mark.parametrize("name", ERROR_CASES)
def test_errors_have_pytorchs_type(name):
    case = ERROR_CASES[name]
    ours, theirs = raised(lambda: case(nnref, F)), raised(lambda: case(torch, TF))
    assert theirs is not None and ours is theirs, f"{name}: nnref raised {ours}, PyTorch {theirs}"


def test_conv2d_double_backward_of_input_grad_matches_pytorch(rng):
    """``autograd.grad(conv2d(x, w).sum(), x, create_graph=True)`` depends on ``w``: a graph, not a constant."""
    (x, xt), (w, wt) = random_pair(torch, rng, (2, 3, 6, 6)), random_pair(torch, rng, (4, 3, 3, 3))
    (g,) = nnref.autograd.grad(F.conv2d(x, w).sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(TF.conv2d(xt, wt).sum(), xt, create_graph=True)
    assert_close(g, gt, "grad_input")
    assert g.grad_fn.name() == gt.grad_fn.name() == "ConvolutionBackwardBackward0"
    (g * g).sum().backward()
    (gt * gt).sum().backward()
    assert_close(w.grad, wt.grad, "d |grad_input|^2 / d weight")
    assert x.grad is None and xt.grad is None  # the input gradient of a sum does not depend on x


CONV1D_CASES = [
    # (input shape, weight shape, kwargs)
    ((2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    ((2, 3, 8), (4, 3, 3), dict(padding="same", dilation=2)),
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("conv, x_shape, w_shape, kwargs", [("conv2d",) + case for case in CONV_CASES]
                         + [("conv1d",) + case for case in CONV1D_CASES])
def test_conv_gradient_penalty_matches_pytorch(rng, bias, conv, x_shape, w_shape, kwargs):
    """A WGAN-GP style penalty: the gradients of |d loss/d (x, w)|^2 through every conv geometry."""
    shapes = [x_shape, w_shape] + ([(w_shape[0],)] if bias else [])
    inputs = [random_pair(torch, rng, s, np.float64) for s in shapes]
    penalties = []
    for lib, fn, args in ((nnref, F, [a for a, _ in inputs]), (torch, TF, [b for _, b in inputs])):
        loss = getattr(fn, conv)(*args, **kwargs).tanh().sum()
        gx, gw = lib.autograd.grad(loss, args[:2], create_graph=True)
        penalty = (gx * gx).sum() + (gw * gw).sum()
        penalty.backward()
        penalties.append(penalty)
    assert_close(*penalties, "penalty")
    for i, (a, b) in enumerate(inputs):
        assert_close(a.grad, b.grad, f"penalty's grad of input {i}")


def test_conv1d_in_several_sample_blocks_matches_pytorch(rng, monkeypatch):
    """A batch whose columns outgrow ``_CONV1D_BLOCK_BYTES`` is convolved a block of samples at a time."""
    monkeypatch.setattr(native, "_CONV1D_BLOCK_BYTES", 500)  # 240 bytes of columns a sample: blocks of 2, 1
    kwargs = dict(stride=2, padding=1, groups=2)
    check(rng, np.float32, [(3, 4, 10), (6, 2, 3), (6,)], lambda x, w, b: F.conv1d(x, w, b, **kwargs),
          lambda x, w, b: TF.conv1d(x, w, b, **kwargs))


def test_conv2d_second_and_third_derivatives_match_finite_differences(rng):
    """gradcheck of the conv's gradients (so of ConvolutionBackwardBackward0) and of their gradients."""
    x = nnref.tensor(rng.standard_normal((2, 4, 5, 6)), requires_grad=True)
    w = nnref.tensor(rng.standard_normal((4, 2, 3, 2)), requires_grad=True)
    b = nnref.tensor(rng.standard_normal(4), requires_grad=True)
    kwargs = dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)

    def gradients(x, w, b):
        out = F.conv2d(x, w, b, **kwargs)
        return nnref.autograd.grad((out * out).sum(), (x, w, b), create_graph=True)

    def penalty_gradients(x, w, b):
        gx, gw, gb = gradients(x, w, b)
        penalty = (gx * gx).sum() + (gw * gw).sum() + (gb * gb).sum()
        return nnref.autograd.grad(penalty, (x, w, b), create_graph=True)

    assert nnref.autograd.gradcheck(gradients, (x, w, b))
    assert nnref.autograd.gradcheck(penalty_gradients, (x, w, b))


HALF_CASES = {
    "conv2d": lambda T, F, x: F.conv2d(x, T.ones(2, 3, 3, 3, dtype=x.dtype), padding=1),
    "max_pool2d": lambda T, F, x: F.max_pool2d(x, 2),
    "batch_norm": lambda T, F, x: F.batch_norm(x, None, None, training=True),
    "layer_norm": lambda T, F, x: F.layer_norm(x, (6,)),
    "cross_entropy": lambda T, F, x: F.cross_entropy(x.reshape(2, -1), T.tensor([0, 1])),
    "mse_loss": lambda T, F, x: F.mse_loss(x, x.detach() * 0),
    "bce_with_logits": lambda T, F, x: F.binary_cross_entropy_with_logits(x, x.detach() * 0),
    "embedding": lambda T, F, x: F.embedding(T.tensor([1, 0, 1]), x.reshape(12, -1)),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", HALF_CASES)
def test_half_precision_keeps_the_dtype_and_computes_in_float32(rng, dtype, name):
    """16-bit inputs give 16-bit outputs and gradients, within a rounding step of PyTorch's."""
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    results = []
    for lib, functional in [(nnref, F), (torch, TF)]:
        t = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
        out = HALF_CASES[name](lib, functional, t)
        out.backward(lib.ones_like(out))
        assert str(out.dtype).endswith(dtype) and str(t.grad.dtype).endswith(dtype)
        results.append((out.detach().float().numpy(), t.grad.float().numpy()))
    (out, grad), (out_t, grad_t) = results
    np.testing.assert_allclose(out, out_t, rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(grad, grad_t, rtol=2e-2, atol=5e-2)

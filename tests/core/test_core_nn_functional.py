"""The teaching core's plain ``nn.functional`` (``nnref/core/nn/functional.py``) against PyTorch.

Under ``import nnref`` each core function hands its arguments to the mirror's exact version (the
``exact`` seam); here the seam is emptied for the duration of a test, so the core's own numpy
forwards and nodes run, and their values, gradients and node names are compared with PyTorch's
at a tolerance (the core makes no promise about summation order).
"""
import numpy as np
import pytest

import nnref
from nnref.core import _seams
from nnref.core.nn import functional as core_F

torch = pytest.importorskip("torch")


@pytest.fixture
def plain_core():
    exact = core_F.exact
    _seams.install(core_F, "exact", {})
    yield core_F
    _seams.install(core_F, "exact", exact)


def pair(*shapes, seed=0, dtype=np.float32):
    """For each shape, an nnref leaf and a torch leaf holding the same random values."""
    rng = np.random.default_rng(seed)
    out = []
    for shape in shapes:
        values = rng.standard_normal(shape).astype(dtype)
        out.append((nnref.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)))
    return out


def check(ours, theirs, leaves, node):
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == node
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-5)
    upstream = np.random.default_rng(1).standard_normal(tuple(theirs.shape)).astype(np.float32)
    ours.backward(nnref.tensor(upstream))
    theirs.backward(torch.tensor(upstream))
    for mine, reference in leaves:
        np.testing.assert_allclose(mine.grad.numpy(), reference.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("stride, padding, bias", [(1, 0, True), (2, 1, True), ((1, 2), (2, 0), False)])
def test_conv2d(plain_core, stride, padding, bias):
    leaves = pair((2, 3, 7, 6), (4, 3, 3, 2), (4,))[:3 if bias else 2]
    ours = plain_core.conv2d(*[a for a, _ in leaves], stride=stride, padding=padding)
    theirs = torch.nn.functional.conv2d(*[b for _, b in leaves], stride=stride, padding=padding)
    check(ours, theirs, leaves, "ConvolutionBackward0")


@pytest.mark.parametrize("kernel, stride, padding", [(2, None, 0), (3, 2, 1), ((2, 3), (1, 2), (1, 1))])
def test_max_pool2d_and_its_indices(plain_core, kernel, stride, padding):
    leaves = pair((2, 3, 7, 8))
    (x, tx), = leaves
    ours, indices = plain_core.max_pool2d(x, kernel, stride, padding, return_indices=True)
    theirs, their_indices = torch.nn.functional.max_pool2d(tx, kernel, stride, padding, return_indices=True)
    assert indices.tolist() == their_indices.tolist()
    check(ours, theirs, leaves, "MaxPool2DWithIndicesBackward0")


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_and_its_running_statistics(plain_core, shape, training):
    leaves = pair(shape, (3,), (3,))
    (x, tx), (w, tw), (b, tb) = leaves
    stats = np.random.default_rng(2).uniform(0.5, 2.0, (2, 3)).astype(np.float32)
    ours_mean, ours_var = nnref.tensor(stats[0]), nnref.tensor(stats[1])
    their_mean, their_var = torch.tensor(stats[0]), torch.tensor(stats[1])
    ours = plain_core.batch_norm(x, ours_mean, ours_var, w, b, training, 0.1, 1e-5)
    theirs = torch.nn.functional.batch_norm(tx, their_mean, their_var, tw, tb, training, 0.1, 1e-5)
    np.testing.assert_allclose(ours_mean.numpy(), their_mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours_var.numpy(), their_var.numpy(), rtol=1e-6)
    check(ours, theirs, leaves, "NativeBatchNormBackward0")


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_and_cross_entropy(plain_core, reduction):
    leaves = pair((5, 4))
    (x, tx), = leaves
    target = [0, 3, -100, 1, 3]
    ours = plain_core.nll_loss(x, nnref.tensor(target), reduction=reduction)
    theirs = torch.nn.functional.nll_loss(tx, torch.tensor(target), reduction=reduction)
    check(ours, theirs, leaves, "NllLossBackward0")
    leaves = pair((5, 4), seed=3)
    (x, tx), = leaves
    ours = plain_core.cross_entropy(x, nnref.tensor(target), reduction=reduction)
    theirs = torch.nn.functional.cross_entropy(tx, torch.tensor(target), reduction=reduction)
    check(ours, theirs, leaves, "NllLossBackward0")


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_loss(plain_core, reduction):
    leaves = pair((3, 4), (3, 4))
    ours = plain_core.mse_loss(*[a for a, _ in leaves], reduction=reduction)
    theirs = torch.nn.functional.mse_loss(*[b for _, b in leaves], reduction=reduction)
    check(ours, theirs, leaves, "MseLossBackward0")


def test_linear_and_relu_are_tensor_ops(plain_core):
    leaves = pair((4, 3), (2, 3), (2,))
    ours = plain_core.relu(plain_core.linear(*[a for a, _ in leaves]))
    theirs = torch.relu(torch.nn.functional.linear(*[b for _, b in leaves]))
    check(ours, theirs, leaves, "ReluBackward0")


def test_dropout_scales_the_kept_values_and_draws_through_the_init_seam(plain_core):
    x = nnref.ones(2000)
    out = plain_core.dropout(x, 0.25).numpy()
    assert set(np.unique(out).tolist()) <= {0.0, np.float32(1 / 0.75)}
    assert 0.2 < (out == 0).mean() < 0.3  # 500 expected zeros; this misses with p < 1e-4
    assert plain_core.dropout(x, 0.25, training=False) is x
    assert (plain_core.dropout(x, 1.0).numpy() == 0).all()
    with pytest.raises(ValueError, match="between 0 and 1"):
        plain_core.dropout(x, 1.5)


def test_the_core_refuses_what_it_does_not_do(plain_core):
    x = nnref.ones(1, 1, 4, 4)
    with pytest.raises(NotImplementedError, match="import nnref"):
        plain_core.conv2d(x, nnref.ones(1, 1, 2, 2), dilation=2)
    with pytest.raises(NotImplementedError, match="import nnref"):
        plain_core.max_pool2d(x, 2, ceil_mode=True)
    with pytest.raises(NotImplementedError, match="import nnref"):
        plain_core.mse_loss(x, x, reduction="none")


def test_import_nnref_fills_the_seams_with_the_exact_versions():
    assert set(core_F.exact) == set(core_F.__all__)
    assert all(f.__module__ == "nnref.nn.functional" for f in core_F.exact.values())
    assert nnref.nn.functional.conv2d is core_F.conv2d
    x, w = nnref.ones(2, 3, requires_grad=True), nnref.ones(4, 3)
    assert type(nnref.nn.functional.linear(x, w, nnref.ones(4)).grad_fn).__name__ == "AddmmBackward0"

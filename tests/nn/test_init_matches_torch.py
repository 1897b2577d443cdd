"""Every ``nn.init`` function and every layer's default initialisation gives PyTorch's values
after the same ``manual_seed``, for float32 and float64, without copying any weight."""
import math

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)

INITS = [("uniform_", {}), ("uniform_", {"a": -0.2, "b": 0.7}), ("normal_", {}),
         ("normal_", {"mean": 0.3, "std": 0.02}), ("xavier_uniform_", {}),
         ("xavier_uniform_", {"gain": 5 / 3}), ("xavier_normal_", {}), ("kaiming_uniform_", {}),
         ("kaiming_uniform_", {"a": math.sqrt(5)}), ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
         ("kaiming_normal_", {}), ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}),
         ("trunc_normal_", {}), ("trunc_normal_", {"std": 0.02}),
         ("trunc_normal_", {"mean": 0.3, "a": -0.5, "b": 0.5}),  # narrow: the uniform-proposal path
         ("trunc_normal_", {"mean": 1.0, "std": 0.5, "a": 0.9, "b": 3.0}),
         ("sparse_", {"sparsity": 0.4}), ("eye_", {}), ("dirac_", {}), ("dirac_", {"groups": 2})]
SHAPES = [(30, 20), (8, 3, 3, 3), (5, 7)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name, kwargs", INITS)
def test_init_functions_give_pytorchs_values(name, kwargs, shape, dtype):
    if name == "sparse_" or name == "eye_":
        shape = shape[:2]
    if name == "dirac_" and len(shape) == 2:
        shape = (4, 6, 3)
    torch.manual_seed(7)
    nnref.manual_seed(7)
    expected = getattr(torch.nn.init, name)(torch.empty(shape, dtype=getattr(torch, dtype)), **kwargs)
    got = getattr(nnref.nn.init, name)(nnref.empty(shape, dtype=getattr(nnref, dtype)), **kwargs)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    # the same draws, in the same order: the global generator is where PyTorch's is
    np.testing.assert_array_equal(nnref.rand(4).numpy(), torch.rand(4).numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, gain", [((3, 5), 1), ((5, 3), 1), ((6, 2, 3), 2.0), ((4, 4), 0.5)])
def test_orthogonal_draws_pytorchs_normals_and_agrees_to_rounding(shape, gain, dtype):
    """The QR factorisation is numpy's LAPACK, not PyTorch's: equal to float rounding (the
    Differences page says so), the generator left where PyTorch leaves it."""
    torch.manual_seed(3)
    nnref.manual_seed(3)
    expected = torch.nn.init.orthogonal_(torch.empty(shape, dtype=getattr(torch, dtype)), gain=gain)
    got = nnref.nn.init.orthogonal_(nnref.empty(shape, dtype=getattr(nnref, dtype)), gain=gain)
    tolerance = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=0, atol=tolerance * 10 * gain)
    np.testing.assert_array_equal(nnref.rand(4).numpy(), torch.rand(4).numpy())
    flat = got.numpy().reshape(shape[0], -1) / gain
    small = min(flat.shape)
    gram = flat @ flat.T if flat.shape[0] == small else flat.T @ flat
    np.testing.assert_allclose(gram, np.eye(small), atol=tolerance * 10)


@pytest.mark.parametrize("old", ["uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
                                 "kaiming_uniform", "kaiming_normal"])
def test_deprecated_names_warn_and_fill_like_the_new_ones(old):
    args = (0.5,) if old == "constant" else ()
    torch.manual_seed(2)
    nnref.manual_seed(2)
    with pytest.warns(FutureWarning) as theirs:
        expected = getattr(torch.nn.init, old)(torch.empty(4, 3), *args)
    with pytest.warns(FutureWarning) as ours:
        got = getattr(nnref.nn.init, old)(nnref.empty(4, 3), *args)
    assert str(ours[0].message) == str(theirs[0].message)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("call", [
    lambda I, T: I.eye_(T.empty(2, 3, 4)), lambda I, T: I.dirac_(T.empty(3, 3)),
    lambda I, T: I.dirac_(T.empty(3, 2, 3), groups=2), lambda I, T: I.orthogonal_(T.empty(3)),
    lambda I, T: I.sparse_(T.empty(3, 3, 3), 0.1)])
def test_new_init_errors_are_pytorchs(call):
    with pytest.raises(ValueError) as theirs:
        call(torch.nn.init, torch)
    with pytest.raises(ValueError) as ours:
        call(nnref.nn.init, nnref)
    assert str(ours.value) == str(theirs.value)


def test_trunc_normal_warns_when_the_mean_is_far_from_the_bounds():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        nnref.nn.init.trunc_normal_(nnref.empty(20), mean=5.0, std=1.0, a=-1.0, b=1.0)


def test_init_with_a_generator():
    gt, gn = torch.Generator().manual_seed(1), nnref.Generator().manual_seed(1)
    expected = torch.nn.init.kaiming_normal_(torch.empty(20, 10), generator=gt)
    got = nnref.nn.init.kaiming_normal_(nnref.empty(20, 10), generator=gn)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


LAYERS = ["Linear(20, 30)", "Linear(7, 3, bias=False)", "Conv2d(3, 8, 3)", "Conv2d(4, 6, (3, 5), groups=2)",
          "Embedding(10, 4)", "LayerNorm(5)", "BatchNorm1d(4)", "BatchNorm2d(3)",
          "Sequential(Linear(784, 128), ReLU(), Linear(128, 10))"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layer", LAYERS)
def test_layers_start_from_pytorchs_weights(layer, dtype):
    def build(m):
        m.manual_seed(0)
        nn = m.nn
        module = eval(layer, {name: getattr(nn, name) for name in dir(nn)})
        return module.to(getattr(m, dtype))
    expected, got = build(torch).state_dict(), build(nnref).state_dict()
    assert list(expected) == list(got)
    for key in expected:
        np.testing.assert_array_equal(got[key].numpy(), expected[key].numpy(), err_msg=key)
    torch.manual_seed(0)
    nnref.manual_seed(0)
    build_kwargs = {"dtype": getattr(torch, dtype)}
    if layer.startswith("Linear(20"):  # built directly in float64 too (factory kwargs)
        a = torch.nn.Linear(20, 30, **build_kwargs)
        b = nnref.nn.Linear(20, 30, dtype=getattr(nnref, dtype))
        np.testing.assert_array_equal(b.weight.detach().numpy(), a.weight.detach().numpy())

"""Every ``nn.init`` function and every layer's default initialisation gives PyTorch's values
after the same ``manual_seed``, for float32 and float64, without copying any weight."""
import math

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

INITS = [("uniform_", {}), ("uniform_", {"a": -0.2, "b": 0.7}), ("normal_", {}),
         ("normal_", {"mean": 0.3, "std": 0.02}), ("xavier_uniform_", {}),
         ("xavier_uniform_", {"gain": 5 / 3}), ("xavier_normal_", {}), ("kaiming_uniform_", {}),
         ("kaiming_uniform_", {"a": math.sqrt(5)}), ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
         ("kaiming_normal_", {}), ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"})]
SHAPES = [(30, 20), (8, 3, 3, 3), (5, 7)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name, kwargs", INITS)
def test_init_functions_give_pytorchs_values(name, kwargs, shape, dtype):
    torch.manual_seed(7)
    nnref.manual_seed(7)
    expected = getattr(torch.nn.init, name)(torch.empty(shape, dtype=getattr(torch, dtype)), **kwargs)
    got = getattr(nnref.nn.init, name)(nnref.empty(shape, dtype=getattr(nnref, dtype)), **kwargs)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


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

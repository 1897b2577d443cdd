"""``nnref.nn.init`` and the layers' default initialisation: PyTorch's formulas, bounds and moments.

Values are checked statistically here: every sample inside the bound, and the
sample mean, variance and Kolmogorov-Smirnov distance consistent with the
distribution (test_init_matches_torch.py checks they are PyTorch's values).
"""
import math
import warnings

import numpy as np
import pytest

import nnref
from nnref import nn
from nnref.nn import init
from nn_compare import raised

torch = pytest.importorskip("torch")


def ks_distance_to_uniform(samples, low, high):
    """Largest gap between the empirical CDF and U(low, high)'s CDF."""
    x = np.sort((np.asarray(samples, np.float64) - low) / (high - low))
    n = x.size
    return max(np.max(np.arange(1, n + 1) / n - x), np.max(x - np.arange(n) / n))


def assert_uniform(samples, bound):
    samples = np.asarray(samples, np.float64).ravel()
    n = samples.size
    assert np.all(np.abs(samples) <= bound)
    assert abs(samples.mean()) < 5 * bound / math.sqrt(3 * n)  # 5 standard errors
    assert abs(samples.var() / (bound ** 2 / 3) - 1) < 5 * math.sqrt(0.8 / n)
    assert ks_distance_to_uniform(samples, -bound, bound) < 1.63 / math.sqrt(n)  # 1% level


def assert_normal(samples, std):
    samples = np.asarray(samples, np.float64).ravel()
    n = samples.size
    assert abs(samples.mean()) < 5 * std / math.sqrt(n)
    assert abs(samples.std() / std - 1) < 5 / math.sqrt(2 * n)


@pytest.mark.parametrize("nonlinearity, param", [
    ("linear", None), ("conv2d", None), ("conv_transpose3d", None), ("sigmoid", None),
    ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3),
    ("selu", None)])
def test_calculate_gain(nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == torch.nn.init.calculate_gain(nonlinearity, param)


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (8, 4, 3, 3), (2, 3, 1, 2, 2)])
def test_fan_in_and_fan_out(shape):
    assert (init._calculate_fan_in_and_fan_out(nnref.empty(*shape))
            == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape)))


ERROR_CASES = [
    lambda T, I: I._calculate_fan_in_and_fan_out(T.empty(3)),
    lambda T, I: I.xavier_uniform_(T.empty(3)),
    lambda T, I: I.kaiming_uniform_(T.empty(3, 4), mode="fan_middle"),
    lambda T, I: I.calculate_gain("swish"),
    lambda T, I: I.calculate_gain("leaky_relu", True),
]


@pytest.mark.parametrize("case", ERROR_CASES)
def test_errors_match_pytorch(case):
    theirs = raised(lambda: case(torch, torch.nn.init))
    assert theirs is ValueError and raised(lambda: case(nnref, init)) is theirs


def test_zero_element_tensor_warns_and_is_left_alone():
    for fn in (init.kaiming_uniform_, init.kaiming_normal_):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            fn(nnref.empty(0, 3))


def test_fills_parameters_in_place_without_recording():
    p = nn.Parameter(nnref.zeros(40, 50))
    version = p._version
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.xavier_normal_,
               init.kaiming_uniform_, init.kaiming_normal_, init.ones_, init.zeros_):
        assert fn(p) is p
        assert p.grad_fn is None and p.requires_grad
    init.constant_(p, 0.25)
    assert np.all(p.detach().numpy() == 0.25) and p._version > version


def test_distributions():
    nnref.manual_seed(0)
    shape = (64, 32, 3, 3)  # fan_in = 288, fan_out = 576
    fan_in, fan_out = 32 * 9, 64 * 9
    t = nnref.empty(*shape)
    assert_uniform(init.uniform_(t, -0.3, 0.3).numpy(), 0.3)
    assert_normal(init.normal_(t, 0.0, 0.2).numpy(), 0.2)
    assert_uniform(init.xavier_uniform_(t, gain=2.0).numpy(), 2.0 * math.sqrt(6 / (fan_in + fan_out)))
    assert_normal(init.xavier_normal_(t).numpy(), math.sqrt(2 / (fan_in + fan_out)))
    assert_uniform(init.kaiming_uniform_(t, nonlinearity="relu").numpy(), math.sqrt(6 / fan_in))
    assert_uniform(init.kaiming_uniform_(t, a=math.sqrt(5)).numpy(), 1 / math.sqrt(fan_in))
    assert_uniform(init.kaiming_uniform_(t, mode="fan_out", nonlinearity="tanh").numpy(),
                   5 / 3 * math.sqrt(3 / fan_out))
    assert_normal(init.kaiming_normal_(t, mode="fan_out").numpy(),
                  math.sqrt(2 / (1 + 0.01 ** 2)) / math.sqrt(fan_out))


def test_conv2d_default_init_is_pytorchs_distribution():
    """Many layers' weights and biases: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as PyTorch draws them."""
    nnref.manual_seed(1)
    in_channels, kernel = 6, (3, 2)
    bound = 1 / math.sqrt(in_channels // 2 * kernel[0] * kernel[1])
    layers = [nn.Conv2d(in_channels, 8, kernel, groups=2) for _ in range(100)]
    weights = np.concatenate([layer.weight.detach().numpy().ravel() for layer in layers])
    biases = np.concatenate([layer.bias.detach().numpy().ravel() for layer in layers])
    assert_uniform(weights, bound)
    assert_uniform(biases, bound)
    # PyTorch's own layers are drawn from the same range.
    theirs = np.concatenate([torch.nn.Conv2d(in_channels, 8, kernel, groups=2).weight.detach()
                             .numpy().ravel() for _ in range(100)])
    assert_uniform(theirs, bound)
    assert abs(weights.std() - theirs.std()) < 0.05 * bound


def test_other_layers_default_init():
    nnref.manual_seed(2)
    embedding = nn.Embedding(2000, 8, padding_idx=5)
    weights = embedding.weight.detach().numpy()
    assert np.all(weights[5] == 0)
    assert_normal(np.delete(weights, 5, axis=0), 1.0)
    for layer in (nn.BatchNorm1d(7), nn.BatchNorm2d(7), nn.LayerNorm(7)):
        assert np.all(layer.weight.detach().numpy() == 1)
        assert np.all(layer.bias.detach().numpy() == 0)
    bn = nn.BatchNorm2d(7)
    assert np.all(bn.running_mean.numpy() == 0) and np.all(bn.running_var.numpy() == 1)


def test_apply_init_weights_like_the_notes():
    """``model.apply(init_weights)``: the pattern the notes use to re-initialise layers."""
    def init_weights(m):
        if isinstance(m, (nn.Linear, nn.Conv2d)):
            nn.init.xavier_uniform_(m.weight)
            nn.init.zeros_(m.bias)

    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.apply(init_weights)
    assert np.all(model[0].bias.detach().numpy() == 0)
    bound = math.sqrt(6 / (8 + 3))
    assert np.all(np.abs(model[3].weight.detach().numpy()) <= bound)

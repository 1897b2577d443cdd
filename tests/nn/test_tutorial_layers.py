"""The layers, activations, losses and functionals the PyTorch tutorials use, against PyTorch:
values, gradients, dtypes, ``grad_fn`` names, reprs and errors."""
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

from nn_compare import assert_close, numpy_of  # noqa: E402


def _data(seed, shape, low=-2.0, high=2.0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, shape).astype(dtype)


def _both(array, requires_grad=True):
    return (nnref.tensor(array.copy(), requires_grad=requires_grad),
            torch.tensor(array.copy(), requires_grad=requires_grad))


def _check(fn, *arrays, grad_of=None, rtol=1e-5, atol=1e-6):
    """``fn(lib, *tensors)`` on both libraries: output, grad_fn name, and every input's gradient."""
    ours_in = [nnref.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]
    theirs_in = [torch.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]
    ours, theirs = fn(nnref, *ours_in), fn(torch, *theirs_in)
    assert_close(ours, theirs, "forward", rtol=rtol, atol=atol)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    weights = _data(99, tuple(theirs.shape))
    ours.backward(nnref.tensor(weights))
    theirs.backward(torch.tensor(weights))
    for i, (a, b) in enumerate(zip(ours_in, theirs_in)):
        if b.requires_grad:
            assert_close(a.grad, b.grad, f"grad of input {i}", rtol=rtol, atol=atol)
    return ours, theirs


ACTIVATIONS = [
    lambda lib, x: lib.nn.functional.gelu(x),
    lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"),
    lambda lib, x: lib.nn.functional.leaky_relu(x, 0.2),
    lambda lib, x: lib.nn.functional.silu(x),
    lambda lib, x: lib.nn.functional.elu(x, alpha=0.7),
    lambda lib, x: lib.nn.functional.softplus(x, beta=2.0, threshold=3.0),
    lambda lib, x: lib.nn.functional.hardtanh(x, -0.5, 1.5),
    lambda lib, x: lib.nn.GELU()(x),
    lambda lib, x: lib.nn.LeakyReLU()(x),
    lambda lib, x: lib.nn.SiLU()(x),
    lambda lib, x: lib.nn.ELU()(x),
    lambda lib, x: lib.nn.Softplus()(x),
    lambda lib, x: lib.nn.Hardtanh()(x),
    lambda lib, x: lib.nn.ReLU6()(x * 4),
    lambda lib, x: lib.nn.Softmax2d()(x),
]


@pytest.mark.parametrize("index", range(len(ACTIVATIONS)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_matches_pytorch(index, dtype):
    x = _data(index, (2, 3, 4, 5), -4, 4, dtype)
    x[0, 0, 0, :3] = [0.0, 25.0, -25.0]  # the kink, and beyond softplus' threshold
    _check(ACTIVATIONS[index], x, rtol=1e-5 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("name", ["leaky_relu", "elu", "hardtanh", "silu"])
def test_inplace_activation_records_pytorchs_node(name):
    def run(lib):
        x = lib.tensor(_data(1, (3, 4)), requires_grad=True)
        y = x * 1
        out = getattr(lib.nn.functional, name)(y, inplace=True)
        assert out is y
        out.sum().backward()
        return type(y.grad_fn).__name__, x.grad
    (our_name, our_grad), (their_name, their_grad) = run(nnref), run(torch)
    assert our_name == their_name
    assert_close(our_grad, their_grad)


def test_activation_reprs_match_pytorch():
    for build in (lambda nn: nn.GELU("tanh"), lambda nn: nn.LeakyReLU(0.2, True),
                  lambda nn: nn.SiLU(), lambda nn: nn.ELU(), lambda nn: nn.Softplus(),
                  lambda nn: nn.Hardtanh(0, 6), lambda nn: nn.ReLU6(), lambda nn: nn.Softmax2d()):
        assert repr(build(nnref.nn)) == repr(build(torch.nn))


def test_gelu_rejects_unknown_approximation_and_integers():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        nnref.nn.functional.gelu(nnref.ones(2), approximate="fast")
    with pytest.raises(NotImplementedError, match="Long"):
        nnref.nn.functional.gelu(nnref.tensor([1, 2]))


def test_activations_refuse_second_derivative_instead_of_lying():
    x = nnref.tensor([0.5, -1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="GeluBackward0 with numpy, so it cannot be differentiated again"):
        nnref.autograd.grad(nnref.nn.functional.gelu(x).sum(), x, create_graph=True)


# --------------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------------

POOLS = [
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 2),
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 3, stride=2, padding=1),
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 3, stride=2, ceil_mode=True),
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                                                count_include_pad=False),
    lambda lib, x: lib.nn.functional.avg_pool2d(x, (2, 3), stride=(1, 2), divisor_override=5),
    lambda lib, x: lib.nn.functional.avg_pool2d(x[0], 2),
    lambda lib, x: lib.nn.AvgPool2d(2)(x),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 1),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (3, 4)),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (None, 2)),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x[0], 4),
    lambda lib, x: lib.nn.AdaptiveAvgPool2d((1, 1))(x),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, (3, 4)),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, 2),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x[1], (4, 3)),
    lambda lib, x: lib.nn.AdaptiveMaxPool2d(3)(x),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 9),
]


@pytest.mark.parametrize("index", range(len(POOLS)))
def test_pooling_matches_pytorch(index):
    _check(POOLS[index], _data(index, (2, 3, 7, 6)))


def test_adaptive_max_pool_returns_pytorchs_indices():
    x = _data(5, (2, 3, 7, 6))
    ours = nnref.nn.functional.adaptive_max_pool2d(nnref.tensor(x), (3, 4), return_indices=True)
    theirs = torch.nn.functional.adaptive_max_pool2d(torch.tensor(x), (3, 4), return_indices=True)
    assert_close(ours[1], theirs[1])
    module = nnref.nn.AdaptiveMaxPool2d(2, return_indices=True)
    assert len(module(nnref.tensor(x))) == 2


def test_pooling_reprs_match_pytorch():
    for build in (lambda nn: nn.AvgPool2d(2), lambda nn: nn.AvgPool2d(3, 1, 1),
                  lambda nn: nn.AdaptiveAvgPool2d((1, 1)), lambda nn: nn.AdaptiveAvgPool2d(7),
                  lambda nn: nn.AdaptiveMaxPool2d(2)):
        assert repr(build(nnref.nn)) == repr(build(torch.nn))


@pytest.mark.parametrize("pool", [
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 3),
    lambda lib, x: lib.nn.AvgPool2d(3)(x),
    lambda lib, x: lib.nn.functional.max_pool2d(x, 3),
    lambda lib, x: lib.nn.MaxPool2d(3)(x)])
def test_pooling_window_larger_than_input_raises_pytorchs_error(pool):
    with pytest.raises(RuntimeError) as theirs:
        pool(torch, torch.zeros(1, 1, 2, 2))
    with pytest.raises(RuntimeError) as ours:
        pool(nnref, nnref.zeros(1, 1, 2, 2))
    assert "Output size is too small" in str(theirs.value)
    assert "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small" \
        in str(ours.value)


def test_pooling_argument_errors_match_pytorch():
    F = nnref.nn.functional
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.avg_pool2d(nnref.zeros(1, 1, 4, 4), 3, padding=2)
    with pytest.raises(RuntimeError, match=r"adaptive_avg_pool2d\(\): Expected 3D or 4D tensor, but got \[2, 2\]"):
        F.adaptive_avg_pool2d(nnref.zeros(2, 2), 1)
    with pytest.raises(RuntimeError, match=r"adaptive_max_pool2d\(\): Expected 3D or 4D tensor"):
        F.adaptive_max_pool2d(nnref.zeros(2, 2), 1)
    with pytest.raises(RuntimeError, match="stride should not be zero"):
        F.avg_pool2d(nnref.zeros(1, 1, 4, 4), 2, stride=0)


# --------------------------------------------------------------------------------------------
# Convolutions
# --------------------------------------------------------------------------------------------

CONVS = [
    (lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(x, w, b), (2, 4, 5, 5), (4, 3, 3, 3), 3),
    (lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                              output_padding=1), (2, 4, 5, 6), (4, 3, 3, 3), 3),
    (lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(x, w, b, stride=(2, 3), dilation=2,
                                                              groups=2), (2, 4, 4, 3), (4, 2, 2, 3), 4),
    (lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(x[0], w, b, stride=2), (2, 4, 3, 3), (4, 3, 2, 2), 3),
    (lambda lib, x, w, b: lib.nn.functional.conv1d(x, w, b), (2, 3, 9), (4, 3, 3), 4),
    (lambda lib, x, w, b: lib.nn.functional.conv1d(x, w, b, stride=2, padding=1, dilation=2), (2, 3, 9), (4, 3, 3), 4),
    (lambda lib, x, w, b: lib.nn.functional.conv1d(x, w, b, groups=3), (2, 6, 7), (3, 2, 2), 3),
    (lambda lib, x, w, b: lib.nn.functional.conv1d(x, w, b, padding="same"), (2, 3, 8), (4, 3, 4), 4),
    (lambda lib, x, w, b: lib.nn.functional.conv1d(x[0], w, b), (2, 3, 9), (4, 3, 3), 4),
    (lambda lib, x, w, b: lib.nn.functional.conv1d(x, w, b, stride=3, padding="valid"), (2, 3, 11), (4, 3, 2), 4),
]


@pytest.mark.parametrize("index", range(len(CONVS)))
def test_convolution_matches_pytorch(index):
    fn, x_shape, w_shape, channels = CONVS[index]
    _check(fn, _data(index, x_shape), _data(index + 10, w_shape), _data(index + 20, (channels,)),
           rtol=1e-4, atol=1e-5)


def test_conv_layers_match_pytorch_with_copied_weights():
    for ours, theirs, shape in [
            (nnref.nn.Conv1d(3, 4, 3, stride=2, padding=1), torch.nn.Conv1d(3, 4, 3, stride=2, padding=1), (2, 3, 10)),
            (nnref.nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
             torch.nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1), (2, 4, 5, 5))]:
        assert repr(ours) == repr(theirs)
        assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
            [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
        with nnref.no_grad():
            for k, v in theirs.state_dict().items():
                ours.state_dict()[k].copy_(nnref.tensor(numpy_of(v)))
        x = _data(3, shape)
        assert_close(ours(nnref.tensor(x)), theirs(torch.tensor(x)), rtol=1e-4, atol=1e-5)


def test_conv_transpose2d_output_size_picks_the_output_padding():
    layer = nnref.nn.ConvTranspose2d(4, 3, 3, stride=2)
    assert layer(nnref.zeros(1, 4, 5, 5), output_size=[12, 12]).shape == (1, 3, 12, 12)
    with pytest.raises(ValueError, match="requested an output size of"):
        layer(nnref.zeros(1, 4, 5, 5), output_size=[20, 20])


def test_convolution_errors_match_pytorch():
    F = nnref.nn.functional
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(nnref.zeros(1, 4, 3, 3), nnref.zeros(4, 3, 3, 3), stride=2, output_padding=2)
    with pytest.raises(RuntimeError, match=r"Given transposed=1, weight of size \[4, 3, 3, 3\], expected input\[2, 3, 5, 5\] to have 4 channels"):
        F.conv_transpose2d(nnref.zeros(2, 3, 5, 5), nnref.zeros(4, 3, 3, 3))
    with pytest.raises(RuntimeError, match="to have 2 channels, but got 3 channels instead"):
        F.conv1d(nnref.zeros(2, 3, 5), nnref.zeros(4, 2, 2))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        F.conv1d(nnref.zeros(2, 3, 1), nnref.zeros(4, 3, 2))


# --------------------------------------------------------------------------------------------
# Dropout
# --------------------------------------------------------------------------------------------

def test_feature_dropout_zeros_whole_channels_and_scales_the_rest():
    nnref.manual_seed(0)
    x = nnref.ones(8, 16, 3, 3)
    out = nnref.nn.Dropout2d(0.25)(x)
    per_channel = out._data.reshape(8, 16, 9)
    assert np.all((per_channel == 0).all(-1) | np.isclose(per_channel, 1 / 0.75).all(-1))
    assert 0 < (per_channel == 0).all(-1).sum() < 8 * 16
    out1 = nnref.nn.Dropout1d(0.5)(nnref.ones(4, 6, 5))
    assert np.all((out1._data == 0).all(-1) | (out1._data == 2).all(-1))
    layer = nnref.nn.Dropout2d()
    layer.eval()
    assert layer(x) is x
    assert repr(nnref.nn.Dropout2d(0.2)) == repr(torch.nn.Dropout2d(0.2))


def test_feature_dropout_errors_and_warnings_match_pytorch():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        nnref.nn.functional.dropout1d(nnref.ones(2, 3, 4, 5))
    for shape, text in [((3, 4, 5), "Received a 3D input to dropout2d"),
                        ((4, 5), "Received a 2-D input to dropout2d")]:
        with pytest.warns(UserWarning, match=text):
            nnref.nn.functional.dropout2d(nnref.ones(*shape))


# --------------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------------

LOSSES = [
    ("l1_loss", {}), ("l1_loss", {"reduction": "sum"}), ("l1_loss", {"reduction": "none"}),
    ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5, "reduction": "sum"}),
    ("smooth_l1_loss", {"beta": 0.0}), ("smooth_l1_loss", {"reduction": "none"}),
    ("huber_loss", {}), ("huber_loss", {"delta": 0.3, "reduction": "none"}),
    ("huber_loss", {"delta": 2.0, "reduction": "sum"}),
]


@pytest.mark.parametrize("name, options", LOSSES)
def test_regression_losses_match_pytorch(name, options):
    _check(lambda lib, x, y: getattr(lib.nn.functional, name)(x, y, **options),
           _data(1, (4, 5)), _data(2, (4, 5)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_matches_pytorch(reduction, weighted):
    p = _data(3, (4, 5), 0.0, 1.0)
    p[0, :2] = [0.0, 1.0]  # the logs clamp at -100
    y = _data(4, (4, 5), 0.0, 1.0)
    w = _data(5, (5,), 0.5, 2.0)

    def fn(lib, p, y):
        weight = lib.tensor(w) if weighted else None
        return lib.nn.functional.binary_cross_entropy(p, y, weight=weight, reduction=reduction)
    ours, theirs = _check(fn, p, y, rtol=1e-4)
    module = nnref.nn.BCELoss(reduction=reduction)(nnref.tensor(p), nnref.tensor(y))
    assert_close(module, torch.nn.BCELoss(reduction=reduction)(torch.tensor(p), torch.tensor(y)),
                 rtol=1e-4)


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "none", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_matches_pytorch(reduction, log_target):
    logp = np.log(_data(6, (3, 4), 0.05, 1.0))
    target = _data(7, (3, 4), 0.0, 1.0)
    target[0, 0] = 0.0
    if log_target:
        target = np.log(target + 0.1).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(lambda lib, x, y: lib.nn.functional.kl_div(x, y, reduction=reduction,
                                                          log_target=log_target), logp, target)
        _check(lambda lib, x, y: lib.nn.KLDivLoss(reduction=reduction, log_target=log_target)(x, y),
               logp, target)


def test_kl_div_mean_warns_as_pytorch():
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        nnref.nn.functional.kl_div(nnref.zeros(2, 2), nnref.ones(2, 2))


def test_loss_modules_match_pytorch():
    x, y = _data(8, (3, 4)), _data(9, (3, 4))
    for name in ["L1Loss", "SmoothL1Loss", "HuberLoss"]:
        ours = getattr(nnref.nn, name)()(nnref.tensor(x), nnref.tensor(y))
        theirs = getattr(torch.nn, name)()(torch.tensor(x), torch.tensor(y))
        assert_close(ours, theirs)
        assert repr(getattr(nnref.nn, name)()) == repr(getattr(torch.nn, name)())


def test_loss_errors_match_pytorch():
    F = nnref.nn.functional
    with pytest.raises(ValueError, match=r"Using a target size \(torch.Size\(\[3\]\)\) that is different"):
        F.binary_cross_entropy(nnref.full((3, 4), 0.5), nnref.ones(3))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(nnref.full((3,), 2.0), nnref.ones(3))
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values for beta"):
        F.smooth_l1_loss(nnref.ones(2), nnref.ones(2), beta=-1)
    with pytest.raises(RuntimeError, match="huber_loss does not support non-positive values for delta"):
        F.huber_loss(nnref.ones(2), nnref.ones(2), delta=0)
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        F.kl_div(nnref.ones(2), nnref.ones(2), reduction="bad")
    with pytest.warns(UserWarning, match="Using a target size"):
        F.l1_loss(nnref.ones(3, 1), nnref.ones(3))


# --------------------------------------------------------------------------------------------
# one_hot
# --------------------------------------------------------------------------------------------

def test_one_hot_matches_pytorch():
    labels = np.array([[0, 2], [3, 1]])
    for classes in (-1, 5):
        assert_close(nnref.nn.functional.one_hot(nnref.tensor(labels), classes),
                     torch.nn.functional.one_hot(torch.tensor(labels), classes))


def test_one_hot_errors_match_pytorch():
    F = nnref.nn.functional
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type LongTensor"):
        F.one_hot(nnref.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(nnref.tensor([3]), 2)
    with pytest.raises(RuntimeError, match="Class values must be non-negative."):
        F.one_hot(nnref.tensor([-1]), 2)
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor."):
        F.one_hot(nnref.zeros(0, dtype=nnref.int64))

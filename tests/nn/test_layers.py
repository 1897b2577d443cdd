"""Layers against PyTorch's: print text, state_dict keys, forward/backward with copied weights,
train/eval behaviour, running statistics, and wrong-shape errors."""
import numpy as np
import pytest

import nnref
from nnref import nn
from nn_compare import (assert_close, backward_both, copy_parameters, grad_fn_name, numpy_of, pair,
                        raised, rng)  # noqa: F401

torch = pytest.importorskip("torch")

# (constructor called with nn = nnref.nn or torch.nn, input shape)
LAYERS = {
    "conv": (lambda nn: nn.Conv2d(3, 4, 3), (2, 3, 8, 8)),
    "conv strided": (lambda nn: nn.Conv2d(3, 4, (3, 5), stride=2, padding=1, dilation=2, bias=False),
                     (2, 3, 11, 12)),
    "conv grouped same": (lambda nn: nn.Conv2d(4, 6, 3, groups=2, padding="same"), (2, 4, 7, 7)),
    "conv unbatched": (lambda nn: nn.Conv2d(3, 2, 2), (3, 5, 5)),
    "conv reflect": (lambda nn: nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="reflect"),
                     (2, 2, 5, 6)),
    "conv replicate same": (lambda nn: nn.Conv2d(2, 3, (4, 3), padding="same",
                                                 padding_mode="replicate"), (2, 2, 5, 6)),
    "conv circular unbatched": (lambda nn: nn.Conv2d(2, 3, 3, stride=2, padding=2,
                                                     padding_mode="circular"), (2, 5, 6)),
    "max pool": (lambda nn: nn.MaxPool2d(2), (2, 3, 8, 8)),
    "max pool ceil": (lambda nn: nn.MaxPool2d(3, 2, 1, ceil_mode=True), (2, 3, 9, 9)),
    "relu": (lambda nn: nn.ReLU(), (4, 5)),
    "sigmoid": (lambda nn: nn.Sigmoid(), (4, 5)),
    "tanh": (lambda nn: nn.Tanh(), (4, 5)),
    "softmax": (lambda nn: nn.Softmax(dim=1), (4, 5)),
    "log softmax": (lambda nn: nn.LogSoftmax(dim=-1), (4, 5)),
    "flatten": (lambda nn: nn.Flatten(), (2, 3, 4)),
    "flatten 0..1": (lambda nn: nn.Flatten(0, 1), (2, 3, 4)),
    "dropout eval": (lambda nn: nn.Dropout(0.3).eval(), (4, 5)),
    "batch norm 1d": (lambda nn: nn.BatchNorm1d(3), (6, 3)),
    "batch norm 1d seq": (lambda nn: nn.BatchNorm1d(3, momentum=None), (4, 3, 5)),
    "batch norm 2d": (lambda nn: nn.BatchNorm2d(3, eps=1e-3), (4, 3, 5, 5)),
    "batch norm 2d plain": (lambda nn: nn.BatchNorm2d(3, affine=False, track_running_stats=False),
                            (4, 3, 2, 2)),
    "layer norm": (lambda nn: nn.LayerNorm(8), (4, 3, 8)),
    "layer norm 2 dims": (lambda nn: nn.LayerNorm([3, 8], bias=False), (4, 3, 8)),
    "layer norm plain": (lambda nn: nn.LayerNorm(8, elementwise_affine=False), (4, 8)),
}


def both(name):
    build, shape = LAYERS[name]
    ours, theirs = build(nn), build(torch.nn)
    copy_parameters(ours, theirs)
    return ours, theirs, shape


@pytest.mark.parametrize("name", LAYERS)
def test_print_and_state_dict_match_pytorch(name):
    ours, theirs, _ = both(name)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    for key, value in theirs.state_dict().items():
        assert str(ours.state_dict()[key].dtype).split(".")[1] == str(value.dtype).split(".")[1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", LAYERS)
def test_forward_and_gradients_match_pytorch(rng, name, dtype):
    ours, theirs, shape = both(name)
    if dtype == np.float64:
        ours, theirs = ours.double(), theirs.double()
    x, x_t = pair(torch, rng.standard_normal(shape).astype(dtype), requires_grad=True)
    out, out_t = ours(x), theirs(x_t)
    assert_close(out, out_t, "output")
    assert grad_fn_name(out) == grad_fn_name(out_t)
    backward_both(out, out_t, torch, rng)
    assert_close(x.grad, x_t.grad, "input gradient")
    their_params = dict(theirs.named_parameters())
    for key, p in ours.named_parameters():
        assert_close(p.grad, their_params[key].grad, f"gradient of {key}")
    their_buffers = dict(theirs.named_buffers())
    for key, b in ours.named_buffers():
        assert_close(b, their_buffers[key], f"buffer {key}")


def test_sequential_cnn_matches_pytorch(rng):
    def build(nn):
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                             nn.MaxPool2d(2), nn.Conv2d(4, 8, 3), nn.ReLU(), nn.Flatten(),
                             nn.Linear(8 * 2 * 2, 10), nn.LogSoftmax(dim=1))
    ours, theirs = build(nn), build(torch.nn)
    copy_parameters(ours, theirs)
    assert repr(ours) == repr(theirs)
    x, x_t = pair(torch, rng.standard_normal((5, 1, 8, 8)).astype(np.float32), requires_grad=True)
    out, out_t = ours(x), theirs(x_t)
    assert_close(out, out_t)
    backward_both(out, out_t, torch, rng)
    assert_close(x.grad, x_t.grad)
    for (key, p), (_, p_t) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_close(p.grad, p_t.grad, key)


# -- train/eval --------------------------------------------------------------------------------
@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
@pytest.mark.parametrize("name, shape", [("BatchNorm1d", (8, 3)), ("BatchNorm2d", (4, 3, 3, 3))])
def test_batch_norm_running_statistics_follow_pytorch(rng, name, shape, momentum):
    ours, theirs = getattr(nn, name)(3, momentum=momentum), getattr(torch.nn, name)(3, momentum=momentum)
    for _ in range(4):
        x, x_t = pair(torch, (rng.standard_normal(shape) * 3 + 1).astype(np.float32))
        assert_close(ours(x), theirs(x_t))
    for key in ["running_mean", "running_var", "num_batches_tracked"]:
        assert_close(getattr(ours, key), getattr(theirs, key), key)
    assert ours.num_batches_tracked.dtype == nnref.int64 and ours.num_batches_tracked.item() == 4
    ours.eval(), theirs.eval()
    x, x_t = pair(torch, rng.standard_normal(shape).astype(np.float32))
    assert_close(ours(x), theirs(x_t), "eval output uses the running statistics")
    assert ours.num_batches_tracked.item() == 4


def test_batch_norm_running_var_is_unbiased_while_output_uses_biased(rng):
    bn = nn.BatchNorm1d(1, momentum=1.0, affine=False)
    data = rng.standard_normal((5, 1))
    out = bn(nnref.tensor(data))
    assert np.isclose(bn.running_var.item(), data.var(ddof=1))
    expected = (data - data.mean()) / np.sqrt(data.var() + bn.eps)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10)


def test_batch_norm_without_tracking_uses_batch_stats_in_eval(rng):
    ours = nn.BatchNorm2d(3, track_running_stats=False).eval()
    theirs = torch.nn.BatchNorm2d(3, track_running_stats=False).eval()
    assert ours.running_mean is None and ours.num_batches_tracked is None
    x, x_t = pair(torch, rng.standard_normal((4, 3, 2, 2)).astype(np.float32))
    assert_close(ours(x), theirs(x_t))


def test_batch_norm_without_per_channel_tensors_takes_any_number_of_channels(rng):
    """Only a weight or running statistics fix the channels: PyTorch normalises 3 channels with a
    ``BatchNorm1d(5)`` that has neither, and refuses them once the layer has running statistics."""
    ours = nn.BatchNorm1d(5, affine=False, track_running_stats=False)
    theirs = torch.nn.BatchNorm1d(5, affine=False, track_running_stats=False)
    x, x_t = pair(torch, rng.standard_normal((4, 3)).astype(np.float32))
    assert_close(ours(x), theirs(x_t))
    with pytest.raises(RuntimeError):
        torch.nn.BatchNorm1d(5, affine=False)(x_t)
    with pytest.raises(RuntimeError, match="expected input with 5 channels"):
        nn.BatchNorm1d(5, affine=False)(x)


def test_batch_norm_load_state_dict_from_pytorch(rng):
    theirs = torch.nn.BatchNorm1d(3)
    theirs(torch.randn(10, 3))
    ours = nn.BatchNorm1d(3)
    result = ours.load_state_dict({k: nnref.tensor(numpy_of(v)) for k, v in theirs.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys
    ours.eval(), theirs.eval()
    x, x_t = pair(torch, rng.standard_normal((4, 3)).astype(np.float32))
    assert_close(ours(x), theirs(x_t))


def test_batch_norm_loads_checkpoints_without_num_batches_tracked():
    """Old (version 1) checkpoints lack the counter; both libraries accept them with strict=True."""
    for lib in (nnref, torch):
        bn = lib.nn.BatchNorm1d(3)
        old = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
        assert not bn.load_state_dict(old).missing_keys
    # A current checkpoint (version 2 metadata) must have it.
    for lib in (nnref, torch):
        model = lib.nn.Sequential(lib.nn.BatchNorm1d(3))
        state = model.state_dict()
        del state["0.num_batches_tracked"]
        assert model.load_state_dict(state, strict=False).missing_keys == ["0.num_batches_tracked"]


def test_dropout_train_and_eval(rng):
    layer = nn.Dropout(0.25)
    x = nnref.tensor(rng.uniform(1, 2, (100, 100)).astype(np.float32))
    y = layer(x).numpy()
    dropped = (y == 0).mean()
    assert 0.22 < dropped < 0.28
    np.testing.assert_allclose(y[y != 0], x.numpy()[y != 0] / 0.75, rtol=1e-6)
    layer.eval()
    assert layer(x) is x


# -- layer-specific behaviour ------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_padding_modes_record_pytorchs_pad_node(rng, mode):
    ours, theirs = nn.Conv2d(1, 1, 3, padding=1, padding_mode=mode), torch.nn.Conv2d(
        1, 1, 3, padding=1, padding_mode=mode)
    x, x_t = pair(torch, rng.standard_normal((1, 1, 4, 4)).astype(np.float32), requires_grad=True)
    pad_node = ours(x).grad_fn.next_functions[0][0]
    assert pad_node.name() == theirs(x_t).grad_fn.next_functions[0][0].name()


@pytest.mark.parametrize("mode", ["reflect", "circular"])
def test_padding_larger_than_input_is_an_error(mode):
    def build(nn):
        return nn.Conv2d(1, 1, 3, padding=3, padding_mode=mode)
    assert raised(lambda: build(torch.nn)(torch.randn(1, 1, 2, 2))) is RuntimeError
    with pytest.raises(RuntimeError, match=r"Conv2d\(1, 1.*got an input of size \[1, 1, 2, 2\]"):
        build(nn)(nnref.randn(1, 1, 2, 2))


def test_embedding_layer(rng):
    ours, theirs = nn.Embedding(10, 4, padding_idx=3), torch.nn.Embedding(10, 4, padding_idx=3)
    assert repr(ours) == repr(theirs)
    assert np.all(ours.weight.detach().numpy()[3] == 0)
    copy_parameters(ours, theirs)
    idx, idx_t = pair(torch, rng.integers(0, 10, (3, 5)))
    out, out_t = ours(idx), theirs(idx_t)
    assert_close(out, out_t)
    assert grad_fn_name(out) == grad_fn_name(out_t) == "EmbeddingBackward0"
    backward_both(out, out_t, torch, rng)
    assert_close(ours.weight.grad, theirs.weight.grad)
    frozen = nn.Embedding.from_pretrained(nnref.ones(3, 2))
    assert not frozen.weight.requires_grad and repr(frozen) == "Embedding(3, 2)"


def test_embedding_reprs():
    for kwargs in [dict(padding_idx=-1), dict(max_norm=1.0, norm_type=1.0),
                   dict(scale_grad_by_freq=True)]:
        assert repr(nn.Embedding(10, 3, **kwargs)) == repr(torch.nn.Embedding(10, 3, **kwargs))


def test_max_pool_return_indices(rng):
    ours, theirs = nn.MaxPool2d(2, return_indices=True), torch.nn.MaxPool2d(2, return_indices=True)
    x, x_t = pair(torch, rng.standard_normal((1, 2, 4, 4)).astype(np.float32))
    (out, idx), (out_t, idx_t) = ours(x), theirs(x_t)
    assert_close(out, out_t)
    np.testing.assert_array_equal(idx.numpy(), idx_t.numpy())


def test_relu_inplace_layer(rng):
    layer = nn.ReLU(inplace=True)
    x = nnref.tensor(rng.standard_normal((3, 3)))
    assert layer(x) is x and (x.numpy() >= 0).all()


def test_softmax_without_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        nn.Softmax()(nnref.randn(2, 3))


REPRS = [
    lambda nn: nn.Conv2d(3, 4, 3, padding_mode="reflect"),
    lambda nn: nn.Conv2d(3, 6, 1, groups=3, padding="valid", bias=False),
    lambda nn: nn.MaxPool2d(3, 1, 1, dilation=2, ceil_mode=True),
    lambda nn: nn.ReLU(inplace=True),
    lambda nn: nn.Softmax(),
    lambda nn: nn.Dropout(0.2, inplace=True),
    lambda nn: nn.BatchNorm2d(5, eps=1e-3, momentum=None, affine=False, track_running_stats=False),
    lambda nn: nn.BatchNorm1d(5, bias=False),
    lambda nn: nn.LayerNorm((2, 3), eps=1e-6, elementwise_affine=False, bias=False),
]


@pytest.mark.parametrize("build", REPRS)
def test_extra_repr_text(build):
    assert repr(build(nn)) == repr(build(torch.nn))


# -- wrong inputs: PyTorch's exception type, a message naming the layer and both shapes ----------
SHAPE_ERRORS = [
    # (layer, input shape, what the message must also say)
    (lambda nn: nn.Conv2d(3, 4, 3), (4, 3), "(N, 3, H, W)"),
    (lambda nn: nn.Conv2d(3, 4, 3), (2, 5, 8, 8), "(N, 3, H, W)"),
    (lambda nn: nn.Conv2d(3, 4, 3), (2, 3, 2, 2), "Kernel size: (3 x 3)"),
    (lambda nn: nn.MaxPool2d(2), (4,), "3D (C, H, W) or 4D (N, C, H, W)"),
    (lambda nn: nn.MaxPool2d(2), (4, 1, 1), "Output size is too small"),
    (lambda nn: nn.BatchNorm1d(3), (2, 3, 4, 5), "2D (N, 3) or 3D (N, 3, L)"),
    (lambda nn: nn.BatchNorm1d(3), (2, 5), "3 channels"),
    (lambda nn: nn.BatchNorm2d(3), (2, 3, 4), "4D (N, 3, H, W)"),
    (lambda nn: nn.BatchNorm2d(3), (2, 5, 4, 4), "3 channels"),
    (lambda nn: nn.BatchNorm1d(3), (1, 3), "more than 1 value per channel"),
    (lambda nn: nn.LayerNorm(8), (2, 7), "[*, 8]"),
    (lambda nn: nn.LayerNorm([3, 8]), (2, 4, 8), "[*, 3, 8]"),
    (lambda nn: nn.Flatten(), (4,), "Dimension out of range"),
]


@pytest.mark.parametrize("build, shape, text", SHAPE_ERRORS)
def test_wrong_input_shapes(build, shape, text):
    theirs = raised(lambda: build(torch.nn)(torch.randn(shape)))
    assert theirs is not None
    layer = build(nn)
    with pytest.raises(theirs) as info:
        layer(nnref.randn(*shape))
    message = str(info.value)
    assert message.startswith(f"{layer._get_name()}({layer.extra_repr()})")  # names the layer
    assert str(list(shape)) in message  # the size it got
    assert text in message  # and what it expected


@pytest.mark.parametrize("index", [10, -1])
def test_embedding_index_errors_name_the_layer(index):
    assert raised(lambda: torch.nn.Embedding(10, 3)(torch.tensor([index]))) is IndexError
    with pytest.raises(IndexError, match=r"index out of range in self: Embedding\(10, 3\)"):
        nn.Embedding(10, 3)(nnref.tensor([1, index]))


CONSTRUCTOR_ERRORS = [
    lambda nn: nn.Conv2d(3, 4, 3, groups=2),
    lambda nn: nn.Conv2d(4, 3, 3, groups=2),
    lambda nn: nn.Conv2d(3, 4, 3, groups=0),
    lambda nn: nn.Conv2d(3, 4, 3, stride=2, padding="same"),
    lambda nn: nn.Conv2d(3, 4, 3, padding="full"),
    lambda nn: nn.Conv2d(3, 4, 3, padding_mode="mirror"),
    lambda nn: nn.Dropout(1.5),
    lambda nn: nn.Embedding(10, 3, padding_idx=10),
    lambda nn: nn.Embedding(10, 3, padding_idx=-11),
]


@pytest.mark.parametrize("build", CONSTRUCTOR_ERRORS)
def test_constructor_errors(build):
    theirs = raised(lambda: build(torch.nn))
    assert theirs is not None and raised(lambda: build(nn)) is theirs

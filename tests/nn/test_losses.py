"""Losses (functional and module forms) against PyTorch: values, gradients, graph, errors."""
import warnings

import numpy as np
import pytest

import nnref
import nnref.nn.functional as F
from nnref import nn
from nn_compare import assert_close, backward_both, grad_fn_name, pair, raised, random_pair, rng  # noqa: F401

torch = pytest.importorskip("torch")
TF = torch.nn.functional

REDUCTIONS = ["mean", "sum", "none"]


def compare(rng, ours, theirs, x_shape, dtype=np.float32, scale=1.0):
    """``ours(x)`` vs ``theirs(x)`` for a random input: value, node name, input gradient."""
    x = (rng.standard_normal(x_shape) * scale).astype(dtype)
    x_ours, x_theirs = pair(torch, x, requires_grad=True)
    out_ours, out_theirs = ours(x_ours), theirs(x_theirs)
    assert_close(out_ours, out_theirs, "loss")
    assert grad_fn_name(out_ours) == grad_fn_name(out_theirs)
    backward_both(out_ours, out_theirs, torch, rng)
    assert_close(x_ours.grad, x_theirs.grad, "input gradient")


# -- mse ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mse_loss_and_target_gradient(rng, reduction, dtype):
    x, x_t = random_pair(torch, rng, (4, 3), dtype)
    y, y_t = random_pair(torch, rng, (4, 3), dtype)
    out, out_t = F.mse_loss(x, y, reduction=reduction), TF.mse_loss(x_t, y_t, reduction=reduction)
    assert_close(out, out_t)
    assert grad_fn_name(out) == grad_fn_name(out_t) == "MseLossBackward0"
    backward_both(out, out_t, torch, rng)
    assert_close(x.grad, x_t.grad)
    assert_close(y.grad, y_t.grad)
    module_out = nn.MSELoss(reduction=reduction)(x, y)
    assert_close(module_out, out_t)


def test_mse_loss_broadcasts_with_pytorchs_warning(rng):
    x, x_t = random_pair(torch, rng, (4, 1))
    y, y_t = random_pair(torch, rng, (4,), requires_grad=False)
    with pytest.warns(UserWarning, match="Using a target size"):
        out = F.mse_loss(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out_t = TF.mse_loss(x_t, y_t)
    assert_close(out, out_t)
    backward_both(out, out_t, torch, rng)
    assert_close(x.grad, x_t.grad)
    names = [[n.name() if n else None for n, _ in o.grad_fn.next_functions] for o in (out, out_t)]
    assert names[0] == names[1] == ["ExpandBackward0", None]


def test_mse_loss_supports_double_backward(rng):
    x, x_t = random_pair(torch, rng, (3, 2), np.float64)
    y, y_t = random_pair(torch, rng, (3, 2), np.float64, requires_grad=False)
    (g,) = nnref.autograd.grad(F.mse_loss(x, y), x, create_graph=True)
    (g_t,) = torch.autograd.grad(TF.mse_loss(x_t, y_t), x_t, create_graph=True)
    backward_both(g.sum(), g_t.sum(), torch, rng)
    assert_close(x.grad, x_t.grad)


# -- cross-entropy and nll ---------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{}, dict(ignore_index=1), dict(label_smoothing=0.2),
                                    dict(weight=[1.0, 2.0, 0.5]),
                                    dict(weight=[1.0, 2.0, 0.5], label_smoothing=0.1, ignore_index=0)])
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 2), (3,)])
def test_cross_entropy_class_targets(rng, reduction, kwargs, shape):
    target = rng.integers(0, 3, shape[:1] + shape[2:]) if len(shape) > 1 else np.array(2)
    t, t_t = pair(torch, target)
    extra, extra_t = dict(kwargs), dict(kwargs)
    if "weight" in kwargs:
        extra["weight"], extra_t["weight"] = pair(torch, np.array(kwargs["weight"], np.float32))
    compare(rng, lambda x: F.cross_entropy(x, t, reduction=reduction, **extra),
            lambda x: TF.cross_entropy(x, t_t, reduction=reduction, **extra_t), shape)
    compare(rng, lambda x: nn.CrossEntropyLoss(reduction=reduction, **extra)(x, t),
            lambda x: torch.nn.CrossEntropyLoss(reduction=reduction, **extra_t)(x, t_t), shape)


def test_cross_entropy_graph_is_nll_over_log_softmax(rng):
    x = nnref.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    loss = F.cross_entropy(x, nnref.tensor([0, 2, 1, 1]))
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
def test_cross_entropy_probability_targets(rng, reduction, label_smoothing):
    probs = rng.dirichlet(np.ones(4), size=5).astype(np.float32)
    p, p_t = pair(torch, probs)
    compare(rng, lambda x: F.cross_entropy(x, p, reduction=reduction, label_smoothing=label_smoothing),
            lambda x: TF.cross_entropy(x, p_t, reduction=reduction, label_smoothing=label_smoothing),
            (5, 4))


def test_cross_entropy_all_targets_ignored_is_nan_like_pytorch(rng):
    t, t_t = pair(torch, np.array([1, 1]))
    compare(rng, lambda x: F.cross_entropy(x, t, ignore_index=1),
            lambda x: TF.cross_entropy(x, t_t, ignore_index=1), (2, 3))


def test_cross_entropy_is_stable_for_huge_logits(rng):
    t, t_t = pair(torch, np.array([0, 1, 2, 0]))
    compare(rng, lambda x: F.cross_entropy(x, t), lambda x: TF.cross_entropy(x, t_t), (4, 3),
            scale=1e4)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 5), (2, 4, 3, 2)])
def test_nll_loss(rng, reduction, shape):
    target = rng.integers(0, 4, shape[:1] + shape[2:])
    t, t_t = pair(torch, target)
    w, w_t = pair(torch, np.array([0.5, 1.0, 2.0, 1.5], np.float32))
    compare(rng, lambda x: F.nll_loss(x, t, w, reduction=reduction, ignore_index=3),
            lambda x: TF.nll_loss(x, t_t, w_t, reduction=reduction, ignore_index=3), shape)
    compare(rng, lambda x: nn.NLLLoss(reduction=reduction)(x, t),
            lambda x: torch.nn.NLLLoss(reduction=reduction)(x, t_t), shape)


def test_legacy_size_average_and_reduce_flags(rng):
    t, t_t = pair(torch, np.array([0, 1, 2]))
    for size_average, reduce in [(False, None), (None, False), (True, True)]:
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            ours = F.nll_loss
            compare(rng, lambda x: ours(x, t, size_average=size_average, reduce=reduce),
                    lambda x: _quiet(TF.nll_loss, x, t_t, size_average=size_average, reduce=reduce),
                    (3, 3))


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# -- labels must be int64 ----------------------------------------------------------------------
@pytest.mark.parametrize("make_target", [
    lambda T: T.tensor([0.0, 1.0, 2.0, 1.0]),      # a float list gives float32
    lambda T: T.Tensor([0, 1, 2, 1]),              # the legacy constructor is always float32
    lambda T: T.tensor([0, 1, 2, 1], dtype=T.int32),
])
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_non_int64_labels_raise_pytorchs_error_saying_int64(loss, make_target):
    def call(T, functional):
        return getattr(functional, loss)(T.randn(4, 3), make_target(T))
    assert raised(lambda: call(torch, TF)) is RuntimeError
    with pytest.raises(RuntimeError, match="expected target dtype to be Long.*labels must be int64"):
        call(nnref, F)


def test_long_tensor_labels_work():
    out = nn.CrossEntropyLoss()(nnref.zeros(2, 3), nnref.LongTensor([0, 2]))
    assert abs(out.item() - np.log(3)) < 1e-6


# -- binary cross-entropy with logits ----------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("with_pos_weight", [False, True])
def test_bce_with_logits(rng, reduction, weighted, with_pos_weight):
    x, x_t = pair(torch, (rng.standard_normal((5, 3)) * 5).astype(np.float32), requires_grad=True)
    y, y_t = pair(torch, rng.random((5, 3)).astype(np.float32), requires_grad=True)
    w, w_t = pair(torch, rng.random((5, 3)).astype(np.float32)) if weighted else (None, None)
    pw, pw_t = pair(torch, np.array([0.5, 2.0, 3.0], np.float32)) if with_pos_weight else (None, None)
    out = F.binary_cross_entropy_with_logits(x, y, w, reduction=reduction, pos_weight=pw)
    out_t = TF.binary_cross_entropy_with_logits(x_t, y_t, w_t, reduction=reduction, pos_weight=pw_t)
    assert_close(out, out_t)
    assert grad_fn_name(out) == grad_fn_name(out_t) == "BinaryCrossEntropyWithLogitsBackward0"
    backward_both(out, out_t, torch, rng)
    assert_close(x.grad, x_t.grad)
    assert_close(y.grad, y_t.grad)
    module = nn.BCEWithLogitsLoss(weight=w, reduction=reduction, pos_weight=pw)
    assert_close(module(x, y), out_t)


def test_bce_with_logits_is_stable_where_sigmoid_then_log_is_not():
    x, x_t = pair(torch, np.array([-200.0, -30.0, 0.0, 30.0, 200.0], np.float32), requires_grad=True)
    y, y_t = pair(torch, np.array([1.0, 1.0, 0.5, 0.0, 0.0], np.float32))
    out = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    out_t = TF.binary_cross_entropy_with_logits(x_t, y_t, reduction="none")
    assert np.isfinite(out.detach().numpy()).all()
    assert_close(out, out_t)


# -- errors ------------------------------------------------------------------------------------
ERROR_CASES = {
    "batch mismatch": lambda T, nn: nn.CrossEntropyLoss()(T.randn(4, 3), T.tensor([0, 1, 2])),
    "target out of range": lambda T, nn: nn.CrossEntropyLoss()(T.randn(4, 3), T.tensor([0, 1, 2, 3])),
    "negative target": lambda T, nn: nn.NLLLoss()(T.randn(4, 3), T.tensor([0, 1, 2, -1])),
    "2-D target": lambda T, nn: nn.NLLLoss()(T.randn(4, 3), T.tensor([[0, 1, 2, 1]] * 4)),
    "spatial target": lambda T, nn: nn.NLLLoss()(T.randn(4, 3, 5), T.tensor([[0, 1, 2, 1]] * 4)),
    "0-d input": lambda T, nn: nn.NLLLoss()(T.tensor(3.0), T.tensor(1)),
    "class weight size": lambda T, nn: nn.CrossEntropyLoss(weight=T.ones(2))(T.randn(4, 3),
                                                                            T.tensor([0, 1, 2, 1])),
    "label smoothing": lambda T, nn: nn.CrossEntropyLoss(label_smoothing=1.5)(T.randn(4, 3),
                                                                              T.tensor([0, 1, 2, 1])),
    "bad reduction": lambda T, nn: nn.MSELoss(reduction="avg")(T.randn(2), T.randn(2)),
    "mse shapes": lambda T, nn: _quiet(nn.MSELoss(), T.randn(4, 2), T.randn(3)),
    "bce shapes": lambda T, nn: nn.BCEWithLogitsLoss()(T.randn(4, 3), T.randn(4)),
}


@pytest.mark.parametrize("name", ERROR_CASES)
def test_errors_have_pytorchs_type(name):
    case = ERROR_CASES[name]
    ours, theirs = raised(lambda: case(nnref, nn)), raised(lambda: case(torch, torch.nn))
    assert theirs is not None and ours is theirs, f"{name}: nnref raised {ours}, PyTorch {theirs}"


def test_loss_module_errors_name_the_loss_and_both_sizes():
    with pytest.raises(ValueError, match=r"^CrossEntropyLoss\(\) got inputs of sizes \[4, 3\] and "
                                         r"\[3\]: Expected input batch_size \(4\)"):
        nn.CrossEntropyLoss()(nnref.randn(4, 3), nnref.tensor([0, 1, 2]))


def test_loss_modules_print_and_keep_weight_buffers():
    for ours, theirs in [(nn.MSELoss(), torch.nn.MSELoss()),
                         (nn.CrossEntropyLoss(weight=nnref.ones(3), label_smoothing=0.1),
                          torch.nn.CrossEntropyLoss(weight=torch.ones(3), label_smoothing=0.1)),
                         (nn.NLLLoss(reduction="sum"), torch.nn.NLLLoss(reduction="sum")),
                         (nn.BCEWithLogitsLoss(pos_weight=nnref.ones(2)),
                          torch.nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)))]:
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert list(ours._buffers) == list(theirs._buffers)


@pytest.mark.parametrize("input_shape,target_shape", [((3,), ()), ((4, 3), (4,)), ((4, 3, 5), (4, 5)),
                                                      ((2, 3, 2, 2), (2, 2, 2))])
def test_nll_loss_reads_byte_targets_where_pytorch_does(input_shape, target_shape):
    """ATen's 1-d/2-d ``nll_loss`` kernel takes uint8 class indices too; ``nll_loss2d`` does not."""
    draw = np.random.default_rng(5)
    values = draw.standard_normal(input_shape).astype(np.float32)
    labels = draw.integers(0, 3, target_shape).astype(np.uint8)
    results = []
    for lib in (nnref, torch):
        x = lib.tensor(values, requires_grad=True)
        target = lib.tensor(labels)
        try:
            loss = lib.nn.functional.nll_loss(x, target, ignore_index=1)
        except RuntimeError as exc:
            results.append(str(exc).split(":")[0])
            continue
        loss.backward()
        results.append((loss.item(), x.grad.tolist()))
    np.testing.assert_equal(results[0], results[1])  # NaN (every target ignored) equals NaN


def test_deleting_data_is_refused_as_in_pytorch():
    for lib in (nnref, torch):
        t = lib.ones(2)
        with pytest.raises(RuntimeError, match="Deleting tensor data is not allowed"):
            del t.data
        assert t.tolist() == [1.0, 1.0]

"""Uninitialized parameters and buffers (lazy modules before their first ``forward``) answer as
PyTorch's: ``.data`` is an empty tensor that ``normal_()`` fills without error, ``size()`` is
``[0]`` while ``.shape`` raises, methods raise naming themselves, printing, ``materialize``."""
import copy
import re

import pytest

import nnref

torch = pytest.importorskip("torch")


def outcome(f):
    """What ``f()`` gives, comparable across the libraries: a repr, or the exception's type and text."""
    try:
        return "ok", repr(f())
    except Exception as error:  # noqa: BLE001 - the comparison is the point
        return type(error).__name__, str(error)


def same(f):
    assert outcome(lambda: f(nnref)) == outcome(lambda: f(torch))


@pytest.mark.parametrize("probe", [
    lambda w: w, lambda w: str(w), lambda w: type(w), lambda w: w.data, lambda w: type(w.data),
    lambda w: w.data.shape, lambda w: w.data.normal_(), lambda w: w.data.uniform_(-1, 1), lambda w: w.data.zero_(),
    lambda w: w.shape, lambda w: w.size(), lambda w: w.size(0), lambda w: w.size(-1), lambda w: w.size(1),
    lambda w: w.numel(), lambda w: w.dim(), lambda w: w.normal_(), lambda w: w.zero_(), lambda w: w.sum(),
    lambda w: w.t(), lambda w: w.item(), lambda w: w.detach(), lambda w: w.clone(), lambda w: w.tolist(),
    lambda w: w.dtype, lambda w: w.requires_grad, lambda w: w.grad, lambda w: w.is_leaf, lambda w: w.is_floating_point(),
    lambda w: w.get_device(), lambda w: w + 1, lambda w: 1 + w, lambda w: w * 2, lambda w: 2 * w, lambda w: w - 1,
    lambda w: w / 2, lambda w: -w, lambda w: w @ w, lambda w: w > 0, lambda w: w <= 0, lambda w: w[0],
], ids=lambda f: f.__code__.co_positions and "probe")
def test_uninitialized_parameter_answers_as_pytorchs(probe):
    same(lambda L: probe(L.nn.LazyLinear(3).weight))


@pytest.mark.parametrize("call", [
    lambda init, w: init.kaiming_uniform_(w), lambda init, w: init.kaiming_normal_(w),
    lambda init, w: init.kaiming_uniform_(w, a=5 ** 0.5, mode="fan_out"), lambda init, w: init.xavier_uniform_(w),
    lambda init, w: init.xavier_normal_(w), lambda init, w: init.uniform_(w), lambda init, w: init.normal_(w),
    lambda init, w: init.trunc_normal_(w), lambda init, w: init.constant_(w, 0.5), lambda init, w: init.ones_(w),
    lambda init, w: init.zeros_(w), lambda init, w: init.eye_(w), lambda init, w: init.dirac_(w),
    lambda init, w: init.orthogonal_(w), lambda init, w: init.sparse_(w, 0.1),
    lambda init, w: init._calculate_fan_in_and_fan_out(w),
], ids=["kaiming_uniform_", "kaiming_normal_", "kaiming_uniform_fan_out", "xavier_uniform_", "xavier_normal_",
        "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_", "orthogonal_",
        "sparse_", "fan_in_and_fan_out"])
@pytest.mark.parametrize("lazy", ["weight", "buffer"])
def test_init_functions_on_an_uninitialized_tensor_raise_pytorchs_error(call, lazy):
    # PyTorch names a function by its repr (its address), so addresses are blanked before comparing
    def run(L):
        w = L.nn.LazyLinear(3).weight if lazy == "weight" else L.nn.parameter.UninitializedBuffer()
        kind, text = outcome(lambda: call(L.nn.init, w))
        return kind, re.sub(r" at 0x[0-9a-f]+>", " at ADDRESS>", text)
    assert run(nnref) == run(torch)


def test_a_program_may_touch_data_before_the_first_forward():
    # the usual "init everything" loop of tutorials, run before the model has seen data
    def run(L):
        L.manual_seed(0)
        model = L.nn.Sequential(L.nn.LazyLinear(4), L.nn.ReLU(), L.nn.LazyLinear(2))
        for p in model.parameters():
            p.data.normal_(0, 0.01)
        return model, model(L.ones(3, 5))
    (ours, out_o), (theirs, out_t) = run(nnref), run(torch)
    assert repr(ours) == repr(theirs)
    assert out_o.flatten().tolist() == pytest.approx(out_t.flatten().tolist(), rel=1e-6)
    assert [tuple(p.shape) for p in ours.parameters()] == [tuple(p.shape) for p in theirs.parameters()]


def test_modules_and_buffers_print_and_copy_as_pytorchs():
    same(lambda L: L.nn.LazyLinear(3))
    same(lambda L: L.nn.LazyConv2d(4, 3))
    same(lambda L: L.nn.LazyLinear(3).state_dict())
    same(lambda L: [(n, type(b)) for n, b in L.nn.LazyBatchNorm1d().named_buffers()])
    same(lambda L: L.nn.LazyBatchNorm1d().running_mean.data)
    same(lambda L: L.nn.LazyBatchNorm1d().running_mean.data.normal_())
    same(lambda L: copy.deepcopy(L.nn.LazyLinear(2)).weight)
    same(lambda L: L.nn.parameter.UninitializedParameter(dtype=L.float64).dtype)
    same(lambda L: L.nn.parameter.UninitializedParameter(requires_grad=False).requires_grad)
    same(lambda L: [p.shape for p in L.nn.LazyLinear(2).parameters()])


def test_materialize_turns_it_into_a_parameter_in_place():
    def run(L):
        m = L.nn.LazyLinear(3)
        w = m.weight
        w.materialize((3, 2))
        return type(w), w.shape, w is m.weight, type(m.bias), m.has_uninitialized_params()
    same(run)
    same(lambda L: L.nn.LazyLinear(3).weight.materialize((1, 1)) or L.nn.LazyLinear(3).weight.size())
    def twice(L):
        w = L.nn.LazyLinear(3).weight
        w.materialize((1, 1))
        return w.materialize((1, 1))
    same(twice)

"""Uninitialized parameters and buffers (lazy modules before their first ``forward``) answer as
PyTorch's: ``.data`` is an empty tensor that ``normal_()`` fills without error, ``size()`` is
``[0]`` while ``.shape`` raises, methods raise naming themselves, printing, ``materialize``."""
import copy

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


def test_init_functions_refuse_as_pytorch():
    for init in ("zeros_", "normal_", "uniform_"):
        kinds = {outcome(lambda: getattr(L.nn.init, init)(L.nn.LazyLinear(3).weight))[0] for L in (nnref, torch)}
        assert kinds == {"ValueError"}  # (PyTorch's message names the function by its address)


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

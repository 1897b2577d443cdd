"""The core's optimizers (``nnref/core/optim``) against ``torch.optim``: SGD written with tensor
ops gives PyTorch's weights bit for bit (``add``/``add_`` with ``alpha`` round as ATen's
``fmadd``), and the step hooks run as PyTorch's do."""
import importlib
import inspect

import numpy as np
import pytest

import nnref
import nnref.optim
from nnref import nn
from optim_compare import make_params, set_grads
from nn_compare import numpy_of, rng  # noqa: F401

torch = pytest.importorskip("torch")

SGD_CASES = [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.9, nesterov=True),
             dict(lr=0.1, momentum=0.8, dampening=0.3, weight_decay=0.01),
             dict(lr=0.1, weight_decay=0.1, maximize=True),
             dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.05, maximize=True)]


@pytest.mark.exact
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kwargs", SGD_CASES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_sgd_matches_pytorch_bit_for_bit(rng, kwargs, dtype):
    ours, theirs = make_params(rng, dtype)
    opt, opt_t = nnref.optim.SGD(ours, **kwargs), torch.optim.SGD(theirs, **kwargs)
    for step in range(10):
        set_grads(rng, ours, theirs, skip=(1,) if step == 3 else ())
        opt.step()
        opt_t.step()
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert np.array_equal(numpy_of(a), numpy_of(b)), f"parameter {i} after step {step + 1}"
    for a, b in zip(ours, theirs):
        if "momentum_buffer" in opt_t.state[b]:
            assert np.array_equal(numpy_of(opt.state[a]["momentum_buffer"]),
                                  numpy_of(opt_t.state[b]["momentum_buffer"]))


@pytest.mark.exact
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ["add", "sub", "add_", "add_ strided", "sub_"])
def test_add_and_sub_with_alpha_round_as_pytorch(rng, how, dtype):
    """``a + alpha * b`` rounded once where ATen's kernel fuses it; ``add_`` on contiguous arrays
    takes BLAS's axpy, on strided ones the general path: both give PyTorch's digits."""
    a, b = (rng.standard_normal((64, 33)).astype(dtype) for _ in range(2))
    results = []
    for lib in (nnref, torch):
        x, y = lib.tensor(a.copy()), lib.tensor(b.copy())
        if how == "add_ strided":
            x, y = x.t(), y.t()
        name = how.split()[0]
        out = getattr(x, name)(y, alpha=0.3) if name.endswith("_") else getattr(lib, name)(x, y, alpha=0.3)
        results.append(numpy_of(out))
    assert np.array_equal(*results)


def test_add_with_alpha_still_records_and_refuses_what_pytorch_refuses():
    a = nnref.ones(3, requires_grad=True)
    b = a * 1
    b.add_(nnref.ones(3), alpha=2)
    assert type(b.grad_fn).__name__ == "AddBackward0"
    b.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        a.add_(nnref.ones(3), alpha=2)
    with nnref.inference_mode():
        frozen = nnref.ones(3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        frozen.add_(nnref.ones(3), alpha=2)


def _hook_run(lib):
    """Every kind of step hook on one optimizer, in the order they run, with what they see."""
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([p], lr=0.5)
    calls = []
    module = importlib.import_module(lib.__name__ + ".optim.optimizer")
    handles = [
        module.register_optimizer_step_pre_hook(
            lambda o, args, kwargs: calls.append(("global pre", type(o).__name__, len(args), dict(kwargs)))),
        module.register_optimizer_step_post_hook(
            lambda o, args, kwargs: calls.append(("global post", p.tolist()))),
        opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", p.tolist()))),
        opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", p.tolist()))),
    ]
    try:
        p.grad = lib.ones(2)
        opt.step()
        handles[2].remove()
        p.grad = lib.ones(2)
        opt.step(closure=None)
    finally:
        for handle in handles:
            handle.remove()
    p.grad = lib.ones(2)
    opt.step()  # no hook left
    return calls, p.tolist()


def test_step_hooks_run_as_pytorch_runs_them():
    assert _hook_run(nnref) == _hook_run(torch)


def test_a_pre_hook_may_replace_the_arguments_and_must_return_a_pair():
    outcomes = []
    for lib in (nnref, torch):
        p = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([p], lr=1.0)
        p.grad = lib.ones(1)
        losses = []
        handle = opt.register_step_pre_hook(
            lambda o, args, kwargs: (args, {"closure": lambda: losses.append(1) or lib.tensor(2.0)}))
        loss = opt.step()
        handle.remove()
        opt.register_step_pre_hook(lambda o, args, kwargs: "wrong")
        with pytest.raises(RuntimeError) as error:
            opt.step()
        outcomes.append((loss.item(), losses, p.tolist(),
                         str(error.value).split(" must return")[1]))
    assert outcomes[0] == outcomes[1]


def test_each_class_is_wrapped_once_and_listings_show_the_step_itself():
    for _ in range(3):
        nnref.optim.SGD([nn.Parameter(nnref.ones(1))])
    step = nnref.optim.SGD.step
    assert step.hooked and not hasattr(step.__wrapped__, "__wrapped__")  # one wrapper, not three
    assert "def step(self, closure=None):" in inspect.getsource(step)


@pytest.mark.exact
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("factor", [0.9, 3, -1.5e-3])
def test_mul_by_a_number_in_place_rounds_as_pytorch(rng, dtype, factor):
    """``mul_`` by a Python number writes into the tensor's memory (the optimizers' momentum
    step): the same digits as PyTorch and as the general path (a strided tensor takes that)."""
    a = rng.standard_normal((40, 7)).astype(dtype)
    ours, theirs = nnref.tensor(a.copy()), torch.tensor(a.copy())
    memory = ours._data.__array_interface__["data"][0]
    ours.mul_(factor), theirs.mul_(factor)
    assert ours._data.__array_interface__["data"][0] == memory
    assert np.array_equal(numpy_of(ours), numpy_of(theirs))
    strided, strided_t = nnref.tensor(a.copy()).t(), torch.tensor(a.copy()).t()
    strided.mul_(factor), strided_t.mul_(factor)
    assert np.array_equal(numpy_of(strided), numpy_of(strided_t))

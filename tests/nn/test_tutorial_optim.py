"""RMSprop, Adagrad and the learning-rate schedulers the tutorials use, step by step against
PyTorch: parameters, state, learning rates, state_dict round trips and warnings."""
import math
import io
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

from nn_compare import assert_close, numpy_of  # noqa: E402


def _problem(lib):
    """A small regression whose weights and data come from arange/sin (no random numbers)."""
    w = lib.nn.Parameter(lib.sin(lib.arange(12.0)).reshape(3, 4) * 0.5)
    b = lib.nn.Parameter(lib.cos(lib.arange(3.0)) * 0.1)
    x = lib.sin(lib.arange(40.0) * 0.37).reshape(10, 4)
    y = lib.cos(lib.arange(30.0) * 0.21).reshape(10, 3)
    return [w, b], x, y


def _trajectory(lib, make_optimizer, steps=8, schedule=None):
    params, x, y = _problem(lib)
    optimizer = make_optimizer(lib, params)
    scheduler = schedule(lib, optimizer) if schedule else None
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((x @ params[0].t() + params[1] - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
            history.append(list(scheduler.get_last_lr()))
        history.append(loss.item())
    return params, optimizer, history


OPTIMIZERS = {
    "rmsprop": lambda lib, p: lib.optim.RMSprop(p, lr=0.01),
    "rmsprop_momentum": lambda lib, p: lib.optim.RMSprop(p, lr=0.01, momentum=0.9, weight_decay=0.01),
    "rmsprop_centered": lambda lib, p: lib.optim.RMSprop(p, lr=0.02, alpha=0.9, centered=True),
    "rmsprop_maximize": lambda lib, p: lib.optim.RMSprop(p, lr=0.01, maximize=True, centered=True,
                                                         momentum=0.5),
    "adagrad": lambda lib, p: lib.optim.Adagrad(p, lr=0.1),
    "adagrad_decay": lambda lib, p: lib.optim.Adagrad(p, lr=0.1, lr_decay=0.05, weight_decay=0.1,
                                                      initial_accumulator_value=0.2),
    "adagrad_maximize": lambda lib, p: lib.optim.Adagrad(p, lr=0.05, maximize=True, eps=1e-6),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_trajectory_matches_pytorch(name):
    ours, our_opt, our_history = _trajectory(nnref, OPTIMIZERS[name])
    theirs, their_opt, their_history = _trajectory(torch, OPTIMIZERS[name])
    np.testing.assert_allclose(our_history, their_history, rtol=1e-5)
    for a, b in zip(ours, theirs):
        assert_close(a, b, rtol=1e-5, atol=1e-6)
    our_state, their_state = our_opt.state_dict(), their_opt.state_dict()
    assert our_state["param_groups"] == their_state["param_groups"]
    for index in their_state["state"]:
        assert list(our_state["state"][index]) == list(their_state["state"][index])
        for key, value in their_state["state"][index].items():
            assert_close(our_state["state"][index][key], value, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["rmsprop_momentum", "adagrad_decay"])
def test_optimizer_state_dict_round_trip_continues_the_same_trajectory(name):
    params, optimizer, _ = _trajectory(nnref, OPTIMIZERS[name], steps=3)
    buffer = io.BytesIO()
    nnref.save(optimizer.state_dict(), buffer)
    buffer.seek(0)
    saved = nnref.load(buffer)
    clones = [nnref.nn.Parameter(p.detach().clone()) for p in params]
    restored = OPTIMIZERS[name](nnref, clones)
    restored.load_state_dict(saved)
    for group in (params, clones):
        for p in group:
            p.grad = nnref.ones_like(p)
    optimizer.step()
    restored.step()
    for a, b in zip(params, clones):
        assert_close(a, b)


def test_optimizer_argument_errors_match_pytorch():
    p = [nnref.nn.Parameter(nnref.ones(2))]
    for build, text in [(lambda: nnref.optim.RMSprop(p, lr=-1), "Invalid learning rate: -1"),
                        (lambda: nnref.optim.RMSprop(p, alpha=-1), "Invalid alpha value: -1"),
                        (lambda: nnref.optim.RMSprop(p, momentum=-1), "Invalid momentum value: -1"),
                        (lambda: nnref.optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
                        (lambda: nnref.optim.Adagrad(p, initial_accumulator_value=-1),
                         "Invalid initial_accumulator_value value: -1")]:
        with pytest.raises(ValueError, match=text):
            build()


def test_adagrad_creates_its_state_up_front_like_pytorch():
    ours = nnref.optim.Adagrad([nnref.nn.Parameter(nnref.ones(2))], initial_accumulator_value=0.5)
    theirs = torch.optim.Adagrad([torch.nn.Parameter(torch.ones(2))], initial_accumulator_value=0.5)
    assert list(ours.state_dict()["state"][0]) == list(theirs.state_dict()["state"][0])
    assert_close(ours.state_dict()["state"][0]["sum"], theirs.state_dict()["state"][0]["sum"])


SCHEDULES = {
    "lambda": (lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lambda epoch: 0.9 ** epoch), 0.1),
    "multistep": (lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(o, [2, 5, 5], gamma=0.5), 0.1),
    "exponential": (lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.8), 0.1),
    "cosine": (lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=3, eta_min=0.01), 0.1),
    "onecycle_sgd": (lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=0.2, total_steps=12), 0.1),
    "onecycle_linear": (lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[0.3], epochs=3, steps_per_epoch=4, anneal_strategy="linear", three_phase=True), 0.1),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_scheduler_trajectory_matches_pytorch(name):
    schedule, lr = SCHEDULES[name]

    def make(lib, params):
        return lib.optim.SGD(params, lr=lr, momentum=0.9)
    ours, our_opt, our_history = _trajectory(nnref, make, steps=11, schedule=schedule)
    theirs, their_opt, their_history = _trajectory(torch, make, steps=11, schedule=schedule)
    for a, b in zip(our_history, their_history):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert our_opt.param_groups[0]["momentum"] == pytest.approx(their_opt.param_groups[0]["momentum"])


def test_onecycle_cycles_adams_beta1():
    def make(lib):
        params, _, _ = _problem(lib)
        optimizer = lib.optim.Adam(params, lr=0.1)
        scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=5)
        betas = []
        for _ in range(4):
            optimizer.step()
            scheduler.step()
            betas.append(optimizer.param_groups[0]["betas"])
        return betas
    np.testing.assert_allclose(make(nnref), make(torch))


def _scheduler_state(lib, name):
    schedule, lr = SCHEDULES[name]
    params, _, _ = _problem(lib)
    optimizer = lib.optim.SGD(params, lr=lr, momentum=0.9)
    scheduler = schedule(lib, optimizer)
    for _ in range(3):
        optimizer.step()
        scheduler.step()
    return scheduler.state_dict()


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_scheduler_state_dict_matches_pytorch_and_resumes(name):
    ours, theirs = _scheduler_state(nnref, name), _scheduler_state(torch, name)
    assert sorted(ours) == sorted(k for k in theirs if k != "_is_initial" or k in ours)
    for key in ("last_epoch", "_step_count", "base_lrs", "_last_lr"):
        assert ours[key] == pytest.approx(theirs[key])
    schedule, lr = SCHEDULES[name]
    params, _, _ = _problem(nnref)
    optimizer = nnref.optim.SGD(params, lr=lr, momentum=0.9)
    resumed = schedule(nnref, optimizer)
    resumed.load_state_dict(ours)
    assert resumed.last_epoch == 3 and resumed.get_last_lr() == pytest.approx(theirs["_last_lr"])


def _plateau(lib):
    params, _, _ = _problem(lib)
    optimizer = lib.optim.SGD(params, lr=1.0)
    scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=1,
                                                         cooldown=1, min_lr=0.1)
    lrs = []
    for metric in [1.0, 0.9, 0.95, 0.97, 0.99, 0.98, 0.97, 0.96, 0.99, 1.0, 1.0, 1.0, 1.0]:
        scheduler.step(lib.tensor(metric))
        lrs.append(scheduler.get_last_lr()[0])
    return lrs, scheduler.state_dict()


def test_reduce_lr_on_plateau_matches_pytorch():
    (ours, our_state), (theirs, their_state) = _plateau(nnref), _plateau(torch)
    assert ours == theirs
    assert our_state == their_state


def test_reduce_lr_on_plateau_errors_match_pytorch():
    optimizer = nnref.optim.SGD([nnref.nn.Parameter(nnref.ones(1))], lr=1.0)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        nnref.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=1.0)
    with pytest.raises(ValueError, match="mode maximum is unknown!"):
        nnref.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="maximum")


def _warnings(lib, action):
    params, _, _ = _problem(lib)
    optimizer = lib.optim.SGD(params, lr=0.1)
    scheduler = lib.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action(optimizer, scheduler)
    return [str(w.message).replace("torch", "nnref") for w in caught]


@pytest.mark.parametrize("action", [
    lambda o, s: s.step(),                     # scheduler before optimizer
    lambda o, s: (o.step(), s.step(3)),        # the deprecated epoch argument
    lambda o, s: s.get_lr(),                   # get_lr() outside step()
])
def test_scheduler_warnings_match_pytorch_word_for_word(action):
    ours, theirs = _warnings(nnref, action), _warnings(torch, action)
    assert ours == [t.replace("nnref", "torch") if "pytorch.org" in t or "github.com/pytorch" in t
                    else t for t in theirs]
    assert ours


def test_scheduler_errors_match_pytorch():
    optimizer = nnref.optim.SGD([nnref.nn.Parameter(nnref.ones(1))], lr=1.0)
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        nnref.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1.0)
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        nnref.optim.lr_scheduler.LambdaLR(optimizer, [lambda e: 1, lambda e: 1])
    scheduler = nnref.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1.0, total_steps=2)
    optimizer.step()
    scheduler.step()
    scheduler.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
        scheduler.step()
    assert math.isfinite(optimizer.param_groups[0]["lr"])

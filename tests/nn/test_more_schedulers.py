"""The warmup, restart, cyclic and composite learning-rate schedulers against ``torch.optim``:
every printed rate (exactly: the same Python float arithmetic in the same order), momentum and
beta1 cycling, the deprecated ``step(epoch)`` closed forms, state_dict layout and resuming, and
PyTorch's warnings and errors word for word."""
import copy
import math
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


def _optimizer(lib, kind="sgd"):
    """Two parameter groups with different rates, so per-group arithmetic is exercised."""
    w = lib.nn.Parameter(lib.ones(2, 3))
    b = lib.nn.Parameter(lib.zeros(3))
    groups = [{"params": [w]}, {"params": [b], "lr": 0.03}]
    if kind == "adam":
        return lib.optim.Adam(groups, lr=0.1)
    if kind == "adagrad":
        return lib.optim.Adagrad(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def _sched(lib):
    return lib.optim.lr_scheduler


SCHEDULES = {
    "linear": lambda lib, o: _sched(lib).LinearLR(o),
    "linear_down": lambda lib, o: _sched(lib).LinearLR(o, start_factor=1.0, end_factor=0.1,
                                                       total_iters=7),
    "linear_warmup": lambda lib, o: _sched(lib).LinearLR(o, start_factor=0.01, total_iters=3),
    "constant": lambda lib, o: _sched(lib).ConstantLR(o),
    "constant_half": lambda lib, o: _sched(lib).ConstantLR(o, factor=0.5, total_iters=3),
    "polynomial": lambda lib, o: _sched(lib).PolynomialLR(o),
    "polynomial_sq": lambda lib, o: _sched(lib).PolynomialLR(o, total_iters=9, power=2.0),
    "multiplicative": lambda lib, o: _sched(lib).MultiplicativeLR(o, lambda e: 0.95),
    "multiplicative_groups": lambda lib, o: _sched(lib).MultiplicativeLR(
        o, [lambda e: 0.9, lambda e: 1.0 - 0.01 * e]),
    "warm_restarts": lambda lib, o: _sched(lib).CosineAnnealingWarmRestarts(o, T_0=4),
    "warm_restarts_mult": lambda lib, o: _sched(lib).CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.001),
    "cyclic": lambda lib, o: _sched(lib).CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3),
    "cyclic_triangular2": lambda lib, o: _sched(lib).CyclicLR(
        o, base_lr=[0.01, 0.001], max_lr=[0.1, 0.02], step_size_up=2, step_size_down=4,
        mode="triangular2", base_momentum=[0.8, 0.7], max_momentum=0.95),
    "cyclic_exp_range": lambda lib, o: _sched(lib).CyclicLR(
        o, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9, cycle_momentum=False),
    "cyclic_scale_fn": lambda lib, o: _sched(lib).CyclicLR(
        o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1 / (1 + x), scale_mode="iterations"),
    "sequential": lambda lib, o: _sched(lib).SequentialLR(
        o, [_sched(lib).LinearLR(o, start_factor=0.1, total_iters=4),
            _sched(lib).CosineAnnealingLR(o, T_max=10, eta_min=0.001)], milestones=[4]),
    "sequential_three": lambda lib, o: _sched(lib).SequentialLR(
        o, [_sched(lib).ConstantLR(o, factor=0.2, total_iters=2),
            _sched(lib).ExponentialLR(o, gamma=0.8),
            _sched(lib).StepLR(o, step_size=3, gamma=0.5)], milestones=[3, 8]),
    "sequential_nested": lambda lib, o: _sched(lib).SequentialLR(
        o, [_sched(lib).ChainedScheduler([_sched(lib).ExponentialLR(o, gamma=0.9),
                                          _sched(lib).MultiStepLR(o, [3, 6], gamma=0.5)]),
            _sched(lib).LinearLR(o, start_factor=0.5, total_iters=2)],
        milestones=[8]),
    "chained": lambda lib, o: _sched(lib).ChainedScheduler(
        [_sched(lib).ConstantLR(o, factor=0.1, total_iters=2),
         _sched(lib).ExponentialLR(o, gamma=0.9)]),
    "chained_warmup_poly": lambda lib, o: _sched(lib).ChainedScheduler(
        [_sched(lib).LinearLR(o, start_factor=0.25, total_iters=4),
         _sched(lib).PolynomialLR(o, total_iters=12, power=0.5)], optimizer=o),
}
CYCLIC_ADAM = lambda lib, o: _sched(lib).CyclicLR(o, 0.001, 0.01, step_size_up=3,  # noqa: E731
                                                  base_momentum=0.85, max_momentum=0.95)


def _run(lib, schedule, epochs=25, kind="sgd", optimizer=None):
    """The rates (and momenta / betas) after each epoch: what a training script prints."""
    optimizer = optimizer or _optimizer(lib, kind)
    scheduler = schedule(lib, optimizer)
    seen = [_snapshot(optimizer, scheduler)]
    for _ in range(epochs):
        optimizer.step()
        scheduler.step()
        seen.append(_snapshot(optimizer, scheduler))
    return seen, optimizer, scheduler


def _snapshot(optimizer, scheduler):
    return (list(scheduler.get_last_lr()),
            [(g["lr"], g.get("momentum"), g.get("betas"), g.get("initial_lr"))
             for g in optimizer.param_groups])


# A SequentialLR re-runs its first scheduler's initial step: a ChainedScheduler there steps its
# schedulers a second time and they warn, in PyTorch too.
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler:UserWarning")
@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_rates_equal_pytorch_exactly(name):
    ours, _, _ = _run(nnref, SCHEDULES[name])
    theirs, _, _ = _run(torch, SCHEDULES[name])
    assert ours == theirs


def test_cyclic_lr_cycles_adams_beta1():
    ours, opt, _ = _run(nnref, CYCLIC_ADAM, epochs=10, kind="adam")
    theirs, opt_t, _ = _run(torch, CYCLIC_ADAM, epochs=10, kind="adam")
    assert ours == theirs
    assert opt.param_groups[0]["max_momentum"] == opt_t.param_groups[0]["max_momentum"] == 0.95


@pytest.mark.parametrize("name", ["linear", "linear_down", "constant_half", "polynomial_sq"])
def test_step_with_epoch_uses_the_closed_form_and_warns_like_pytorch(name):
    def run(lib):
        optimizer = _optimizer(lib)
        scheduler = SCHEDULES[name](lib, optimizer)
        rates = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in [1, 2, 5, 3, 9, 0, 4]:
                optimizer.step()
                scheduler.step(epoch)
                rates.append(scheduler.get_last_lr())
        return rates, [str(w.message) for w in caught]
    ours, theirs = run(nnref), run(torch)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1] and len(ours[1]) == 7


def test_warm_restarts_fractional_epochs_equal_pytorch():
    def run(lib, T_mult):
        optimizer = _optimizer(lib)
        scheduler = _sched(lib).CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=T_mult,
                                                            eta_min=0.005)
        rates = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for i in range(40):  # stepped per batch: 5 batches an epoch
                optimizer.step()
                scheduler.step(i / 5)
                rates.append((scheduler.get_last_lr(), scheduler.T_cur, scheduler.T_i,
                              scheduler.last_epoch))
        return rates, [str(w.message) for w in caught]
    for T_mult in (1, 2, 3):
        assert run(nnref, T_mult) == run(torch, T_mult)


def _comparable(value):
    """A state_dict value in plain Python (tensors are not expected in these schedulers)."""
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k != "_scale_fn_ref"}
    if isinstance(value, (list, tuple)):
        return type(value)(_comparable(v) for v in value)
    if callable(value):
        return "<callable>"
    return value


@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler:UserWarning")
@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_state_dict_equals_pytorchs_and_resumes_identically(name):
    schedule = SCHEDULES[name]
    _, opt, sched = _run(nnref, schedule, epochs=7)
    _, opt_t, sched_t = _run(torch, schedule, epochs=7)
    assert _comparable(sched.state_dict()) == _comparable(sched_t.state_dict())
    # A fresh optimizer and scheduler, loaded mid-run, continue as the uninterrupted run does.
    saved_opt, saved_sched = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    uninterrupted = []
    for _ in range(12):
        opt.step()
        sched.step()
        uninterrupted.append(_snapshot(opt, sched))
    resumed_opt = _optimizer(nnref)
    resumed = schedule(nnref, resumed_opt)
    resumed_opt.load_state_dict(saved_opt)
    resumed.load_state_dict(saved_sched)
    continued = []
    for _ in range(12):
        resumed_opt.step()
        resumed.step()
        continued.append(_snapshot(resumed_opt, resumed))
    assert continued == uninterrupted


def _messages(lib, action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action(lib)
    return [str(w.message) for w in caught]


def _before_optimizer(lib, name):
    optimizer = _optimizer(lib)
    scheduler = SCHEDULES[name](lib, optimizer)
    scheduler.step()
    scheduler.step()


@pytest.mark.parametrize("name", ["linear", "sequential", "chained", "cyclic", "warm_restarts"])
def test_scheduler_before_optimizer_warnings_match_pytorch(name):
    ours = _messages(nnref, lambda lib: _before_optimizer(lib, name))
    theirs = _messages(torch, lambda lib: _before_optimizer(lib, name))
    assert ours == theirs


@pytest.mark.parametrize("name", ["linear", "constant", "polynomial", "multiplicative", "cyclic",
                                  "warm_restarts"])
def test_get_lr_outside_step_warns_like_pytorch(name):
    def action(lib):
        optimizer = _optimizer(lib)
        SCHEDULES[name](lib, optimizer).get_lr()
    assert _messages(nnref, action) == _messages(torch, action) != []


def _error(build):
    try:
        build()
    except Exception as exc:  # noqa: BLE001 - type and message are what the test compares
        return type(exc).__name__, str(exc)
    return None


ERRORS = [
    lambda lib, o: _sched(lib).LinearLR(o, start_factor=0),
    lambda lib, o: _sched(lib).LinearLR(o, start_factor=1.5),
    lambda lib, o: _sched(lib).LinearLR(o, end_factor=-0.1),
    lambda lib, o: _sched(lib).ConstantLR(o, factor=1.5),
    lambda lib, o: _sched(lib).MultiplicativeLR(o, 0.9),
    lambda lib, o: _sched(lib).MultiplicativeLR(o, [lambda e: 1.0]),
    lambda lib, o: _sched(lib).CosineAnnealingWarmRestarts(o, T_0=0),
    lambda lib, o: _sched(lib).CosineAnnealingWarmRestarts(o, T_0=2.0),
    lambda lib, o: _sched(lib).CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda lib, o: _sched(lib).CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"),
    lambda lib, o: _sched(lib).CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda lib, o: _sched(lib).CyclicLR(o, 0.01, 0.1, mode="sine"),
    lambda lib, o: _sched(lib).CyclicLR(o, [0.01], 0.1),
    lambda lib, o: _sched(lib).CyclicLR(_optimizer(lib, "adagrad"), 0.01, 0.1),
    lambda lib, o: _sched(lib).CyclicLR("not an optimizer", 0.01, 0.1),
    lambda lib, o: _sched(lib).SequentialLR(o, [], milestones=[]),
    lambda lib, o: _sched(lib).SequentialLR(o, [_sched(lib).LinearLR(o)], milestones=[3]),
    lambda lib, o: _sched(lib).SequentialLR(
        o, [_sched(lib).LinearLR(o), _sched(lib).ExponentialLR(o, 0.9)], milestones=[]),
    lambda lib, o: _sched(lib).SequentialLR(
        o, [_sched(lib).LinearLR(o), _sched(lib).ReduceLROnPlateau(o)], milestones=[2]),
    lambda lib, o: _sched(lib).SequentialLR(
        o, [_sched(lib).LinearLR(o), object()], milestones=[2]),
    lambda lib, o: _sched(lib).SequentialLR(
        o, [_sched(lib).LinearLR(o), _sched(lib).LinearLR(_optimizer(lib))], milestones=[2]),
    lambda lib, o: _sched(lib).ChainedScheduler([]),
    lambda lib, o: _sched(lib).ChainedScheduler([_sched(lib).LinearLR(o),
                                                 _sched(lib).LinearLR(_optimizer(lib))]),
    lambda lib, o: _sched(lib).ChainedScheduler([_sched(lib).ReduceLROnPlateau(o)]),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_pytorch(index):
    ours = _error(lambda: ERRORS[index](nnref, _optimizer(nnref)))
    theirs = _error(lambda: ERRORS[index](torch, _optimizer(torch)))
    assert ours is not None
    assert ours == theirs


def test_cyclic_lr_state_dict_keeps_a_callable_objects_attributes():
    class Halving:
        def __init__(self):
            self.base = 2.0

        def __call__(self, x):
            return 1 / self.base ** (x - 1)

    def run(lib):
        fn = Halving()
        optimizer = _optimizer(lib)
        scheduler = _sched(lib).CyclicLR(optimizer, 0.01, 0.1, step_size_up=2, scale_fn=fn)
        fn.base = 3.0
        state = scheduler.state_dict()
        fresh = Halving()
        other = _sched(lib).CyclicLR(_optimizer(lib), 0.01, 0.1, step_size_up=2, scale_fn=fresh)
        other.load_state_dict(dict(state))  # PyTorch's load pops the key from the given dict
        return state["_scale_fn_custom"], fresh.base, "_scale_fn_ref" in state
    assert run(nnref) == run(torch) == ({"base": 3.0}, 3.0, False)


def test_sequential_lr_warmup_then_cosine_trains_like_pytorch():
    """The modern idiom end to end: AdamW with LinearLR warmup into CosineAnnealingLR, the losses
    and rates of a small regression."""
    def run(lib):
        w = lib.nn.Parameter(lib.sin(lib.arange(12.0)).reshape(3, 4) * 0.5)
        x = lib.sin(lib.arange(40.0) * 0.37).reshape(10, 4)
        y = lib.cos(lib.arange(30.0) * 0.21).reshape(10, 3)
        optimizer = lib.optim.AdamW([w], lr=0.05)
        scheduler = _sched(lib).SequentialLR(
            optimizer, [_sched(lib).LinearLR(optimizer, start_factor=0.1, total_iters=3),
                        _sched(lib).CosineAnnealingLR(optimizer, T_max=9)], milestones=[3])
        history = []
        for _ in range(12):
            optimizer.zero_grad()
            loss = ((x @ w.t() - y) ** 2).mean()
            loss.backward()
            optimizer.step()
            scheduler.step()
            history.append((loss.item(), scheduler.get_last_lr()[0]))
        return history
    ours, theirs = run(nnref), run(torch)
    assert [lr for _, lr in ours] == [lr for _, lr in theirs]
    np.testing.assert_allclose([v for v, _ in ours], [v for v, _ in theirs], rtol=1e-6)
    assert all(math.isfinite(v) for v, _ in ours)

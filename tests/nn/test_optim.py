"""``nnref.optim`` against ``torch.optim``: identical updates, state_dict layout, schedulers."""
import warnings

import numpy as np
import pytest

import nnref
import nnref.optim
from nnref import nn
from optim_compare import SHAPES, assert_same_state_dict, case_id, make_params, set_grads  # noqa: E402
from nn_compare import assert_close, numpy_of, raised, rng  # noqa: F401

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)




def assert_same_params(ours, theirs, what="parameter"):
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert_close(a, b, f"{what} {i}")



SGD_CASES = [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.9, nesterov=True),
             dict(lr=0.1, momentum=0.8, dampening=0.3, weight_decay=0.01),
             dict(lr=0.1, weight_decay=0.1, maximize=True),
             dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.05, maximize=True)]
ADAM_CASES = [dict(), dict(lr=0.01, betas=(0.8, 0.9), eps=1e-6), dict(lr=0.01, weight_decay=0.1),
              dict(lr=0.01, amsgrad=True, weight_decay=0.1, maximize=True),
              dict(lr=0.01, betas=(0.3, 0.5))]
OPTIMIZERS = ([("SGD", kw) for kw in SGD_CASES] + [("Adam", kw) for kw in ADAM_CASES]
              + [("AdamW", kw) for kw in ADAM_CASES])



@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", OPTIMIZERS, ids=case_id)
def test_ten_steps_match_pytorch(rng, case, dtype):
    name, kwargs = case
    ours, theirs = make_params(rng, dtype)
    opt = getattr(nnref.optim, name)(ours, **kwargs)
    opt_t = getattr(torch.optim, name)(theirs, **kwargs)
    for step in range(10):
        set_grads(rng, ours, theirs, skip=(1,) if step == 3 else ())
        grads_before = [a.grad.numpy().copy() for a in ours if a.grad is not None]
        opt.step()
        opt_t.step()
        assert_same_params(ours, theirs, f"after step {step + 1}: parameter")
        assert all(np.array_equal(g, a.grad.numpy())
                   for g, a in zip(grads_before, [a for a in ours if a.grad is not None]))
    assert_same_state_dict(opt, opt_t)
    assert repr(opt) == repr(opt_t)
    assert all(isinstance(p, nn.Parameter) and p.is_leaf for p in ours)


@pytest.mark.parametrize("flag", ["fused", "foreach"])
@pytest.mark.parametrize("case", OPTIMIZERS, ids=case_id)
def test_fused_and_foreach_updates_equal_the_default(rng, case, flag):
    """The speed-tuned path (optim/_fused.py) computes what the readable default ``_update`` does."""
    name, kwargs = case
    values = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    default, tuned = ([nn.Parameter(nnref.tensor(v.copy())) for v in values] for _ in range(2))
    optimizers = [getattr(nnref.optim, name)(default, **kwargs),
                  getattr(nnref.optim, name)(tuned, **kwargs, **{flag: True})]
    for step in range(10):
        for a, b in zip(default, tuned):
            g = rng.standard_normal(tuple(a.shape)).astype(np.float32)
            a.grad, b.grad = nnref.tensor(g.copy()), nnref.tensor(g.copy())
        for opt in optimizers:
            opt.step()
        for i, (a, b) in enumerate(zip(default, tuned)):
            np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-6, atol=1e-7,
                                       err_msg=f"parameter {i} after step {step + 1}")
    for a, b in zip(default, tuned):
        for key, value in optimizers[0].state[a].items():
            np.testing.assert_allclose(optimizers[1].state[b][key].numpy(), value.numpy(), rtol=1e-6,
                                       atol=1e-7, err_msg=key)


@pytest.mark.parametrize("case", [OPTIMIZERS[1], OPTIMIZERS[len(SGD_CASES)],
                                  OPTIMIZERS[-2]], ids=case_id)
def test_state_dict_round_trip_resumes_identically(rng, case):
    name, kwargs = case
    ours, theirs = make_params(rng)
    opt = getattr(nnref.optim, name)(ours, **kwargs)
    opt_t = getattr(torch.optim, name)(theirs, **kwargs)
    for _ in range(3):
        set_grads(rng, ours, theirs)
        opt.step(), opt_t.step()
    # A new optimizer over the same parameters continues where the old one stopped ...
    resumed = getattr(nnref.optim, name)(ours, **kwargs)
    resumed.load_state_dict(opt.state_dict())
    # ... and one loaded from PyTorch's state_dict does too.
    theirs_state = opt_t.state_dict()
    converted = {"state": {i: {k: nnref.tensor(numpy_of(v)) for k, v in s.items()}
                           for i, s in theirs_state["state"].items()},
                 "param_groups": theirs_state["param_groups"]}
    from_torch = getattr(nnref.optim, name)([nn.Parameter(p.detach().clone()) for p in ours],
                                            **kwargs)
    from_torch.load_state_dict(converted)
    for _ in range(3):
        set_grads(rng, ours, theirs)
        for p, q in zip(from_torch.param_groups[0]["params"], ours):
            p.grad = q.grad.clone()
        resumed.step(), opt_t.step(), from_torch.step()
        assert_same_params(ours, theirs)
        assert_same_params(from_torch.param_groups[0]["params"], theirs)


def test_param_groups_and_add_param_group(rng):
    ours, theirs = make_params(rng)
    opt = nnref.optim.SGD([{"params": ours[:2]}, {"params": ours[2:], "lr": 0.5}], lr=0.1,
                          momentum=0.9)
    opt_t = torch.optim.SGD([{"params": theirs[:2]}, {"params": theirs[2:], "lr": 0.5}], lr=0.1,
                            momentum=0.9)
    extra, extra_t = nn.Parameter(nnref.ones(2)), torch.nn.Parameter(torch.ones(2))
    opt.add_param_group({"params": extra, "momentum": 0.0})
    opt_t.add_param_group({"params": extra_t, "momentum": 0.0})
    for _ in range(3):
        set_grads(rng, ours + [extra], theirs + [extra_t])
        opt.step(), opt_t.step()
    assert_same_params(ours + [extra], theirs + [extra_t])
    assert_same_state_dict(opt, opt_t)
    assert [len(g["params"]) for g in opt.param_groups] == [2, 2, 1]


def test_zero_grad(rng):
    ours, theirs = make_params(rng)
    opt = nnref.optim.SGD(ours, lr=0.1)
    set_grads(rng, ours, theirs)
    opt.zero_grad(set_to_none=False)
    assert all(np.all(p.grad.numpy() == 0) for p in ours)
    opt.zero_grad()
    assert all(p.grad is None for p in ours)


def test_step_with_closure_and_a_model(rng):
    model = nn.Linear(3, 2)
    opt = nnref.optim.SGD(model.parameters(), lr=0.1)
    x = nnref.tensor(rng.standard_normal((4, 3)).astype(np.float32))

    def closure():
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss

    with nnref.no_grad():
        first = opt.step(closure)
    assert first.requires_grad  # the closure ran with gradients on
    assert opt.step(closure).item() < first.item()


def test_step_bumps_version_so_stale_graphs_are_caught():
    w = nn.Parameter(nnref.ones(3))
    y = (w * w).sum()
    w.grad = nnref.ones(3)
    nnref.optim.SGD([w], lr=0.1).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


CONSTRUCTOR_ERRORS = [
    lambda T, O, p: O.SGD(p, lr=-1),
    lambda T, O, p: O.SGD(p, momentum=-0.1),
    lambda T, O, p: O.SGD(p, lr=0.1, nesterov=True),
    lambda T, O, p: O.SGD(p, lr=0.1, weight_decay=-1),
    lambda T, O, p: O.Adam(p, betas=(1.0, 0.9)),
    lambda T, O, p: O.Adam(p, eps=-1),
    lambda T, O, p: O.AdamW(p, lr=-0.1),
    lambda T, O, p: O.SGD([], lr=0.1),
    lambda T, O, p: O.SGD(p[0], lr=0.1),
    lambda T, O, p: O.SGD([p[0] * 2], lr=0.1),
    lambda T, O, p: O.SGD([1.0], lr=0.1),
    lambda T, O, p: O.SGD([{"params": p}, {"params": p[:1]}], lr=0.1),
    lambda T, O, p: O.SGD([{"params": {p[0]}}], lr=0.1),
]


@pytest.mark.parametrize("case", CONSTRUCTOR_ERRORS)
def test_constructor_errors_match_pytorch(case):
    ours = [nn.Parameter(nnref.ones(2)), nn.Parameter(nnref.ones(3))]
    theirs = [torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))]
    expected = raised(lambda: case(torch, torch.optim, theirs))
    assert expected is not None and raised(lambda: case(nnref, nnref.optim, ours)) is expected


def test_load_state_dict_errors_match_pytorch(rng):
    ours, theirs = make_params(rng)
    saved = nnref.optim.SGD(ours, lr=0.1).state_dict()
    saved_t = torch.optim.SGD(theirs, lr=0.1).state_dict()
    for build, build_t in [(lambda: nnref.optim.SGD(ours[:2], lr=0.1),
                            lambda: torch.optim.SGD(theirs[:2], lr=0.1)),
                           (lambda: nnref.optim.SGD([{"params": ours[:2]}, {"params": ours[2:]}], lr=0.1),
                            lambda: torch.optim.SGD([{"params": theirs[:2]}, {"params": theirs[2:]}],
                                                    lr=0.1))]:
        expected = raised(lambda: build_t().load_state_dict(saved_t))
        assert expected is ValueError and raised(lambda: build().load_state_dict(saved)) is expected


# -- StepLR ------------------------------------------------------------------------------------
def test_step_lr_matches_pytorch(rng):
    ours, theirs = make_params(rng)
    opt, opt_t = nnref.optim.SGD(ours, lr=0.1, momentum=0.9), torch.optim.SGD(theirs, lr=0.1, momentum=0.9)
    sched = nnref.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    sched_t = torch.optim.lr_scheduler.StepLR(opt_t, step_size=3, gamma=0.5)
    assert opt.param_groups[0]["initial_lr"] == 0.1
    for epoch in range(10):
        set_grads(rng, ours, theirs)
        opt.step(), opt_t.step()
        sched.step(), sched_t.step()
        assert sched.get_last_lr() == sched_t.get_last_lr()
        assert opt.param_groups[0]["lr"] == opt_t.param_groups[0]["lr"]
    assert_same_params(ours, theirs)
    assert sched.state_dict() == sched_t.state_dict()
    assert_same_state_dict(opt, opt_t)


def test_step_lr_state_dict_resumes():
    params = [nn.Parameter(nnref.ones(2))]
    opt = nnref.optim.SGD(params, lr=1.0)
    sched = nnref.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    for _ in range(3):
        opt.step(), sched.step()
    opt2 = nnref.optim.SGD(params, lr=1.0)
    opt2.load_state_dict(opt.state_dict())
    sched2 = nnref.optim.lr_scheduler.StepLR(opt2, step_size=2, gamma=0.1)
    sched2.load_state_dict(sched.state_dict())
    opt.step(), sched.step(), opt2.step(), sched2.step()
    assert sched2.get_last_lr() == sched.get_last_lr() == [pytest.approx(0.01)]


def test_scheduler_stepped_before_optimizer_warns_like_pytorch():
    opt = nnref.optim.SGD([nn.Parameter(nnref.ones(2))], lr=1.0)
    sched = nnref.optim.lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()

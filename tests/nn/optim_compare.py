"""Helpers of the optimizer tests: the same parameters and gradients in nnref and PyTorch, and
state_dicts compared entry by entry."""
import numpy as np
import pytest

import nnref
from nnref import nn
from nn_compare import assert_close, numpy_of

torch = pytest.importorskip("torch")

SHAPES = [(5, 3), (3,), (2, 2, 2), ()]


def make_params(rng, dtype=np.float32):
    """One parameter of each of SHAPES, equal in both libraries."""
    values = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    return ([nn.Parameter(nnref.tensor(v.copy())) for v in values],
            [torch.nn.Parameter(torch.tensor(v.copy())) for v in values])


def set_grads(rng, ours, theirs, skip=()):
    """Equal random gradients on both sides; the parameters at ``skip`` get none."""
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if i in skip:
            a.grad = b.grad = None
            continue
        g = rng.standard_normal(tuple(b.shape)).astype(numpy_of(b).dtype)
        a.grad, b.grad = nnref.tensor(g.copy()), torch.tensor(g.copy())


def assert_same_state_dict(ours, theirs):
    """The same keys in the same order, the same param_groups, and each state entry the same
    kind (tensor or number) and value."""
    sd, sd_t = ours.state_dict(), theirs.state_dict()
    assert list(sd) == list(sd_t) == ["state", "param_groups"]
    assert sd["param_groups"] == sd_t["param_groups"]
    assert list(sd["state"]) == list(sd_t["state"])
    for index, state in sd["state"].items():
        assert list(state) == list(sd_t["state"][index])
        for key, value in state.items():
            assert isinstance(value, nnref.Tensor) == isinstance(sd_t["state"][index][key], torch.Tensor)
            assert_close(value, sd_t["state"][index][key], f"state[{index}][{key!r}]")


def case_id(case):
    """A readable test id for an (optimizer name, keyword arguments) case."""
    name, kwargs = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kwargs.items())

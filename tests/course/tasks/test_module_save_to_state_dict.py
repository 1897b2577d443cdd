"""Task ``module.save_to_state_dict``: ``Module._save_to_state_dict`` (chapter 10, state_dict).

``_save_to_state_dict(destination, prefix, keep_vars)`` puts the module's
*own* entries (not its children's: ``state_dict`` recurses) into
``destination``: each parameter, then each persistent buffer, under
``prefix + name``, skipping ``None``; the values are ``tensor.detach()``
(same memory, no history) or, with ``keep_vars=True``, the tensors
themselves.  A module that overrides ``get_extra_state`` also saves its
result under ``prefix + "_extra_state"``.
"""
from collections import OrderedDict

import pytest

import nnref
import nnref.nn
from task_helpers import require_pytorch

KEYS = ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
        "1.num_batches_tracked", "2.weight"]


def model(lib):
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3),
                             lib.nn.Linear(3, 2, bias=False))


def with_buffers(lib):
    class Stats(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = lib.nn.Parameter(lib.ones(2))
            self.register_buffer("count", lib.zeros(1))
            self.register_buffer("scratch", lib.zeros(2), persistent=False)
            self.register_buffer("unset", None)

    return Stats()


def test_keys_in_order():
    assert list(model(nnref).state_dict()) == KEYS


def test_own_entries_only():
    net = model(nnref)
    destination = OrderedDict()
    net[0]._save_to_state_dict(destination, "first.", False)
    assert list(destination) == ["first.weight", "first.bias"]
    destination = OrderedDict()
    net._save_to_state_dict(destination, "", False)  # a Sequential owns no tensor itself
    assert list(destination) == []


def test_persistent_buffers_only():
    assert list(with_buffers(nnref).state_dict()) == ["scale", "count"]


def test_values_are_detached_views():
    net = model(nnref)
    state = net.state_dict()
    weight = state["0.weight"]
    assert weight is not net[0].weight and not weight.requires_grad and weight.grad_fn is None
    with nnref.no_grad():
        net[0].weight.fill_(3.0)
    assert (weight == 3.0).all().item()  # same memory as the parameter


def test_keep_vars():
    net = model(nnref)
    state = net.state_dict(keep_vars=True)
    assert state["0.weight"] is net[0].weight
    assert state["1.running_mean"] is net[1].running_mean


def test_extra_state():
    class Counter(nnref.nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 7

        def get_extra_state(self):
            return {"calls": self.calls}

    holder = nnref.nn.Sequential(Counter())
    assert holder.state_dict() == OrderedDict([("0._extra_state", {"calls": 7})])


@pytest.mark.parametrize("build", [model, with_buffers])
def test_same_as_pytorch(build):
    torch = require_pytorch()
    ours, theirs = build(nnref).state_dict(), build(torch).state_dict()
    assert list(ours) == list(theirs)
    assert [tuple(v.shape) for v in ours.values()] == [tuple(v.shape) for v in theirs.values()]

"""Hidden tests of ``module.named_members``: the student's version against the reference."""
import nnref
import nnref.nn
from nnref.nn import Module
from task_helpers import using_reference


def shared_model():
    core = nnref.nn.Linear(2, 2)
    net = nnref.nn.Sequential(core, nnref.nn.BatchNorm1d(2), core, nnref.nn.Linear(2, 2, bias=False))
    net[3].weight = core.weight  # a parameter tied across modules, plus a module used twice
    net.register_buffer("none_buffer", None)
    return net


def listing(net, method, **kwargs):
    return [(name, id(t)) for name, t in getattr(net, method)(**kwargs)]


def test_like_the_reference():
    net = shared_model()
    for method in ("named_parameters", "named_buffers"):
        for kwargs in ({}, {"remove_duplicate": False}, {"prefix": "p"}, {"recurse": False},
                       {"prefix": "p", "recurse": False}):
            with using_reference(Module, "_named_members"):
                expected = listing(net, method, **kwargs)
            assert listing(net, method, **kwargs) == expected, (method, kwargs)


def test_a_generator_over_any_members():
    net = shared_model()
    members = net._named_members(lambda m: [("id", m)] if isinstance(m, nnref.nn.Linear) else [])
    assert [name for name, _ in members] == ["0.id", "3.id"]

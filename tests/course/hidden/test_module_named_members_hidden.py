"""Hidden tests of ``module.named_members``: the student's version against the reference."""
# ``expected`` is computed by the code under test here; the grader takes the right-hand side of
# every assert from its run of this file on the reference nnref (coursekit/checks.py).
import nnref
import nnref.nn
from nnref.nn import Module
from task_helpers import same_objects


def shared_model():
    core = nnref.nn.Linear(2, 2)
    net = nnref.nn.Sequential(core, nnref.nn.BatchNorm1d(2), core, nnref.nn.Linear(2, 2, bias=False))
    net[3].weight = core.weight  # a parameter tied across modules, plus a module used twice
    net.register_buffer("none_buffer", None)
    return net


def listing(net, method, **kwargs):
    pairs = list(getattr(net, method)(**kwargs))
    return list(zip([name for name, _ in pairs], same_objects(t for _, t in pairs)))


def test_like_the_reference():
    net = shared_model()
    for method in ("named_parameters", "named_buffers"):
        for kwargs in ({}, {"remove_duplicate": False}, {"prefix": "p"}, {"recurse": False},
                       {"prefix": "p", "recurse": False}):
            expected = listing(net, method, **kwargs)
            assert listing(net, method, **kwargs) == expected, (method, kwargs)


def test_a_generator_over_any_members():
    net = shared_model()
    members = net._named_members(lambda m: [("id", m)] if isinstance(m, nnref.nn.Linear) else [])
    assert [name for name, _ in members] == ["0.id", "3.id"]

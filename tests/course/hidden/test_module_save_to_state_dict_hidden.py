"""Hidden tests of ``module.save_to_state_dict``: the student's version against the reference."""
# ``expected`` is computed by the code under test here; the grader takes the right-hand side of
# every assert from its run of this file on the reference nnref (coursekit/checks.py).
from collections import OrderedDict

import nnref
import nnref.nn
from nnref.nn import Module


class Everything(Module):
    def __init__(self):
        super().__init__()
        self.b = nnref.nn.Parameter(nnref.ones(2))
        self.register_buffer("x", nnref.zeros(3))
        self.a = nnref.nn.Parameter(nnref.zeros(1))
        self.register_parameter("gone", None)
        self.register_buffer("tmp", nnref.zeros(1), persistent=False)
        self.register_buffer("y", nnref.ones(1))
        self.child = nnref.nn.Linear(1, 1)

    def get_extra_state(self):
        return "extra"

    def set_extra_state(self, state):
        self.loaded = state


def saved(module, keep_vars):
    destination = OrderedDict()
    module._save_to_state_dict(destination, "pre.", keep_vars)
    # keep_vars: the very tensors of the module, as indices into its own list of them
    own = {id(t): k for k, t in enumerate([*module.parameters(), *module.buffers()])}
    return [(k, v if isinstance(v, str) else own.get(id(v), -1) if keep_vars else v.tolist())
            for k, v in destination.items()]


def test_like_the_reference():
    module = Everything()
    for keep_vars in (False, True):
        expected = saved(module, keep_vars)
        assert saved(module, keep_vars) == expected


def test_adds_to_what_is_there():
    destination = OrderedDict(first=1)
    nnref.nn.Linear(1, 1)._save_to_state_dict(destination, "", False)
    assert list(destination) == ["first", "weight", "bias"]


def test_load_state_dict_round_trip():
    source, target = Everything(), Everything()
    with nnref.no_grad():
        source.b.fill_(5.0)
        source.x.fill_(2.0)
    target.load_state_dict(source.state_dict())
    assert target.b.tolist() == [5.0, 5.0] and target.x.tolist() == [2.0, 2.0, 2.0]
    assert target.loaded == "extra"

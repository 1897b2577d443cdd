"""Hidden tests of ``module.call_impl``: the student's hook loops against the reference."""
# ``expected`` is computed by the code under test here; the grader takes the right-hand side of
# every assert from its run of this file on the reference nnref (coursekit/checks.py).
import pytest

import nnref
import nnref.nn
from nnref.nn import Module


class Twice(Module):
    def forward(self, x, *, shift=0.0):
        return x * 2 + shift


def scenario():
    trace = []
    m = Twice()
    m.register_forward_pre_hook(lambda mod, args: trace.append(("pre", args[0].tolist())) or (args[0] + 1,))
    m.register_forward_pre_hook(
        lambda mod, args, kwargs: trace.append(("pre kw", sorted(kwargs))) or (args, {"shift": 1.0}),
        with_kwargs=True)
    m.register_forward_pre_hook(lambda mod, args: trace.append(("pre none",)), prepend=True)
    m.register_forward_hook(lambda mod, args, out: trace.append(("post", out.tolist())))
    m.register_forward_hook(lambda mod, args, kwargs, out: trace.append(("post kw", kwargs)) or out + 100,
                            with_kwargs=True, prepend=True)
    m.register_forward_hook(lambda mod, args, out: trace.append(("always", out.tolist())), always_call=True)
    out = m(nnref.tensor([1.0]), shift=0.5)
    return trace + [("out", out.tolist())]


def test_like_the_reference():
    expected = scenario()
    assert scenario() == expected


def test_always_call_hooks_run_once_when_a_later_hook_fails():
    calls = []
    m = Twice()
    m.register_forward_hook(lambda mod, args, out: calls.append("always"), always_call=True)

    def fail(mod, args, out):
        raise ValueError("late failure")

    m.register_forward_hook(fail)
    with pytest.raises(ValueError):
        m(nnref.tensor([1.0]))
    assert calls == ["always"]


def test_global_hooks_first():
    order = []
    hooks = nnref.nn.modules.module
    handles = [hooks.register_module_forward_pre_hook(lambda m, a: order.append("global pre")),
               hooks.register_module_forward_hook(lambda m, a, o: order.append("global post") or o * 0)]
    try:
        m = Twice()
        m.register_forward_pre_hook(lambda mod, a: order.append("pre"), prepend=True)
        m.register_forward_hook(lambda mod, a, o: order.append(f"post {o.tolist()}"), prepend=True)
        m(nnref.tensor([3.0]))
    finally:
        for handle in handles:
            handle.remove()
    assert order == ["global pre", "pre", "global post", "post [0.0]"]

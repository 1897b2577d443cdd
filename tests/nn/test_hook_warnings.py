"""Which line a module-hook warning points at, compared with PyTorch.

PyTorch attributes the legacy ``register_backward_hook`` FutureWarnings to its
own ``nn/modules/module.py`` (the ``_call_impl`` line), and the "Full backward
hook is firing ..." UserWarning to the line that called ``.backward()`` (from
``autograd.grad``/``autograd.backward``, to the frame above, as its fixed
``stacklevel=5`` gives).
"""
import os
import warnings

import pytest

import nnref

torch = pytest.importorskip("torch")

MODULE_PY = os.path.join("nn", "modules", "module.py")


def recorded(run, m):
    """(category, where, line) of each warning ``run(m)`` gives; ``where`` names the file's role."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(m)
    result = []
    for w in caught:
        if w.filename == __file__:
            where, line = "this test", w.lineno
        elif w.filename.endswith(MODULE_PY):
            where, line = "the library's module.py", None
        else:
            where, line = w.filename, w.lineno
        result.append((w.category.__name__, str(w.message)[:40], where, line))
    return result


def legacy_hook_on_several_nodes(m):
    linear = m.nn.Linear(2, 2)

    class Two(m.nn.Module):
        def forward(self, x):
            return linear(x).relu() * 2
    module = Two()
    module.register_backward_hook(lambda *args: None)
    module(m.ones(1, 2, requires_grad=True)).sum().backward()


def legacy_hook_on_a_dict_output(m):
    class Dict(m.nn.Module):
        def forward(self, x):
            return {"a": x * 2}
    module = Dict()
    module.register_backward_hook(lambda *args: None)
    module(m.ones(1, 2, requires_grad=True))


def full_hook_without_input_grads(m):
    linear = m.nn.Linear(2, 2)
    linear.register_full_backward_hook(lambda *args: None)
    out = linear(m.ones(1, 2))
    out.sum().backward()


def full_hook_through_autograd_grad(m):
    linear = m.nn.Linear(2, 2)
    linear.register_full_backward_hook(lambda *args: None)
    linear.register_full_backward_pre_hook(lambda *args: None)
    m.autograd.grad(linear(m.ones(1, 2)).sum(), linear.weight)


@pytest.mark.parametrize("run", [legacy_hook_on_several_nodes, legacy_hook_on_a_dict_output,
                                 full_hook_without_input_grads, full_hook_through_autograd_grad],
                         ids=lambda f: f.__name__)
def test_warnings_point_where_pytorch_points(run):
    ours, theirs = recorded(run, nnref), recorded(run, torch)
    assert ours == theirs
    assert len(ours) == 1


def test_full_hook_warning_names_the_backward_line():
    (warning,) = recorded(full_hook_without_input_grads, nnref)
    assert warning[2:] == ("this test", full_hook_without_input_grads.__code__.co_firstlineno + 4)

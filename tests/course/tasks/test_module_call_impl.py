"""Task ``module.call_impl``: the hook loops of ``Module._call_impl`` (chapter 09, Module hooks).

``module(*args, **kwargs)`` runs, around ``forward``:

1. the forward pre-hooks, global ones first (``register_module_forward_pre_hook``),
   then the module's, each in registration order (``prepend=True`` puts a hook
   first).  ``hook(module, args)`` may return new args (a lone value is made a
   1-tuple); with ``with_kwargs=True``, ``hook(module, args, kwargs)`` may
   return a ``(args, kwargs)`` pair, anything else is a ``RuntimeError``.
2. ``forward(*args, **kwargs)``.
3. the forward hooks, global then the module's: ``hook(module, args, output)``
   (``hook(module, args, kwargs, output)`` with ``with_kwargs=True``); a hook
   that returns something replaces the output.  Hooks registered with
   ``always_call=True`` are remembered once called, so that they are not called
   a second time if something fails afterwards.
"""
import pytest

import nnref
import nnref.nn
from task_helpers import require_pytorch


def double(lib):
    class Double(lib.nn.Module):
        def forward(self, x, scale=1.0):
            return x * 2 * scale

    return Double()


def traced_call(lib):
    """Call a module with every kind of forward hook and return what happened, in order."""
    trace = []
    module = double(lib)
    hooks = lib.nn.modules.module
    handles = [
        hooks.register_module_forward_pre_hook(lambda m, args: trace.append("global pre")),
        hooks.register_module_forward_hook(lambda m, args, out: trace.append("global post")),
    ]
    try:
        module.register_forward_pre_hook(lambda m, args: trace.append("pre A"))
        module.register_forward_pre_hook(lambda m, args: trace.append("pre B") or (args[0] + 1,))
        module.register_forward_pre_hook(lambda m, args: trace.append("pre first"), prepend=True)
        module.register_forward_hook(lambda m, args, out: trace.append(f"post A {out.tolist()}"))
        module.register_forward_hook(
            lambda m, args, kwargs, out: trace.append(f"post kwargs {sorted(kwargs)}") or out * 10,
            with_kwargs=True)
        module.register_forward_hook(lambda m, args, out: trace.append(f"post B {out.tolist()}"))
        out = module(lib.tensor([1.0]), scale=0.5)
    finally:
        for handle in handles:
            handle.remove()
    return trace + [f"result {out.tolist()}"]


EXPECTED = ["global pre", "pre first", "pre A", "pre B", "global post", "post A [2.0]",
            "post kwargs ['scale']", "post B [20.0]", "result [20.0]"]


def test_hook_order_and_results():
    assert traced_call(nnref) == EXPECTED


def test_pre_hook_may_return_a_lone_value():
    module = double(nnref)
    module.register_forward_pre_hook(lambda m, args: args[0] + 1)  # not a tuple
    assert module(nnref.tensor([1.0])).tolist() == [4.0]


def test_pre_hook_with_kwargs():
    module = double(nnref)
    module.register_forward_pre_hook(lambda m, args, kwargs: (args, {"scale": 3.0}), with_kwargs=True)
    assert module(nnref.tensor([1.0])).tolist() == [6.0]


def test_pre_hook_with_kwargs_must_return_a_pair():
    module = double(nnref)
    module.register_forward_pre_hook(lambda m, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError) as info:
        module(nnref.tensor([1.0]))
    assert not isinstance(info.value, NotImplementedError)


def test_forward_hook_sees_the_modified_input():
    module, seen = double(nnref), []
    module.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    module.register_forward_hook(lambda m, args, out: seen.append(args[0].tolist()))
    module(nnref.tensor([5.0]))
    assert seen == [[0.0]]


def test_removed_hooks_stay_silent():
    module, seen = double(nnref), []
    handle = module.register_forward_hook(lambda m, args, out: seen.append(1))
    handle.remove()
    module(nnref.tensor([1.0]))
    assert seen == []


def test_same_as_pytorch():
    torch = require_pytorch()
    assert traced_call(nnref) == traced_call(torch)

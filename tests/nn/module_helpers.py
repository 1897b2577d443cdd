"""Helpers for the nn.Module tests: run one piece of code on nnref and on PyTorch, compare.

Tests write their code once as ``def f(torch, nn): ...``, the way a reader runs
a notebook cell after ``import nnref as torch; from nnref import nn``.
(Named ``module_helpers`` so it cannot clash with helpers of other test folders.)
"""
import contextlib
import io
import re
import warnings

import numpy as np

import nnref
import nnref.nn


def libraries(torch):
    """``[(nnref, nnref.nn), (torch, torch.nn)]``: the two ways to run a test body."""
    return [(nnref, nnref.nn), (torch, torch.nn)]


def run_both(fn, torch):
    """``(fn(nnref, nnref.nn), fn(torch, torch.nn))``."""
    return fn(nnref, nnref.nn), fn(torch, torch.nn)


def normalise(text):
    """Make printed output comparable: library prefix and memory addresses."""
    text = str(text).replace("torch.", "nnref.")
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", text)


def printed(fn, *args):
    """What ``fn(*args)`` prints (warnings silenced), normalised."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(*args)
    return normalise(buffer.getvalue())


def raised(fn):
    """``(exception type name, normalised message)`` of what ``fn()`` raises, or ``None``."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the exception itself is what is compared
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        return type(exc).__name__, normalise(message)
    return None


def values(obj):
    """Nested tuples/lists/dicts of tensors -> plain Python values, for comparing across libraries."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (tuple, list)):
        return [values(o) for o in obj]
    if isinstance(obj, dict):
        return {k: values(v) for k, v in obj.items()}
    if hasattr(obj, "detach"):
        array = obj.detach().cpu().numpy() if not isinstance(obj, nnref.Tensor) else obj.detach().numpy()
        return {"shape": list(array.shape), "values": np.round(array.astype(np.float64), 5).tolist(),
                "dtype": str(obj.dtype).rsplit(".", 1)[-1]}
    return type(obj).__name__


def copy_state(src, dst):
    """Copy every parameter and buffer of torch module ``src`` into the nnref module ``dst``.

    Walks both trees with ``remove_duplicate=False`` so names must line up one to one.
    """
    pairs = [
        (list(src.named_parameters(remove_duplicate=False)), list(dst.named_parameters(remove_duplicate=False))),
        (list(src.named_buffers(remove_duplicate=False)), list(dst.named_buffers(remove_duplicate=False))),
    ]
    for src_items, dst_items in pairs:
        assert [n for n, _ in src_items] == [n for n, _ in dst_items]
        for (_, s), (_, d) in zip(src_items, dst_items):
            with nnref.no_grad():
                d.copy_(nnref.tensor(s.detach().cpu().numpy()))

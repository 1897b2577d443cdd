"""Every in-place method and ``out=`` function nnref shares with PyTorch, called with an input that
shares part of the written tensor's memory, or writing into an expanded or an inference tensor,
in nnref and in PyTorch (``test_memory_overlap.py``; ``python tests/core/overlap_survey.py
[WRITTEN]`` prints the table).

Each callable is tried with the argument forms below until one runs in both libraries on
separate memory; that form is then run on overlapping views of one storage.
"""
import collections
import math
import warnings

import numpy as np

import nnref
import torch

Row = collections.namedtuple("Row", "kind name status form ours theirs refused_honestly")

# Argument forms: "X" the input view (8 elements), "X4" its first 4, "M24"/"M42" it as 2x4/4x2,
# "I" an index tensor, "B" a mask, numbers as themselves.  A leading tuple is out='s shape.
METHOD_FORMS = [(), ("X",), ("X", "X"), (0, "X"), (0, "I", "X"), ("B", "X"), ("B", 0.5), (0.5,), ("X", 0.5),
                (0, "I"), (0, "I", 0.5), ("I", "X"), (0, "I", "X4"), ("X4",), (0, "I", 0.5)]
OUT_FORMS = [("X",) + form for form in METHOD_FORMS] + [
    ("X", 0), ("X", 0, True), ((1,), "X"), ((1,), "X", 0, True), ((2, 2), "M24", "M42"), ((2,), "M24", "X4"),
    ((4,), "X4", "X4"), ((1,), "X4", "X4"), ((2, 4), "M24", "M42", "M24"), ((16,), ("X", "X4")),
    ((16,), "X", "X")]
# Methods that write no input into the tensor, or that replace its storage.
NOT_WRITES_OF_INPUTS = {"uniform_", "normal_", "random_", "exponential_", "geometric_", "cauchy_", "log_normal_",
                        "bernoulli_", "requires_grad_", "share_memory_", "retain_grad_", "resize_", "resize_as_",
                        "set_", "detach_", "zero_", "fill_"}


def _argument(lib, spec, view):
    if isinstance(spec, tuple):
        return [_argument(lib, part, view) for part in spec]
    return {"X": lambda: view, "X4": lambda: view[:4], "M24": lambda: view.view(2, 4),
            "M42": lambda: view.view(4, 2), "I": lambda: lib.tensor([0, 1, 2, 3]),
            "B": lambda: lib.tensor([True, False] * 4)}.get(spec, lambda: spec)() if isinstance(spec, str) else spec


# How the written tensor (``self`` of a method, ``out``) is laid out: beside its input, sharing
# part of its memory, expanded (several positions of one element), or made in inference mode.
WRITTEN = ("apart", "overlapping", "expanded", "inference")


def _call(lib, kind, name, form, written):
    store = (lib.arange(24, dtype=lib.float32) % 7 + 1) / 4
    shape = (8,)
    if form and isinstance(form[0], tuple) and kind == "out":
        shape, form = form[0], form[1:]
    out = store[1:1 + math.prod(shape)].view(shape)
    if written == "expanded":
        out = store[1:1 + math.prod(shape[1:])].view(shape[1:]).expand(shape) if shape[0] > 1 else \
            store[1:2].view((1,) * len(shape)).expand(*shape[:-1], 2)
    elif written == "inference":
        with lib.inference_mode():
            out = out.clone()
    view = store[0:8] if written == "overlapping" else store[12:20].clone()
    args = [_argument(lib, spec, view) for spec in form]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "method":
                getattr(out, name)(*args)
            else:
                getattr(lib, name)(*args, out=out)
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return type(error).__name__, str(error)
    return "ok", store.tolist()


def same(ours, theirs):
    """Equal errors, or values equal up to the last bits of ``exp``/``log``/``sin`` (SLEEF's
    rounding in PyTorch, SciPy's digamma in nnref: the Differences page)."""
    if ours[0] != "ok" or theirs[0] != "ok":
        return ours == theirs
    return np.allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-7, equal_nan=True)


def callables():
    methods = sorted(n for n in dir(nnref.Tensor) if n.endswith("_") and not n.startswith("_")
                     and hasattr(torch.Tensor, n) and n not in NOT_WRITES_OF_INPUTS)
    outs = sorted(n for n in dir(nnref) if not n.startswith("_") and hasattr(torch, n)
                  and getattr(getattr(nnref, n), "__wrapped__", None) is not None)
    return [("method", n) for n in methods] + [("out", n) for n in outs]


def survey(written="overlapping"):
    """One row per callable: what it gives with the written tensor laid out as ``written``."""
    rows = []
    for kind, name in callables():
        for form in METHOD_FORMS if kind == "method" else OUT_FORMS:
            if _call(torch, kind, name, form, "apart")[0] == "ok" and _call(nnref, kind, name, form, "apart")[0] == "ok":
                ours, theirs = _call(nnref, kind, name, form, written), _call(torch, kind, name, form, written)
                honest = ours[0] == "NotImplementedError" and "nnref cannot reproduce" in ours[1] and theirs[0] == "ok"
                rows.append(Row(kind, name, "same" if same(ours, theirs) else "different", form, ours, theirs, honest))
                break
        else:
            rows.append(Row(kind, name, "no form", None, None, None, False))
    return rows


if __name__ == "__main__":
    import sys
    for row in survey(*sys.argv[1:]):
        print(row.kind, row.name, row.status, row.form, "" if row.status != "different" else (row.ours[0], row.theirs[0]))

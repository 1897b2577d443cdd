"""The dtype of ``out=``, and the dtype a scan or a reduction computes in, against PyTorch.

PyTorch's ``out=`` is not one rule: most kernels cast their result into ``out`` as the in-place
ops do, some take only the result's own dtype (``abs``, ``floor``, ``mm``, ``softmax``: each with
its message), the reductions compute in ``out``'s dtype as if it were their ``dtype=``
(``sum(x32, 0, out=y64)`` adds in float64), and a few have no kernel for it.  The survey calls
every ``out=`` function nnref shares with PyTorch with inputs of three dtypes and outs of six,
in both libraries: PyTorch refuses, nnref refuses; PyTorch computes, nnref gives the same dtype
and values.
"""
import itertools
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import nnref
from nnref._ops.out import _SAME_DTYPE

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))
import overlap_survey  # noqa: E402

IN_DTYPES = ("float32", "int64", "float64")
OUT_DTYPES = ("float64", "float16", "int64", "bool", "int32", "float32")
# Both refuse, but check in another order: an integer input is refused by the kernel in nnref
# before its out's dtype is (PyTorch looks at the out first).
CHECKED_IN_ANOTHER_ORDER = {"frac", "hardshrink", "histc", "lerp", "log_softmax", "logcumsumexp", "softmax",
                            "hypot", "logaddexp", "logaddexp2"}


def _call(lib, name, form, out_dtype, in_dtype):
    store = ((lib.arange(24, dtype=lib.float32) % 7 + 1) / 4).to(getattr(lib, in_dtype))
    shape = (8,)
    if form and isinstance(form[0], tuple):
        shape, form = form[0], form[1:]
    out = lib.zeros(shape, dtype=getattr(lib, out_dtype))
    args = [overlap_survey._argument(lib, spec, store[12:20].clone()) for spec in form]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(lib, name)(*args, out=out)
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return type(error).__name__, str(error)
    return "ok", str(out.dtype).rpartition(".")[2], out.tolist()


def survey():
    """``(name, in dtype, out dtype, PyTorch's outcome, nnref's)`` for every out= function."""
    rows = []
    for kind, name in overlap_survey.callables():
        if kind != "out":
            continue
        form = next((f for f in overlap_survey.OUT_FORMS
                     if _call(torch, name, f, "float32", "float32")[0] == "ok"
                     and _call(nnref, name, f, "float32", "float32")[0] == "ok"), None)
        if form is None:
            continue
        for in_dtype, out_dtype in itertools.product(IN_DTYPES, OUT_DTYPES):
            rows.append((name, in_dtype, out_dtype, _call(torch, name, form, out_dtype, in_dtype),
                         _call(nnref, name, form, out_dtype, in_dtype)))
    return rows


def _same_values(theirs, ours):
    a, b = np.asarray(theirs, dtype=float), np.asarray(ours, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-3, atol=1e-6, equal_nan=True)


def test_every_out_function_takes_the_dtypes_pytorch_takes():
    rows = survey()
    assert len({r[0] for r in rows}) >= 130, f"only {len({r[0] for r in rows})} out= functions reached"
    silent = [r for r in rows if r[3][0] != "ok" and r[4][0] == "ok"]
    assert not silent, f"PyTorch refuses, nnref computes: {silent[:6]}"
    wrong = [r for r in rows if r[3][0] == "ok" and (r[4][0] != "ok" or r[3][1] != r[4][1]
                                                     or not _same_values(r[3][2], r[4][2]))]
    assert not wrong, f"PyTorch computes, nnref differs: {wrong[:6]}"
    other_error = [r for r in rows if r[3][0] != "ok" and r[4][0] not in ("ok", r[3][0])
                   and not (r[0] in CHECKED_IN_ANOTHER_ORDER and r[1] == "int64")]
    assert not other_error, other_error[:6]
    # the kernels that take only their result's dtype say so as PyTorch does
    worded = [r for r in rows if r[0] in _SAME_DTYPE and r[3][0] == r[4][0] == "RuntimeError"
              and r[3][1] != r[4][1]]
    assert not worded, worded[:6]


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype, result", [("float32", None), ("float16", None), ("float64", None),
                                           ("float32", "float16"), ("float32", "float64"), ("int64", "float32")])
def test_scans_carry_their_running_value_as_aten_does(name, dtype, result):
    """ATen's CPU scans carry the running value in ``acc_type``: double for float32, float for
    the 16-bit floats; an input is cast to ``dtype=`` first."""
    rng = np.random.default_rng(7)
    values = rng.standard_normal(300) * np.where(rng.random(300) < 0.1, 1e7, 1.0)
    if name == "cumprod":
        values = 1 + values / 40
    def go(lib):
        x = lib.tensor(values.tolist(), dtype=getattr(lib, dtype))
        kwargs = {"dtype": getattr(lib, result)} if result else {}
        return getattr(lib, name)(x, 0, **kwargs).tolist()
    ours, theirs = go(nnref), go(torch)
    assert [v if not math.isnan(v) else "nan" for v in ours] == [v if not math.isnan(v) else "nan" for v in theirs]


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans_into_bool_are_refused_as_in_pytorch(name):
    for lib in (nnref, torch):
        with pytest.raises(NotImplementedError, match=f'"{name}_out_cpu" not implemented for \'Bool\''):
            getattr(lib, name)(lib.ones(3), 0, dtype=lib.bool)


def test_a_product_as_bool_is_their_all():
    for values in ([1.0, 2.0, 0.5], [1, 0, 3], [True, True]):
        ours, theirs = ((lib.prod(lib.tensor(values), 0, dtype=lib.bool), lib.prod(lib.tensor(values), dtype=lib.bool))
                        for lib in (nnref, torch))
        assert [(str(t.dtype), t.item()) for t in ours] == [(str(t.dtype), t.item()) for t in theirs]


def test_a_sum_into_a_16_bit_float_casts_its_input_first():
    def go(lib):
        x = lib.tensor([1e8, 1.0, -1e8, 3.3, 0.5, 0.7])
        return [lib.sum(x, dtype=lib.float16).item(), lib.sum(x[1:], dtype=lib.bfloat16).item()]
    ours, theirs = go(nnref), go(torch)
    assert str(ours) == str(theirs)


def _outcome(call):
    try:
        return "ok", call().tolist()
    except (TypeError, RuntimeError) as error:
        return type(error).__name__, str(error)


@pytest.mark.parametrize("form", ["x, 0.5", "0.5, x", "x, x", "x32, 0.5"])
@pytest.mark.parametrize("out_dtype", ["float32", "float64"])
def test_float_power_writes_only_into_its_own_dtype(form, out_dtype):
    """``float_power`` computes in float64; its ``out=`` takes only that dtype (no cast)."""
    def go(lib):
        x, x32 = lib.tensor([1.0, 2.0], dtype=lib.float64), lib.tensor([1.0, 2.0])
        out = lib.zeros(2, dtype=getattr(lib, out_dtype))
        return _outcome(lambda: lib.float_power(*eval(form, {"x": x, "x32": x32}), out=out))
    assert go(nnref) == go(torch)


@pytest.mark.parametrize("args", ["c, x, 0.5", "c, 0.5, x", "c, 0.5, 1.5", "True, x, x", "c, x, x"])
@pytest.mark.parametrize("with_out", [False, True])
def test_where_takes_numbers_only_without_out(args, with_out):
    """``where(c, x, 0.)`` is an overload with no ``out=``: with one, every argument is a tensor."""
    def go(lib):
        names = {"c": lib.tensor([True, False]), "x": lib.tensor([1.0, 2.0])}
        kwargs = {"out": lib.zeros(2)} if with_out else {}
        kind, result = _outcome(lambda: lib.where(*eval(args, names), **kwargs))
        # PyTorch's parser marks each overload's mismatches ("didn't match because ..."): nnref
        # gives the first line and the overloads only.
        return kind, result.split("\n")[0] if kind == "TypeError" else result
    assert go(nnref) == go(torch)

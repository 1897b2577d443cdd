"""A number (or anything but a tensor) where every overload of a ``torch.*`` function takes a
Tensor: PyTorch's argument parser refuses it with ``TypeError`` before any operator runs, and so
does nnref (``nnref._numpy_names``, from the signatures ``tools/gen_tensor_only.py`` writes).

For every function and method of ``nnref._tensor_only`` that nnref has, each argument that must be a Tensor
is given as ``0.5``, without and with ``out=``: the same exception type and the same message as
PyTorch.  Where PyTorch takes a number (``pow(2, x)``, ``add(x, 2)``...) nnref still does.
"""
import importlib.util
import pathlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nnref  # noqa: E402
from nnref import _numpy_names  # noqa: E402
from nnref._tensor_only import LINALG_SIGNATURES, METHOD_SIGNATURES, SIGNATURES, TORCH_VERSION  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_tensor_only", ROOT / "tools" / "gen_tensor_only.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_is_what_the_generator_writes():
    if torch.__version__.split("+")[0] != TORCH_VERSION:
        pytest.skip(f"the table is PyTorch {TORCH_VERSION}'s; this is {torch.__version__}")
    generator = _generator()
    *tables, version = generator.signatures()
    assert generator.module_text(*tables, version) == (ROOT / "nnref" / "_tensor_only.py").read_text(), (
        "nnref/_tensor_only.py is stale: run python tools/gen_tensor_only.py")


def _value(lib, param):
    """A value of ``param``'s type that PyTorch's parser binds, or None if there is none here."""
    kinds = {"Tensor": lambda: lib.ones(2, 2), "Scalar": lambda: 2, "int64_t": lambda: 0, "SymInt": lambda: 1,
             "double": lambda: 0.5, "bool": lambda: False, "IntArrayRef": lambda: (1,),
             "SymIntArrayRef": lambda: (2,), "TensorList": lambda: (lib.ones(2, 2), lib.ones(2, 2)),
             "ScalarType": lambda: lib.float32, "Device": lambda: "cpu", "c10::string_view": lambda: "floor"}
    make = kinds.get(param.kind)
    return None if make is None else make()


def _calls():
    """``(name, signature, position, with out=, a method? or "linalg")``: a number at each position
    that must be a Tensor, of every function and method nnref shares with the tables."""
    for method, table, owner in ((False, SIGNATURES, nnref), (True, METHOD_SIGNATURES, nnref.Tensor),
                                 ("linalg", LINALG_SIGNATURES, nnref.linalg)):
        for name in sorted(table):
            if not callable(getattr(owner, name, None)):
                continue
            guard = _numpy_names._Guard(table[name])
            has_out = any(p.name == "out" for s in guard.signatures for p in s.params)
            for position in guard.positions:
                yield name, _filled(guard, position), position, False, method
                if has_out:
                    yield name, _filled(guard, position), position, True, method
            for position in guard.out_positions:
                yield name, _filled(guard, position, out=True), position, True, method


def _filled(guard, position, out=False):
    """The overload whose other arguments the call fills: one shown by PyTorch if it can."""
    fits = [s for s in guard.signatures if s.max_pos_args > position
            and (not out or any(p.name == "out" for p in s.params))]
    return min(fits, key=lambda s: s.hidden)


CALLS = list(_calls())


def _outcome(lib, name, signature, position, with_out, method):
    args = []
    for param in signature.params[:max(position + 1, signature.min_args)]:
        if param.keyword_only:
            break
        value = _value(lib, param)
        if value is None:
            pytest.skip(f"no value made for {param.kind}")
        args.append(value)
    args[position] = 0.5
    kwargs = {"out": lib.empty(0)} if with_out else {}
    owner = lib.ones(2, 2) if method is True else lib.linalg if method == "linalg" else lib
    try:
        getattr(owner, name)(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return type(error), str(error)
    return None, None


@pytest.mark.parametrize("name, signature, position, with_out, method", CALLS,
                         ids=[f"{'Tensor.' if c[4] is True else 'linalg.' if c[4] else ''}{c[0]}-{c[2]}{'-out' if c[3] else ''}" for c in CALLS])
def test_a_number_where_a_tensor_is_required_is_refused_as_pytorch_does(name, signature, position, with_out,
                                                                         method):
    expected = _outcome(torch, name, signature, position, with_out, method)
    got = _outcome(nnref, name, signature, position, with_out, method)
    assert expected[0] is TypeError, expected
    assert got[0] is TypeError, (got, expected)
    assert got[1] == expected[1]


def test_the_survey_covers_most_of_the_namespace():
    """Most functions have an argument that must be a Tensor; most methods' is only self."""
    functions = {c[0] for c in CALLS if not c[4]}
    methods = {c[0] for c in CALLS if c[4] is True}
    linalg = {c[0] for c in CALLS if c[4] == "linalg"}
    assert len(functions) > 250 and len(methods) > 80 and len(linalg) > 15, (len(functions), len(methods), len(linalg))


@pytest.mark.parametrize("call", [
    lambda t, x: t.pow(2, x), lambda t, x: t.remainder(2, x), lambda t, x: t.xlogy(2, x),
    lambda t, x: t.float_power(2, x), lambda t, x: t.add(x, 2), lambda t, x: t.add(2, x),
    lambda t, x: t.mul(0.5, x), lambda t, x: t.sub(x, 1, alpha=2), lambda t, x: t.eq(x, 2),
    lambda t, x: t.where(x > 1, x, 0.5), lambda t, x: t.where(x > 1, 0.5, x), lambda t, x: t.clamp(x, 0, 2),
    lambda t, x: t.clamp(x, min=t.ones(3)), lambda t, x: t.maximum(x, t.tensor(1.0)),
    lambda t, x: t.sum(x, dim=0), lambda t, x: t.sum(x, axis=0, keepdims=True), lambda t, x: t.max(x, 0),
    lambda t, x: t.cat((x, x), dim=0), lambda t, x: t.matmul(x, x, out=t.empty(())),
    lambda t, x: t.fmod(x, 2), lambda t, x: t.bitwise_and(t.tensor([1, 2]), 3),
    lambda t, x: t.matmul(t.nn.Parameter(x), x), lambda t, x: t.lerp(x, x, 0.5),
])
def test_where_pytorch_takes_a_number_nnref_does(call):
    expected = call(torch, torch.tensor([1.0, 2.0, 3.0]))
    got = call(nnref, nnref.tensor([1.0, 2.0, 3.0]))
    if isinstance(expected, tuple):
        expected, got = expected[0], got[0]
    assert got.shape == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy())


@pytest.mark.parametrize("call", [
    lambda t, x: t.clamp(0.5, x), lambda t, x: t.remainder(0.5, x, out=t.empty(3)),
    lambda t, x: t.where(0.5, x, x), lambda t, x: t.matmul(x, other=0.5), lambda t, x: t.matmul(x, x, out=2),
    lambda t, x: t.cat((x, 0.5)), lambda t, x: t.maximum(x, [1.0, 2.0, 3.0]), lambda t, x: t.eq(0.5, x),
    lambda t, x: t.sum(0.5, x), lambda t, x: t.max(0.5, x), lambda t, x: t.isclose(x, 0.5),
    lambda t, x: t.maximum(np.float32(0.5), x), lambda t, x: t.maximum(None, x), lambda t, x: t.exp("x"),
    lambda t, x: t.clamp(0.5, axis=1), lambda t, x: t.matmul(0.5, x, x), lambda t, x: t.stack([x, 1]),
    lambda t, x: t.cat(x), lambda t, x: t.cat(tensors=(x, None)),
])
def test_other_refusals_read_as_pytorch_s(call):
    x = torch.tensor([1.0, 2.0, 3.0])
    with pytest.raises(TypeError) as expected:
        call(torch, x)
    with pytest.raises(TypeError) as got:
        call(nnref, nnref.tensor([1.0, 2.0, 3.0]))
    assert str(got.value) == str(expected.value)


def test_several_mismatches_are_marked_as_pytorch_marks_them():
    """``where``'s overloads without defaults get a line marking each argument that does not fit."""
    x = torch.tensor([1.0])
    with pytest.raises(TypeError) as expected:
        torch.where(0.5, x, x)
    with pytest.raises(TypeError) as got:
        nnref.where(0.5, nnref.tensor([1.0]), nnref.tensor([1.0]))
    assert "didn't match because some of the arguments have invalid types: (!float!, !Tensor!, Tensor)" in str(
        expected.value)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("make", [
    lambda t: t.tensor(None), lambda t: t.tensor(object()), lambda t: t.tensor([None]), lambda t: t.tensor({"a": 1}),
    lambda t: t.tensor([[1], [None]]), lambda t: t.tensor("abc"), lambda t: t.tensor([1, "a"]),
    lambda t: t.full((2,), None), lambda t: t.full((2,), "a")])
def test_data_without_a_dtype_is_refused_as_pytorch_does(make):
    with pytest.raises(Exception) as expected:
        make(torch)
    with pytest.raises(Exception) as got:
        make(nnref)
    assert (type(got.value), str(got.value)) == (type(expected.value), str(expected.value))

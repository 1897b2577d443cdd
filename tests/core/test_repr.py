"""``repr(tensor)`` reads exactly like PyTorch's (with ``nnref.`` where PyTorch says ``torch.``)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nnref

torch = pytest.importorskip("torch")


def both(fn):
    """repr of ``fn(nnref)`` and of ``fn(torch)`` with PyTorch's module name swapped."""
    return repr(fn(nnref)), repr(fn(torch))


CASES = {
    "ints": lambda m: m.tensor([1, 2, 3]),
    "negative_ints": lambda m: m.tensor([[1, -2], [300, 4]]),
    "whole_floats": lambda m: m.tensor([1.0, 2.0]),
    "floats": lambda m: m.tensor([1.5, -2.25]),
    "many_decimals": lambda m: m.tensor([1.123456789]),
    "scalar_float": lambda m: m.tensor(3.0),
    "scalar_int": lambda m: m.tensor(3),
    "scalar_bool": lambda m: m.tensor(True),
    "negative_zero": lambda m: m.tensor(-0.0),
    "bools": lambda m: m.tensor([True, False]),
    "comparison": lambda m: m.arange(6).reshape(2, 3) > 2,
    "sci_small": lambda m: m.tensor([1e-5, 1.0]),
    "sci_large_ratio": lambda m: m.tensor([1e10, 1.0]),
    "sci_big": lambda m: m.tensor([123456789.0]),
    "sci_whole_big": lambda m: m.tensor([1e8, 2e8]),
    "not_sci_ratio_1000": lambda m: m.tensor([0.0001, 0.001]),
    "ratio_just_over": lambda m: m.tensor([100.0, 0.001]),
    "wide_whole": lambda m: m.tensor([99999.0, 1.0]),
    "negative_and_zero": lambda m: m.tensor([-1.0, 0.0]),
    "all_zero": lambda m: m.tensor([0.0, 0.0]),
    "nan": lambda m: m.tensor([float("nan"), 1.0]),
    "only_nan": lambda m: m.tensor([float("nan")]),
    "inf": lambda m: m.tensor([float("inf"), -float("inf"), 1.5]),
    "inf_whole": lambda m: m.tensor([float("inf"), 2.0]),
    "summarised_ints": lambda m: m.arange(2000),
    "summarised_floats": lambda m: m.arange(2000.0),
    "summarised_column": lambda m: m.arange(1001).reshape(1001, 1),
    "summarised_2d": lambda m: m.arange(3000).reshape(30, 100),
    "summarised_3d": lambda m: m.arange(3000.0).reshape(3, 10, 100) / 7,
    "wrapped_1d": lambda m: m.arange(40.0) / 3,
    "wrapped_2d": lambda m: m.arange(100).reshape(4, 25),
    "wrapped_2d_floats": lambda m: m.arange(60.0).reshape(6, 10) * 1.1111,
    "3d": lambda m: m.arange(24.0).reshape(2, 3, 4),
    "3d_sci": lambda m: m.arange(24.0).reshape(2, 3, 4) * 1e5,
    "nested_one": lambda m: m.tensor([[[1.0]]]),
    "big_ints": lambda m: m.arange(30).reshape(3, 10) * 1000000,
    "requires_grad": lambda m: m.tensor([[1.5, 2.0], [3.0, -4.0]], requires_grad=True),
    "requires_grad_scalar": lambda m: m.tensor(1.0, requires_grad=True),
    "grad_fn": lambda m: m.tensor([1.0], requires_grad=True) * 2,
    "grad_fn_sum": lambda m: m.tensor([1.0, 2.0], requires_grad=True).sum(),
    "float64": lambda m: m.tensor([1.0], dtype=m.float64),
    "float64_scalar": lambda m: m.tensor(2.5, dtype=m.float64),
    "float64_grad_fn": lambda m: m.tensor([1.0], dtype=m.float64, requires_grad=True) * 3,
    "to_double_grad_fn": lambda m: m.tensor([1.0, 2.0], requires_grad=True).double(),
    "int32": lambda m: m.tensor([1, 2], dtype=m.int32),
    "int32_scalar": lambda m: m.tensor(5, dtype=m.int32),
    "float16": lambda m: m.tensor([1.0, 2.5], dtype=m.float16),
    "bfloat16": lambda m: m.tensor([1.0, 2.5], dtype=m.bfloat16),
    "empty": lambda m: m.zeros(0),
    "empty_2d": lambda m: m.zeros(0, 3),
    "empty_int": lambda m: m.zeros(0, dtype=m.int64),
    "empty_float64": lambda m: m.zeros(2, 0, dtype=m.float64),
    "suffix_wraps": lambda m: m.arange(1200.0).reshape(2, 600),
    "long_column": lambda m: m.arange(1200.0).reshape(600, 2),
    "full_rows": lambda m: m.full((2, 40), 1.5),
    "full_ints": lambda m: m.full((100,), -7),
    "linspace_float64": lambda m: m.linspace(0, 1, 17, dtype=m.float64),
    "wide_grad_fn": lambda m: (m.arange(16.0).reshape(2, 8) * 1234.5678).requires_grad_() * 1,
    "max_dim_namedtuple": lambda m: m.tensor([[1.0, 2.0]], requires_grad=True).max(1),
    "size": lambda m: m.ones(2, 3).shape,
    "size_constructor": lambda m: m.Size([2, 3]),
    "dtype": lambda m: m.float32,
    "device": lambda m: m.device("cpu"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_repr_matches_torch(name):
    ours, theirs = both(CASES[name])
    assert ours == theirs


def test_repr_with_float64_default():
    for m in (nnref, torch):
        m.set_default_dtype(m.float64)
    try:
        for f in (lambda m: m.tensor([1.5]), lambda m: m.tensor([1.5], dtype=m.float32),
                  lambda m: m.zeros(0, dtype=m.float32)):
            ours, theirs = both(f)
            assert ours == theirs
    finally:
        for m in (nnref, torch):
            m.set_default_dtype(m.float32)


def test_str_format_and_print_match():
    x = [1.25, -3.5]
    assert str(nnref.tensor(x)) == str(torch.tensor(x))
    assert f"{nnref.tensor(2.5):.2f}" == f"{torch.tensor(2.5):.2f}"
    assert f"{nnref.tensor(x)}" == f"{torch.tensor(x)}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(st.integers(1, 8), max_size=3), kind=st.sampled_from(
           ["normal", "whole", "ints", "special", "rounded", "bools"]),
       exponent=st.integers(-9, 11), dtype=st.sampled_from([None, "float64", "float16", "bfloat16",
                                                            "int32"]),
       seed=st.integers(0, 2**32 - 1), grad=st.sampled_from([None, "leaf", "grad_fn"]))
def test_repr_random_tensors(shape, kind, exponent, dtype, seed, grad):
    rng = np.random.default_rng(seed)
    shape, scale = tuple(shape), 10.0 ** exponent
    if dtype == "int32":
        scale = min(scale, 1e3)  # a float beyond int32's range converts to an unspecified value
    if kind == "normal":
        data = rng.standard_normal(shape) * scale
    elif kind == "whole":
        data = rng.integers(-1000, 1000, shape).astype(np.float64) * scale
    elif kind == "ints":
        data = rng.integers(-10**6, 10**6, shape)
    elif kind == "special":
        data = np.asarray(rng.standard_normal(shape) * scale)
        data[rng.random(shape) < 0.2] = np.nan
        data[rng.random(shape) < 0.2] = -np.inf
    elif kind == "rounded":
        data = np.round(rng.standard_normal(shape), 2)
    else:
        data = rng.random(shape) < 0.5

    def build(m):
        t = m.tensor(data, dtype=getattr(m, dtype) if dtype and kind != "bools" else None)
        if grad and t.is_floating_point():
            t.requires_grad_()
            if grad == "grad_fn":
                t = t * 1
        return t
    ours, theirs = both(build)
    assert ours == theirs


PRINT_OPTIONS = [dict(precision=2), dict(sci_mode=True), dict(sci_mode=False), dict(profile="short"),
                 dict(threshold=5, edgeitems=1), dict(linewidth=30), dict(profile="full", precision=3)]


@pytest.mark.parametrize("options", PRINT_OPTIONS, ids=[str(o) for o in PRINT_OPTIONS])
def test_set_printoptions_prints_as_pytorch_does(options):
    def printed(m):
        m.set_printoptions(**options)
        try:
            return [repr(m.tensor([[1.23456789, 2e-5, 300.0], [4.0, 5.5, -6.25]])), repr(m.tensor([1.0, 2.0, 30000.0])),
                    repr(m.arange(12)), repr(m.arange(1500.0) / 7)]
        finally:
            m.set_printoptions(profile="default")
    assert printed(nnref) == printed(torch)

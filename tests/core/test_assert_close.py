"""``nnref.testing.assert_close`` against ``torch.testing.assert_close``: each case is built
once with each library, and the outcomes (passing, or the exception's type and exact message)
must be identical."""
import collections
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


def outcome(lib, build):
    args, kwargs = build(lib)
    try:
        lib.testing.assert_close(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the outcome compared is the exception itself
        return type(error).__name__, str(error)
    return "passed"


def t(lib, values, dtype="float32", **kwargs):
    return lib.tensor(values, dtype=getattr(lib, dtype), **kwargs)


# name -> build(lib) -> (args, kwargs)
CASES = {
    "equal": lambda L: ((t(L, [1., 2., 3.]), t(L, [1., 2., 3.])), {}),
    "one_of_three": lambda L: ((t(L, [1., 2., 3.]), t(L, [1., 2.5, 3.])), {}),
    "within_default_tol": lambda L: ((t(L, [1., 2.]), t(L, [1., 2. + 1e-6])), {}),
    "just_outside_tol": lambda L: ((t(L, [1., 2.]), t(L, [1., 2.0001])), {}),
    "given_tolerances": lambda L: ((t(L, [1., 2.]), t(L, [1., 2.1])), {"rtol": 0.1, "atol": 0}),
    "zero_tolerances": lambda L: ((t(L, [1., 2.]), t(L, [1., 2. + 1e-6])), {"rtol": 0, "atol": 0}),
    "only_rtol": lambda L: ((t(L, [1.]), t(L, [1.])), {"rtol": 1e-3}),
    "only_atol": lambda L: ((t(L, [1.]), t(L, [1.])), {"atol": 1e-3}),
    "float64": lambda L: ((t(L, [1., 2.], "float64"), t(L, [1., 2. + 1e-6], "float64")), {}),
    "float16": lambda L: ((t(L, [0., 1.], "float16"), t(L, [0.1, 0.3], "float16")), {}),
    "bfloat16": lambda L: ((t(L, [0., 1.], "bfloat16"), t(L, [0.1, 0.3], "bfloat16")), {}),
    "int64": lambda L: ((t(L, [1, 2, 3], "int64"), t(L, [1, 5, 3], "int64")), {}),
    "int32_tolerances": lambda L: ((t(L, [1, 2, 3], "int32"), t(L, [1, 5, 0], "int32")),
                                   {"rtol": 0.5, "atol": 1}),
    "uint8": lambda L: ((t(L, [0, 255], "uint8"), t(L, [1, 250], "uint8")), {}),
    "bool": lambda L: ((t(L, [True, False], "bool"), t(L, [True, True], "bool")), {}),
    "inf_vs_finite": lambda L: ((t(L, [1., INF]), t(L, [1., 2.])), {}),
    "inf_vs_inf": lambda L: ((t(L, [1., INF, -INF]), t(L, [1., INF, -INF])), {}),
    "inf_vs_minus_inf": lambda L: ((t(L, [INF]), t(L, [-INF])), {}),
    "finite_vs_inf": lambda L: ((t(L, [1., 2.]), t(L, [1., INF])), {}),
    "nan": lambda L: ((t(L, [1., NAN]), t(L, [1., NAN])), {}),
    "nan_equal_nan": lambda L: ((t(L, [1., NAN]), t(L, [1., NAN])), {"equal_nan": True}),
    "nan_vs_number": lambda L: ((t(L, [1., NAN]), t(L, [1., 2.])), {"equal_nan": True}),
    "expected_zero": lambda L: ((t(L, [0.1, 0.]), t(L, [0., 0.])), {}),
    "0d_tensor": lambda L: ((t(L, 1.), t(L, 1.1)), {}),
    "0d_int": lambda L: ((t(L, 3, "int64"), t(L, 4, "int64")), {}),
    "0d_nan": lambda L: ((t(L, NAN), t(L, NAN)), {}),
    "empty": lambda L: ((L.zeros(0, 3), L.zeros(0, 3)), {}),
    "empty_shape": lambda L: ((L.zeros(0, 3), L.zeros(3, 0)), {}),
    "2d_index": lambda L: ((L.arange(12.).reshape(3, 4), L.arange(12.).reshape(3, 4) * 1.5), {}),
    "3d_ties": lambda L: ((L.zeros(2, 2, 2), L.ones(2, 2, 2)), {}),
    "shape": lambda L: ((L.zeros(2, 3), L.zeros(3, 2)), {}),
    "dtype": lambda L: ((t(L, [1, 2], "int64"), t(L, [1., 2.])), {}),
    "dtype_unchecked": lambda L: ((t(L, [1, 2], "int64"), t(L, [1., 2.5])), {"check_dtype": False}),
    "dtype_unchecked_close": lambda L: ((L.zeros(2), L.zeros(2, dtype=L.float64) + 1e-6),
                                        {"check_dtype": False}),
    "mixed_ints_unchecked": lambda L: ((t(L, [1, 2], "uint8"), t(L, [1, 3], "int8")),
                                       {"check_dtype": False}),
    "device_meta": lambda L: ((L.zeros(2), L.zeros(2, device="meta")), {}),
    "both_meta": lambda L: ((L.zeros(2, device="meta"), L.ones(2, device="meta")), {}),
    "stride": lambda L: ((L.zeros(3, 2).T, L.zeros(2, 3)), {"check_stride": True}),
    "stride_unchecked": lambda L: ((L.zeros(3, 2).T, L.zeros(2, 3)), {}),
    "tensor_vs_float": lambda L: ((t(L, [1., 2.]), 1.0), {}),
    "float_vs_tensor": lambda L: ((1.0, t(L, 1.)), {}),
    "tensor_vs_ndarray": lambda L: ((t(L, [1., 2.]), np.array([1., 2.])), {}),
    "tensor_vs_list": lambda L: ((t(L, [1., 2.]), [1., 2.]), {}),
    "ndarrays": lambda L: ((np.array([1., 2.]), np.array([1., 2.5])), {}),
    "ndarrays_float32": lambda L: ((np.array([1., 2.], np.float32), np.array([1., 2.5], np.float32)), {}),
    "ndarray_dtypes": lambda L: ((np.array([1, 2]), np.array([1., 2.])), {}),
    "subclass": lambda L: ((L.nn.Parameter(t(L, [1.])), t(L, [1.])), {}),
    "subclass_refused": lambda L: ((L.nn.Parameter(t(L, [1.])), t(L, [1.])), {"allow_subclasses": False}),
    "ints": lambda L: ((1, 2), {}),
    "int_vs_float": lambda L: ((1, 1.0), {}),
    "int_vs_float_unchecked": lambda L: ((1, 1.0), {"check_dtype": False}),
    "floats": lambda L: ((1e-9, 1e-10), {"rtol": 0, "atol": 0}),
    "floats_close": lambda L: ((1.0, 1.0 + 1e-8), {}),
    "float_nan": lambda L: ((NAN, NAN), {}),
    "float_nan_equal": lambda L: ((NAN, NAN), {"equal_nan": True}),
    "float_inf": lambda L: ((INF, 1.0), {}),
    "float_zero_expected": lambda L: ((1.0, 0.0), {}),
    "complex": lambda L: ((1 + 2j, 1 + 3j), {}),
    "numpy_scalars": lambda L: ((np.float32(1.0), np.float32(1.5)), {}),
    "numpy_int_vs_float": lambda L: ((np.int64(1), np.float64(1.0)), {}),
    "bools": lambda L: ((True, False), {}),
    "numpy_bool": lambda L: ((np.bool_(True), True), {}),
    "bool_vs_int": lambda L: ((True, 1), {}),
    "none": lambda L: ((None, None), {}),
    "none_vs_tensor": lambda L: ((None, t(L, [1.])), {}),
    "strings": lambda L: (("a", "a"), {}),
    "list_item": lambda L: (([1, 2], [1, 3]), {}),
    "list_vs_tuple": lambda L: (([t(L, [1.]), 2.0], (t(L, [1.]), 2.0)), {}),
    "sequence_length": lambda L: (([1, 2], [1, 2, 3]), {}),
    "nested": lambda L: (({"a": [t(L, [1.]), {"b": t(L, [2.])}]}, {"a": [t(L, [1.]), {"b": t(L, [3.])}]}), {}),
    "mapping_keys": lambda L: (({"a": 1, "b": 2}, {"a": 1, "c": 2}), {}),
    "mapping_order": lambda L: ((collections.OrderedDict([("x", 1.0), ("y", t(L, [2.]))]),
                                 {"y": t(L, [2.]), "x": 1.0}), {}),
    "mapping_first_failure": lambda L: (({"b": 1, "a": 2}, {"b": 2, "a": 3}), {}),
    "msg_str": lambda L: ((t(L, [1.]), t(L, [2.])), {"msg": "Argh!"}),
    "msg_str_nested": lambda L: (([t(L, [1.])], [t(L, [2.])]), {"msg": "Argh!"}),
    "msg_callable": lambda L: ((t(L, [1., 2., 3.]), t(L, [1., 4., 9.])),
                               {"msg": lambda m: f"Header\n\n{m}\n\nFooter"}),
    "msg_callable_nested": lambda L: (({"k": t(L, [1.])}, {"k": t(L, [2.])}), {"msg": lambda m: m.upper()}),
    "msg_on_tolerance_error": lambda L: ((t(L, [1.]), t(L, [1.])), {"rtol": 1.0, "msg": "custom"}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_outcome_matches_pytorch(name):
    build = CASES[name]
    assert outcome(nnref, build) == outcome(torch, build)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int16", "int64"])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("scale", [1e-7, 1e-4, 0.3])
def test_random_perturbations_match_pytorch(dtype, shape, scale):
    """Random values, some perturbed by ``scale``: same verdict, same counts, same greatest
    differences digit for digit, at the same indices."""
    rng = np.random.default_rng(hash((dtype, shape, scale)) % 2**32)
    base = rng.standard_normal(shape) * 10
    noise = np.where(rng.random(shape) < 0.3, rng.standard_normal(shape) * scale * 10, 0.0)
    if dtype.startswith("int"):
        base, noise = np.round(base), np.round(noise * 1e4)

    def build(lib):
        return (lib.tensor(base + noise).to(getattr(lib, dtype)),
                lib.tensor(base).to(getattr(lib, dtype))), {}

    assert outcome(nnref, build) == outcome(torch, build)


@pytest.mark.parametrize("build", [
    lambda L: ((L.tensor([1., 2.]), L.tensor([1., 2.00001])), {}),
    lambda L: ((L.tensor([1., 2.]), L.tensor([1., 2.001])), {}),
    lambda L: (([1., 2.], [1., 2.5]), {}),
    lambda L: ((L.tensor([1, 2]), [1, 3]), {}),
    lambda L: ((L.tensor([1., float("nan")]), L.tensor([1., float("nan")])), {}),
    lambda L: ((L.tensor([1., float("nan")]), L.tensor([1., float("nan")])), {"equal_nan": False}),
    lambda L: ((L.tensor([1., 2.], dtype=L.float64), L.tensor([1., 2.], dtype=L.float32)), {}),
    lambda L: ((L.tensor([1., 2.]), L.tensor([1., 3.])), {"msg": "custom"}),
    lambda L: ((L.tensor([1., 2.]), L.tensor([1., 3.])), {"rtol": 0.5}),
])
def test_assert_allclose_matches_pytorch(build):
    """The deprecated form: its FutureWarning, its conversions and looser defaults."""
    results = []
    for lib in (nnref, torch):
        args, kwargs = build(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                lib.testing.assert_allclose(*args, **kwargs)
                result = "passed"
            except Exception as error:  # noqa: BLE001
                result = (type(error).__name__, str(error))
        results.append((result, [(w.category, str(w.message)) for w in caught]))
    assert results[0] == results[1]


def test_importable_as_pytorch_spells_it():
    from nnref.testing import assert_close  # noqa: F401, PLC0415
    import nnref.testing  # noqa: PLC0415
    assert nnref.testing.assert_close is assert_close
    assert set(nnref.testing.__all__) <= set(dir(torch.testing))

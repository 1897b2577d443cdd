"""``nnref.testing.make_tensor`` against ``torch.testing.make_tensor``: after the same
``manual_seed`` the same values, dtype, shape, contiguity and ``requires_grad``, and the same
errors; and the wide-range ``randint`` it relies on."""
import warnings

import pytest

import nnref

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]
NAN = float("nan")


def outcome(lib, *shape, **kwargs):
    lib.manual_seed(3)
    kwargs["dtype"] = getattr(lib, kwargs["dtype"])
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = lib.testing.make_tensor(*shape, device="cpu", **kwargs)
    except Exception as error:  # noqa: BLE001 - the outcome compared is the exception itself
        return type(error).__name__, str(error)
    return (str(r.dtype), tuple(r.shape), r.is_contiguous(), r.requires_grad, r.tolist(),
            [(w.category, str(w.message)) for w in caught])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, kwargs", [
    ((2, 3), {}),
    (((4,),), {"low": -2, "high": 3, "exclude_zero": True}),
    (([3, 2],), {"noncontiguous": True}),
    ((1,), {"noncontiguous": True}),
    ((), {}),
    ((0, 3), {"exclude_zero": True}),
    ((3,), {"requires_grad": True}),
    ((3,), {"low": 5, "high": 1}),
    ((3,), {"low": 2, "high": 2}),
    ((3,), {"low": NAN}),
    ((5,), {"low": -1e40, "high": 1e40}),
    ((2,), {"low": 300, "high": 1000}),
    ((50,), {"low": 0.5, "high": 1.5}),
])
def test_make_tensor_matches_pytorch(dtype, shape, kwargs):
    assert outcome(nnref, *shape, dtype=dtype, **kwargs) == outcome(torch, *shape, dtype=dtype, **kwargs)


def test_memory_format_is_refused_clearly():
    with pytest.raises(ValueError, match="mutually exclusive"):
        nnref.testing.make_tensor(2, dtype=nnref.float32, device="cpu", noncontiguous=True, memory_format=1)
    with pytest.raises(NotImplementedError, match="no memory formats"):
        nnref.testing.make_tensor(2, dtype=nnref.float32, device="cpu", memory_format=1)


@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("low, high", [(0, 2**24), (0, 2**28 - 1), (0, 2**28), (-5, 2**28 - 5),
                                       (0, 2**31 - 1), (-2**31, 2**31), (0, 2**40)])
def test_randint_takes_64_bit_words_from_a_range_of_2_to_the_28(dtype, low, high):
    """ATen draws ``random64()`` once the range reaches 2**28 (``random()`` below): nnref took
    32-bit words up to 2**32, so ranges in between gave other numbers."""
    if dtype == "int32" and high > 2**31:
        low, high = max(low, -2**31), 2**31
    results = []
    for lib in (nnref, torch):
        lib.manual_seed(5)
        drawn = lib.randint(low, high, (6,), dtype=getattr(lib, dtype)).tolist()
        lib.manual_seed(5)
        results.append((drawn, lib.empty(4, dtype=getattr(lib, dtype)).random_(low, high).tolist()))
    assert results[0] == results[1]

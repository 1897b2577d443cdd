"""Construction and interop details, compared with PyTorch.

The legacy ``Tensor(...)`` constructor (default dtype, aliasing, sharing numpy
memory), ``dtype=`` arguments that are not dtypes, ``type()`` with a legacy
type class, ``as_tensor`` sharing numpy memory, ``data_ptr()`` and
``inference_mode``.
"""
import warnings

import numpy as np
import pytest

import nnref
from core_helpers import dtype_name

torch = pytest.importorskip("torch")


def outcome(fn, m):
    """dtype name, shape, values and grad_fn name of ``fn(m)``, or the type of the error it raises."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = fn(m)
    except Exception as exc:
        return type(exc).__name__
    return dtype_name(t.dtype), tuple(t.shape), t.tolist(), type(t.grad_fn).__name__


def same(fn):
    assert outcome(fn, nnref) == outcome(fn, torch)


@pytest.fixture(params=["float32", "float64"])
def default_dtype(request):
    for m in (nnref, torch):
        m.set_default_dtype(getattr(m, request.param))
    yield request.param
    for m in (nnref, torch):
        m.set_default_dtype(m.float32)


# -- the legacy constructor ------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda m: m.Tensor([1, 2]), lambda m: m.Tensor([True]), lambda m: m.Tensor([1.5]),
    lambda m: m.Tensor(2, 3).zero_(), lambda m: m.Tensor(m.Size([2])).zero_(), lambda m: m.Tensor(),
    lambda m: m.Tensor(np.array([1, 2], dtype=np.float32)), lambda m: m.Tensor(np.array([1.0, 2.0])),
    lambda m: m.Tensor(m.tensor([1, 2])), lambda m: m.Tensor(m.tensor([1.0], dtype=m.float64)),
    lambda m: m.Tensor(m.tensor([1.0, 2.0], requires_grad=True)),
    lambda m: m.Tensor(m.tensor([1.0]), device="cpu"),
    lambda m: m.FloatTensor([1]), lambda m: m.DoubleTensor(m.tensor([1.0], dtype=m.float64)),
    lambda m: m.DoubleTensor(m.tensor([1.0], dtype=m.float32)),
], ids=lambda f: "")
def test_legacy_constructor_follows_the_default_dtype(case, default_dtype):
    """``torch.Tensor(data)`` is in the default dtype; a tensor argument keeps its own."""
    same(case)


def test_legacy_constructor_shares_memory_like_torch():
    def run(m):
        array = np.array([1.0, 2.0], dtype=np.float32)
        m.Tensor(array)[0] = 5            # float32 array, float32 default: shared
        other = np.array([1.0, 2.0])
        m.Tensor(other)[0] = 5            # float64 array: converted, so a copy
        source = m.tensor([1.0, 2.0])
        alias = m.Tensor(source)
        alias.add_(1)                     # an alias: same memory and version counter
        typed = m.FloatTensor(source)
        return (array.tolist(), other.tolist(), source.tolist(), source._version,
                typed.data_ptr() == source.data_ptr())
    assert run(nnref) == run(torch) == ([5.0, 2.0], [1.0, 2.0], [2.0, 3.0], 1, True)


# -- dtype arguments -------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda m: m.tensor([1], dtype="torch.LongTensor"), lambda m: m.tensor([1], dtype="float32"),
    lambda m: m.tensor([1], dtype=np.float32), lambda m: m.tensor([1], dtype=m.LongTensor),
    lambda m: m.zeros(2, dtype="float32"), lambda m: m.ones(2, dtype=m.LongTensor),
    lambda m: m.full((2,), 1, dtype="int64"), lambda m: m.as_tensor([1], dtype="float32"),
], ids=lambda f: "")
def test_a_dtype_argument_that_is_not_a_dtype_is_a_type_error(case):
    assert outcome(case, nnref) == outcome(case, torch) == "TypeError"


@pytest.mark.parametrize("case", [
    lambda m: m.ones(2).type(m.LongTensor), lambda m: m.ones(2).type(m.DoubleTensor),
    lambda m: m.ones(2).type(m.BoolTensor), lambda m: m.ones(2, dtype=m.int64).type(m.Tensor),
    lambda m: m.ones(2, dtype=m.float16).type(m.Tensor), lambda m: m.ones(2).type(m.float16),
    lambda m: m.ones(2).type(int), lambda m: m.ones(2).type("foo"),
    lambda m: m.ones(2).type(m.nn.Parameter),
], ids=lambda f: "")
def test_type_with_a_legacy_type_class(case, default_dtype):
    same(case)


def test_type_to_the_same_legacy_type_returns_the_tensor():
    for m in (nnref, torch):
        x = m.ones(2)
        assert x.type(m.FloatTensor) is x and x.type(m.DoubleTensor) is not x


# -- as_tensor and numpy memory --------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    (np.float64, None, None, True), (np.float64, "float64", None, True),
    (np.float64, "float32", None, False), (np.int64, None, None, True),
    (np.float32, None, "cpu", True), (np.int32, "int64", "cpu", False),
], ids=lambda c: "")
def test_as_tensor_shares_numpy_memory_when_it_can(case):
    array_dtype, dtype, device, shared = case
    for m in (nnref, torch):
        array = np.arange(4, dtype=array_dtype).reshape(2, 2).T  # a strided view is fine too
        kwargs = {"dtype": None if dtype is None else getattr(m, dtype), "device": device}
        t = m.as_tensor(array, **kwargs)
        assert np.shares_memory(t.numpy(), array) is shared
        if shared:
            array[0, 0] = 7
            assert t[0, 0].item() == 7


def test_as_tensor_of_other_data_copies_as_tensor_does():
    same(lambda m: m.as_tensor(np.float64(5.0)))
    same(lambda m: m.as_tensor([1.0, 2.0]))
    same(lambda m: m.as_tensor(m.tensor([1, 2]), dtype=m.float32))


# -- data_ptr --------------------------------------------------------------------------------------
def test_data_ptr_is_the_address_of_the_first_element():
    def run(m):
        t = m.arange(6.0).view(2, 3)
        array = np.arange(3.0)
        return (t[1].data_ptr() - t.data_ptr(), t[:, 1].data_ptr() - t.data_ptr(),
                t.t().data_ptr() == t.data_ptr(), t.clone().data_ptr() == t.data_ptr(),
                m.from_numpy(array).data_ptr() == array.ctypes.data, m.zeros(0).data_ptr(),
                m.tensor(3.0).data_ptr() != 0)
    assert run(nnref) == run(torch) == (12, 4, True, False, True, 0, True)


# -- inference_mode --------------------------------------------------------------------------------
def modes(m):
    return m.is_grad_enabled(), m.is_inference_mode_enabled()


def test_inference_mode_switches_recording_like_torch():
    def run(m):
        seen = [modes(m)]
        x = m.ones(2, requires_grad=True)
        with m.inference_mode():
            y = x * 2
            seen.append(modes(m))
            with m.inference_mode(False):
                seen.append(modes(m))
            with m.enable_grad():
                seen.append(m.is_grad_enabled())
        with m.no_grad():
            with m.inference_mode(False):
                seen.append(modes(m))
        seen.append(modes(m))
        return seen, y.requires_grad, y.grad_fn

    assert run(nnref) == run(torch)


def test_inference_mode_as_a_decorator():
    def run(m):
        @m.inference_mode
        def bare():
            return modes(m)

        @m.inference_mode()
        def called():
            return modes(m)

        @m.inference_mode(False)
        def off():
            return modes(m)
        return bare(), called(), off(), modes(m), bare.__name__
    assert run(nnref) == run(torch) == ((False, True), (False, True), (True, False), (True, False),
                                        "bare")


def test_inference_mode_is_also_in_autograd():
    assert nnref.autograd.inference_mode is nnref.inference_mode
    assert "inference tensors" in nnref.inference_mode.__doc__

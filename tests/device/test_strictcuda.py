"""The strict stand-in refuses what CuPy refuses and accepts what CuPy accepts (rules R1-R15 of
its docstring), and nnref's 'cuda' tensors really live in it while a stand-in test runs."""
import copy
import pickle

import numpy as np
import pytest

import nnref
import strictcuda
from nnref import _cupy
from nnref.core import _device

xp = strictcuda.cupy


def test_device_arrays_are_not_numpy_arrays_and_the_backend_layer_sees_that():  # R1
    a = xp.ones(3)
    assert isinstance(a, xp.ndarray) and not isinstance(a, np.ndarray)
    assert xp.get_array_module(a) is xp and xp.get_array_module(np.ones(3)) is np


def test_no_implicit_conversion_to_the_host():  # R2
    a = xp.arange(3)
    for convert in (np.asarray, np.array, lambda v: np.add(np.ones(3), v), lambda v: np.ones(3) + v,
                    lambda v: np.concatenate([np.ones(3), v])):
        with pytest.raises(TypeError):
            convert(a)


def test_get_and_asnumpy_are_the_ways_back():  # R3
    a = xp.arange(3.0)
    host = a.get()
    assert type(host) is np.ndarray and host.tolist() == [0.0, 1.0, 2.0]
    host[0] = 7  # a copy
    assert a.tolist() == [0.0, 1.0, 2.0] and xp.asnumpy(a).tolist() == [0.0, 1.0, 2.0]
    assert float(a[1]) == 1.0 and int(a[2]) == 2 and bool(a[1]) and a.sum().item() == 3.0


@pytest.mark.parametrize("operand", [np.ones(3), np.array(2.0), [1.0, 2.0, 3.0]],
                         ids=["numpy array", "0-d numpy array", "list"])
def test_kernels_refuse_host_arrays_even_0d_and_lists(operand):  # R4
    a = xp.ones(3)
    for mix in (lambda: a + operand, lambda: a * operand, lambda: xp.maximum(a, operand),
                lambda: xp.where(a > 0, a, operand)):
        with pytest.raises(TypeError, match="Unsupported type"):
            mix()


def test_kernels_take_python_and_numpy_scalars():  # R4
    a = xp.ones(3, dtype=np.float32)
    for scalar in (2, 2.0, True, np.float32(2), np.int64(2), np.float64(2)):
        assert isinstance(a * scalar, xp.ndarray) and isinstance(scalar + a, xp.ndarray)
    assert (np.float32(2) * a).dtype == np.float32  # a numpy scalar on the left defers to the array


def test_a_numpy_scalar_on_the_left_of_a_comparison_is_read_as_a_number():  # R5, numpy/numpy#12142
    assert isinstance(np.float32(0) < xp.ones(3), xp.ndarray)
    assert (np.bool_(True) != (xp.ones(3) < 0)).tolist() == [True, True, True]
    with pytest.raises(TypeError, match="Unsupported type"):
        np.zeros(3) < xp.ones(3)  # a numpy array is not


def test_numpy_functions_and_ufuncs_dispatch_to_the_device():  # R5
    a = xp.arange(4.0)
    assert isinstance(np.exp(a), xp.ndarray) and isinstance(np.sum(a), xp.ndarray)
    assert isinstance(np.concatenate([a, a]), xp.ndarray)
    np.add.at(a, xp.asarray([0, 0]), 1.0)  # ufunc methods are forwarded too
    assert a.tolist() == [2.0, 1.0, 2.0, 3.0] and isinstance(np.add.reduce(a), xp.ndarray)
    with pytest.raises(TypeError):
        np.add.at(np.zeros(2), xp.asarray([0]), 1.0)  # the target must be on the device


def test_functions_refuse_host_arrays_except_the_ones_that_copy_to_the_device():  # R6
    host = np.arange(3.0)
    for call in (lambda: xp.concatenate([xp.ones(3), host]), lambda: xp.exp(host),
                 lambda: xp.take(xp.ones(3), host.astype(int)), lambda: xp.zeros_like(host)):
        with pytest.raises(TypeError, match="Unsupported type"):
            call()
    assert xp.asarray(host).tolist() == [0.0, 1.0, 2.0] and xp.array(host).shape == (3,)
    assert xp.array([xp.ones(2), xp.zeros(2)]).shape == (2, 2)  # device arrays joined on the device
    assert xp.asarray([xp.ones(()), xp.zeros(())]).tolist() == [1.0, 0.0]
    with pytest.raises(TypeError, match="Implicit conversion"):
        xp.array([xp.ones(()), 2.0])  # a mixed sequence goes through numpy
    a = xp.ones(2)
    assert xp.asarray(a) is a and xp.ascontiguousarray(a) is a


def test_results_are_device_arrays_even_0d():  # R7
    a = xp.arange(6.0).reshape(2, 3)
    for result in (a.sum(), a[1, 2], xp.max(a), a.mean(), xp.count_nonzero(a)):
        assert isinstance(result, xp.ndarray) and result.ndim == 0
    out = xp.empty((2, 3))
    assert xp.multiply(a, 2, out=out) is out


def test_indexing_rules():  # R8
    a = xp.arange(5.0)
    assert a[np.array([0, 2])].tolist() == [0.0, 2.0] and a[[1, 3]].tolist() == [1.0, 3.0]
    a[np.array([0, 1])] = np.array([9.0, 8.0])  # advanced assignment copies host values
    a[2:4] = xp.zeros(2)
    a[4] = np.float64(7)
    a[0:1] = np.array(5.0)  # a 0-d numpy array fills
    assert a.tolist() == [5.0, 8.0, 0.0, 0.0, 7.0]
    with pytest.raises(ValueError, match="non-scalar numpy.ndarray cannot be used for fill"):
        a[1:3] = np.ones(2)


def test_no_index_protocol():  # R9
    n = xp.asarray(3)
    with pytest.raises(TypeError):
        range(n)
    with pytest.raises(TypeError):
        [1, 2, 3, 4][n]


def test_only_cupys_names():  # R10
    a = xp.ones(2)
    for name in ("ctypes", "resize", "setflags", "to_device"):
        with pytest.raises(AttributeError):
            getattr(a, name)
    assert not hasattr(a.flags, "writeable") and a.flags.c_contiguous
    for name in ("errstate", "insert", "matrix"):
        with pytest.raises(AttributeError):
            getattr(xp, name)
    a.shape = (2, 1)  # a reshape without copying
    with pytest.raises(AttributeError):
        xp.ones((2, 3)).T.shape = (6,)


def test_add_at_takes_cupys_dtypes_only():  # R11
    a = xp.zeros(3, dtype=np.float32)
    xp.add.at(a, xp.asarray([0, 0, 2]), 1.0)
    assert a.tolist() == [2.0, 0.0, 1.0]
    with pytest.raises(TypeError, match="cupy.add.at only supports"):
        xp.add.at(xp.zeros(3, dtype=np.int64), xp.asarray([0]), 1)


def test_device_dtypes():  # R12
    with pytest.raises(TypeError, match="Unsupported dtype"):
        xp.asarray(["a", "b"])
    with pytest.raises(TypeError, match="Unsupported dtype"):
        xp.zeros(2, dtype=object)


def test_random_generator_has_cupys_methods_only():  # R13
    rng = xp.random.default_rng([5, 0])
    assert isinstance(rng.random((2, 2)), xp.ndarray)
    assert rng.uniform(0, 1, size=3, dtype=np.float32).dtype == np.float32
    assert rng.integers(0, 10, size=4).dtype == np.int64
    for name in ("permutation", "choice", "shuffle", "normal"):
        assert not hasattr(rng, name)
    first = xp.random.default_rng([5, 0]).standard_normal(4).tolist()
    assert first == xp.random.default_rng([5, 0]).standard_normal(4).tolist()


def test_unhashable_copyable_and_picklable():  # R14
    a = xp.arange(3)
    with pytest.raises(TypeError):
        hash(a)
    for clone in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert isinstance(clone, xp.ndarray) and clone.tolist() == [0, 1, 2]


def test_one_device():  # R15
    with xp.cuda.Device(0):
        pass
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        xp.cuda.Device(1)


def test_cuda_tensors_live_in_the_stand_in_only_during_a_stand_in_test(device, request):
    t = nnref.ones(2, device=device)
    run_on = request.node.callspec.params["device"]
    if run_on == "strictcuda":
        assert isinstance(t._data, strictcuda.ndarray)
        assert nnref.cuda.is_available() and "stand-in" in nnref.cuda.get_device_name()
    elif run_on == "cuda":  # the GPU mode: CuPy's own arrays
        assert type(t._data).__module__.startswith("cupy") and not isinstance(t._data, strictcuda.ndarray)
        assert "stand-in" not in nnref.cuda.get_device_name()
    else:
        assert type(t._data) is np.ndarray


def test_outside_stand_in_tests_cuda_is_not_the_stand_in():
    assert _cupy._cupy is not strictcuda.cupy
    assert not nnref.cuda.is_available() or "stand-in" not in nnref.cuda.get_device_name()


def test_ufuncs_take_no_where_but_copyto_does():
    """R16, found on the first real GPU run: CuPy's ufuncs refuse numpy's where=."""
    xp = strictcuda.cupy
    a = xp.asarray(np.ones(3, np.float32))
    mask = a > 0
    with pytest.raises(TypeError, match="Wrong arguments"):
        xp.log1p(a, out=a, where=mask)
    xp.copyto(a, xp.zeros(3, dtype=np.float32), where=mask)
    assert a.get().tolist() == [0.0, 0.0, 0.0]

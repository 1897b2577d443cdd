"""Helpers for the layer, functional, loss, optimizer and training tests: run on nnref and PyTorch, compare.

(Named ``nn_compare`` so it cannot clash with other test folders' helpers.)
"""
import warnings
import zlib

import numpy as np
import pytest

import nnref

TOLERANCES = {np.dtype(np.float32): (1e-5, 1e-5), np.dtype(np.float64): (1e-10, 1e-10)}


@pytest.fixture
def rng(request):
    """A numpy generator seeded from the test's name: every test gets its own fixed data."""
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))


def numpy_of(t):
    """A numpy copy of an nnref or torch tensor (or a number)."""
    if hasattr(t, "detach"):
        t = t.detach()
    if hasattr(t, "cpu"):
        t = t.cpu()
    return np.array(t.numpy() if hasattr(t, "numpy") else t)


def assert_close(ours, theirs, what="value", rtol=None, atol=None):
    """Same shape, same dtype name, same values within the dtype's tolerance."""
    a, b = numpy_of(ours), numpy_of(theirs)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != PyTorch's {b.shape}"
    assert a.dtype == b.dtype, f"{what}: dtype {a.dtype} != PyTorch's {b.dtype}"
    default_rtol, default_atol = TOLERANCES.get(a.dtype, (0, 0))
    np.testing.assert_allclose(a, b, rtol=default_rtol if rtol is None else rtol,
                               atol=default_atol if atol is None else atol, err_msg=what)


def pair(torch, array, requires_grad=False):
    """The same values as an nnref tensor and a torch tensor."""
    array = np.asarray(array)
    return (nnref.tensor(array.copy(), requires_grad=requires_grad),
            torch.tensor(array.copy(), requires_grad=requires_grad))


def random_pair(torch, rng, shape, dtype=np.float32, requires_grad=True):
    return pair(torch, rng.standard_normal(shape).astype(dtype), requires_grad)


def copy_parameters(ours, theirs):
    """Give the nnref module the PyTorch module's parameters and buffers (by state_dict key)."""
    their_state = theirs.state_dict()
    our_state = ours.state_dict()
    assert list(our_state) == list(their_state)
    with nnref.no_grad():
        for key, value in their_state.items():
            our_state[key].copy_(nnref.tensor(numpy_of(value)))


def backward_both(out_ours, out_theirs, torch, rng):
    """Backpropagate the same random upstream gradient through both outputs."""
    upstream = rng.standard_normal(tuple(out_theirs.shape)).astype(numpy_of(out_theirs).dtype)
    out_ours.backward(nnref.tensor(upstream))
    out_theirs.backward(torch.tensor(upstream))


def grad_fn_name(t):
    return None if t.grad_fn is None else t.grad_fn.name()


def raised(fn):
    """The exception type ``fn()`` raises (None if it returns)."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is what the tests compare
        return type(exc)
    return None


def outcome_and_warnings(call):
    """``call()``'s result, or its exception's type and message, and every warning it gave
    (category and text): the behaviour two libraries are compared on."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except Exception as exc:  # the type and the message are the behaviour compared
            result = (type(exc).__name__, str(exc))
    return result, [(w.category.__name__, str(w.message)) for w in caught]

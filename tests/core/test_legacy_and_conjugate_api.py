"""Old and real-valued spellings PyTorch programs still use, against PyTorch: ``autograd.Variable``,
``H``/``mH``/``adjoint`` and the conjugation no-ops of real tensors, ``pin_memory``/``is_pinned``
and the DataLoader's ``pin_memory`` warnings, and the clean ``dir()`` of ``autograd``/``utils``."""
import importlib
import warnings

import pytest

import nnref

torch = pytest.importorskip("torch")


def _recorded(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = repr(call())
        except Exception as exc:  # the type and the message are compared
            result = (type(exc).__name__, str(exc))
    return result, [(w.category.__name__, str(w.message).split(" (Triggered")[0]) for w in caught]


def _same(expression):
    def run(lib):
        names = {"lib": lib, "V": lib.autograd.Variable, "x": lib.ones(2, 3, requires_grad=True),
                 "b": lib.ones(4, 2, 3), "v": lib.ones(3), "s": lib.tensor(2.0)}
        return _recorded(lambda: eval(expression, names))
    assert run(nnref) == run(torch), expression


@pytest.mark.parametrize("expression", [
    "V()", "V(3)", "V(lib.ones(2))", "V(lib.ones(2), requires_grad=True)", "V(lib.ones(2), volatile=True)",
    "isinstance(lib.ones(1), V)", "isinstance(3, V)", "V(lib.ones(2, requires_grad=True) * 2).grad_fn",
    "V(lib.ones(2), True)", "type(V(lib.ones(2))).__name__", "V(x) is x",
])
def test_variable(expression):
    _same(expression)


def test_variable_shares_memory_but_not_history():
    for lib in (nnref, torch):
        x = lib.ones(2)
        v = lib.autograd.Variable(x, requires_grad=True)
        with lib.no_grad():
            v[0] = 5
        assert x.tolist() == [5.0, 1.0] and not x.requires_grad and v.is_leaf


@pytest.mark.parametrize("expression", [
    "x.H.shape", "x.mH.shape", "x.adjoint().shape", "type(x.H.grad_fn).__name__",
    "type(x.mH.grad_fn).__name__", "type(x.adjoint().grad_fn).__name__", "b.mH.shape", "b.adjoint().shape",
    "b.H", "v.H", "v.mH", "v.adjoint()", "s.H is s", "x.conj() is x", "x.resolve_conj() is x",
    "x.resolve_neg() is x", "x.conj_physical() is x", "x.is_conj()", "x.is_neg()", "lib.conj(x) is x",
    "lib.adjoint(b).shape", "lib.is_conj(x)", "lib.is_neg(x)", "lib.resolve_conj(x) is x",
    "lib.resolve_neg(x) is x", "lib.conj_physical(x) is x", "lib.ones(2).is_pinned()",
])
def test_conjugate_transposes_and_memory_queries(expression):
    _same(expression)


def test_pin_memory_without_an_accelerator():
    if nnref.accelerator.is_available():
        pytest.skip("compares with a CPU-only PyTorch")
    _same("lib.ones(2).pin_memory()")


@pytest.mark.parametrize("options", [{"pin_memory": True}, {"pin_memory": True, "pin_memory_device": "cuda"}, {}])
def test_dataloader_pin_memory_warnings(options):
    if nnref.accelerator.is_available():
        pytest.skip("compares with a CPU-only PyTorch")

    def run(lib):
        data = importlib.import_module(lib.__name__ + ".utils.data")
        dataset = data.TensorDataset(lib.arange(6.0).reshape(3, 2))
        return _recorded(lambda: [b[0].tolist() for b in data.DataLoader(dataset, batch_size=2, **options)])
    assert run(nnref) == run(torch)


@pytest.mark.parametrize("namespace", ["autograd", "utils"])
def test_dir_shows_only_torch_names(namespace):
    ours = getattr(nnref, namespace)
    theirs = getattr(torch, namespace)
    extra = sorted(n for n in dir(ours) if not n.startswith("_") and not hasattr(theirs, n))
    assert extra == []


@pytest.mark.parametrize("expression", [
    "lib.where(lib.tensor([[1, 0], [0, 2]]))", "lib.where(lib.tensor([True, False]))", "lib.where(lib.tensor(3.0))",
    "lib.where(lib.zeros(0))", "lib.where(lib.tensor([True]), lib.ones(1))",
    "lib.CharTensor([1]).dtype", "lib.ShortTensor([1, 2])", "lib.BFloat16Tensor([1.5])", "lib.ByteTensor([3, 4])",
    "lib.ByteTensor(2).shape", "isinstance(lib.ones(1, dtype=lib.uint8), lib.ByteTensor)",
    "isinstance(lib.ones(1), lib.ByteTensor)", "lib.CharTensor(lib.ones(1))",
])
def test_condition_only_where_and_legacy_integer_types(expression):
    if expression in ("lib.where(lib.tensor([True]), lib.ones(1))", "lib.CharTensor(lib.ones(1))"):
        # PyTorch's argument parser lists its C++ overloads; the exception type is what matters
        outcomes = [_recorded(lambda lib=lib: eval(expression, {"lib": lib})) for lib in (nnref, torch)]
        assert outcomes[0][0][0] == outcomes[1][0][0] == "TypeError"
        return
    _same(expression)


@pytest.mark.parametrize("expression", [
    "y.view(lib.int32)", "y.view(lib.float32).grad_fn", "y.view(lib.int32).requires_grad",
    "y.detach().view(lib.int16).shape", "y.detach().view(lib.float64)", "y.detach().view(lib.uint8).shape",
    "lib.arange(4, dtype=lib.int16).view(lib.int32)", "y.detach().t().view(lib.int16)", "y.detach().view(lib.bool)",
    "y.detach().view(lib.float16)", "y.view(dtype=lib.int32).dtype", "lib.ones(()).view(lib.int16)",
    "lib.ones(2, 3).view(lib.int64)", "lib.ones(2, 4).view(lib.float64)", "lib.ones(4, dtype=lib.uint8).view(lib.int32)",
    "y.detach().view(lib.bfloat16).shape", "lib.ones(2, 4)[:, :2].view(lib.float64).shape",
    "type(y.view(3, 2).grad_fn).__name__",
])
def test_view_as_another_dtype(expression):
    def run(lib):
        y = lib.arange(6.0, requires_grad=True).reshape(2, 3)
        return _recorded(lambda: eval(expression, {"lib": lib, "y": y}))
    assert run(nnref) == run(torch)


def test_view_as_another_dtype_shares_memory_and_version():
    x = nnref.arange(4.0)
    bits = x.view(nnref.int32)
    bits[0] = 1065353216  # the bits of 1.0
    assert x[0].item() == 1.0 and x._version == bits._version == 1


@pytest.mark.parametrize("expression", [
    "y.new(2, 3).shape", "y.new([1, 2])", "y.new(lib.Size([2])).shape", "y.new()", "y.new((2,))",
    "y.new([[1, 2]]).dtype", "y.new(2).requires_grad", "lib.ones(2, dtype=lib.int32).new([1.7])", "y.new(2.5)",
    "y.new(y.detach()) is y", "y.new(device='cpu').shape", "lib.FloatTensor(lib.Size([3])).shape",
    "lib.FloatTensor(2.5)", "y.new(y).requires_grad", "type(y.new(y).grad_fn).__name__",
])
def test_legacy_new(expression):
    def run(lib):
        y = lib.ones(3, requires_grad=True)
        outcome = _recorded(lambda: eval(expression, {"lib": lib, "y": y}))
        if isinstance(outcome[0], tuple):  # PyTorch's TensorOptions text: compare the type
            return outcome[0][0]
        return outcome
    assert run(nnref) == run(torch)

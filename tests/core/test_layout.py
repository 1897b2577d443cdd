"""``torch.strided``, ``Tensor.layout`` and the factories' ``layout=`` / ``pin_memory=`` keywords."""
import pickle

import pytest

import nnref

torch = pytest.importorskip("torch")

FACTORIES = {
    "zeros": lambda lib, **kw: lib.zeros(2, 3, **kw), "ones": lambda lib, **kw: lib.ones((2,), **kw),
    "empty": lambda lib, **kw: lib.empty(2, **kw), "full": lambda lib, **kw: lib.full((2,), 1.5, **kw),
    "eye": lambda lib, **kw: lib.eye(3, **kw), "arange": lambda lib, **kw: lib.arange(4, **kw),
    "linspace": lambda lib, **kw: lib.linspace(0, 1, 5, **kw),
    "logspace": lambda lib, **kw: lib.logspace(0, 1, 5, **kw), "rand": lambda lib, **kw: lib.rand(2, **kw),
    "randn": lambda lib, **kw: lib.randn(2, **kw), "randint": lambda lib, **kw: lib.randint(0, 5, (3,), **kw),
    "randperm": lambda lib, **kw: lib.randperm(4, **kw),
    "zeros_like": lambda lib, **kw: lib.zeros_like(lib.ones(2), **kw),
    "full_like": lambda lib, **kw: lib.full_like(lib.ones(2), 3.0, **kw),
    "scalar_tensor": lambda lib, **kw: lib.scalar_tensor(2.0, **kw),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factories_take_layout_and_pin_memory_as_pytorch(name):
    make = FACTORIES[name]
    for keywords in ({"layout": None}, {"pin_memory": False}):
        assert make(nnref, **keywords).layout is nnref.strided
    assert make(nnref, layout=nnref.strided).layout is nnref.strided
    assert repr(make(torch, layout=torch.strided).layout) == repr(nnref.strided) == "torch.strided"
    if not nnref.accelerator.is_available():
        for lib in (torch, nnref):
            with pytest.raises(RuntimeError, match="pin_memory=True requires a CUDA or other accelerator"):
                make(lib, pin_memory=True)
    with pytest.raises(NotImplementedError, match="only the strided layout"):
        make(nnref, layout="sparse")


def test_strided_is_one_object_that_pickles_as_itself():
    assert pickle.loads(pickle.dumps(nnref.strided)) is nnref.strided
    assert isinstance(nnref.strided, nnref.layout) and nnref.layout("strided") is nnref.strided
    assert nnref.tensor([1.0]).layout is nnref.strided

"""Classes print under PyTorch's names (``nnref/_naming.py``), and stay picklable under nnref's own.

``type(t)`` prints ``<class 'torch.Tensor'>`` as on PyTorch, consistently with nnref's dtypes
(``torch.float32``) and sizes (``torch.Size([2])``); ``__module__`` stays nnref's real module, so
pickle and copy still find the class.
"""
import copy
import importlib
import inspect
import pickle

import pytest

import nnref

torch = pytest.importorskip("torch")

# The namespaces programs take classes from.
NAMESPACES = ["", ".nn", ".nn.parameter", ".nn.modules", ".nn.utils.rnn", ".nn.utils.parametrize", ".optim",
              ".optim.lr_scheduler", ".utils.data", ".utils.hooks", ".distributions",
              ".distributions.constraints", ".autograd", ".autograd.graph", ".amp", ".linalg", ".random"]


def shared_public_classes():
    """(dotted name, nnref class, torch class) for each public class both libraries have."""
    found = []
    for suffix in NAMESPACES:
        ours, theirs = importlib.import_module("nnref" + suffix), importlib.import_module("torch" + suffix)
        for name in dir(ours):
            mine, pytorchs = getattr(ours, name, None), getattr(theirs, name, None)
            if name.startswith("_") or not inspect.isclass(mine) or not inspect.isclass(pytorchs):
                continue
            if not mine.__module__.startswith("nnref"):  # typing's Iterable, Sequence, ... re-exported
                continue
            found.append((f"torch{suffix}.{name}", mine, pytorchs))
    return found


SHARED = shared_public_classes()


def test_many_classes_are_compared():
    assert len(SHARED) > 400


@pytest.mark.parametrize("name, mine, pytorchs", SHARED, ids=[s[0] for s in SHARED])
def test_class_prints_as_pytorchs(name, mine, pytorchs):
    assert repr(mine) == repr(pytorchs)
    assert str(mine) == str(pytorchs)


def test_type_of_values_prints_as_pytorch():
    for make in (lambda lib: lib.ones(2), lambda lib: lib.nn.Parameter(lib.ones(2)), lambda lib: lib.ones(2).shape,
                 lambda lib: lib.float32, lambda lib: lib.device("cpu"), lambda lib: lib.nn.Linear(2, 3),
                 lambda lib: lib.optim.SGD(lib.nn.Linear(2, 3).parameters(), lr=0.1),
                 lambda lib: lib.utils.data.TensorDataset(lib.ones(2)), lambda lib: lib.Generator()):
        assert f"{type(make(nnref))}" == f"{type(make(torch))}"


def test_classes_a_program_defines_keep_their_own_name():
    class Net(nnref.nn.Module):
        pass

    class Net2(torch.nn.Module):
        pass

    assert repr(Net).replace("Net", "Net2") == repr(Net2)
    assert Net.__module__ == __name__


def test_module_stays_nnrefs_so_pickle_and_copy_find_the_class():
    assert nnref.Tensor.__module__ == "nnref.core._tensor"
    for cls in (nnref.Tensor, nnref.nn.Linear, nnref.nn.Parameter, nnref.Size, nnref.optim.Adam):
        assert pickle.loads(pickle.dumps(cls)) is cls
    assert pickle.loads(pickle.dumps(nnref.Size([2, 3]))) == nnref.Size([2, 3])
    assert type(pickle.loads(pickle.dumps(nnref.Size([2, 3])))) is nnref.Size
    model = nnref.nn.Sequential(nnref.nn.Linear(2, 3), nnref.nn.ReLU())
    clone = copy.deepcopy(model)
    assert type(clone[0]) is nnref.nn.Linear and nnref.equal(clone[0].weight, model[0].weight)


def test_isinstance_checks_of_metaclasses_still_hold():
    t = nnref.ones(2)
    assert isinstance(t, nnref.FloatTensor) and not isinstance(t, nnref.LongTensor)
    assert isinstance(nnref.nn.Buffer(t), nnref.nn.Buffer)
    assert isinstance(t, nnref.autograd.Variable)


def test_programs_may_mix_in_abc_as_with_pytorch():
    import abc
    for L in (nnref, torch):
        bases = (L.nn.Module, L.utils.data.Dataset, L.utils.data.Sampler, L.optim.Optimizer,
                 L.optim.lr_scheduler.LRScheduler, L.distributions.Distribution)
        for base in bases:
            abstract = type(base)("Abstract", (base, abc.ABC), {"go": abc.abstractmethod(lambda self: None)})
            with pytest.raises(TypeError, match="Can't instantiate abstract class Abstract"):
                abstract()
    class Base(nnref.nn.Module, abc.ABC):
        @abc.abstractmethod
        def forward(self, x): ...

    class Net(Base):
        def forward(self, x):
            return x * 2

    assert Net()(nnref.ones(1)).item() == 2.0 and repr(Net).endswith(".Net'>")

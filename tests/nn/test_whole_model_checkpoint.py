"""Whole-model save and load as PyTorch 2.13 does them (``nnref/_pickled_checkpoint.py``).

``save(model, path)`` pickles the model into PyTorch's zip layout; ``load(path)`` refuses it with
PyTorch's ``pickle.UnpicklingError`` message (the default ``weights_only=True``), and
``load(path, weights_only=False)`` rebuilds it.  ``pickle.dumps(model)`` stays refused: nnref's
tensors enter a pickle only inside a checkpoint archive.
"""
import io
import pickle
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


def build(L):
    L.manual_seed(0)
    model = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.ReLU(), L.nn.Linear(4, 2))
    model.register_buffer("steps", L.tensor([4, 5]))
    return model


def refusal(L, path):
    with pytest.raises(pickle.UnpicklingError) as info:
        L.load(path)
    return str(info.value)


def test_a_saved_model_is_refused_by_default_with_pytorchs_message(tmp_path):
    nnref.save(build(nnref), tmp_path / "ours.pt")
    torch.save(build(torch), tmp_path / "theirs.pt")
    ours, theirs = refusal(nnref, tmp_path / "ours.pt"), refusal(torch, tmp_path / "theirs.pt")
    # the same words; the global is the one each file names (nnref's class, PyTorch's class)
    assert ours == theirs.replace("torch.nn.modules.container.Sequential", "nnref.nn.modules.container.Sequential")
    assert isinstance(pickle.UnpicklingError("x"), Exception)
    with pytest.raises(nnref.serialization.CheckpointError):  # nnref's loader errors are CheckpointErrors too
        nnref.load(tmp_path / "ours.pt", weights_only=True)


def test_a_program_class_gets_exactly_pytorchs_message(tmp_path):
    # a class of the program's own module is named the same in both files
    script = textwrap.dedent("""
        import pickle, sys, importlib
        L = importlib.import_module(sys.argv[1])
        class Net(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = L.nn.Linear(2, 2)
        L.save(Net(), sys.argv[2])
        try:
            L.load(sys.argv[2])
        except pickle.UnpicklingError as error:
            print(error)
        print(type(L.load(sys.argv[2], weights_only=False)).__name__)
    """)
    outputs = [subprocess.run([sys.executable, "-c", script, lib, str(tmp_path / f"{lib}.pt")], capture_output=True,
                              text=True, check=True).stdout for lib in ("torch", "nnref")]
    assert outputs[0] == outputs[1] and "GLOBAL __main__.Net was not an allowed global" in outputs[0]


def test_weights_only_false_rebuilds_the_model(tmp_path):
    model = build(nnref)
    model.tied = model[0].weight
    nnref.save(model, tmp_path / "m.pt")
    loaded = nnref.load(tmp_path / "m.pt", weights_only=False)
    assert repr(loaded) == repr(build(torch))
    assert type(loaded) is nnref.nn.Sequential and type(loaded[0].weight) is nnref.nn.Parameter
    assert loaded.tied is loaded[0].weight  # one object saved twice loads as one
    for (name, a), (_, b) in zip(loaded.state_dict().items(), model.state_dict().items()):
        assert a.dtype == b.dtype and np.array_equal(a.numpy(), b.numpy()), name
    x = nnref.ones(1, 3)
    assert np.array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())
    assert loaded[0].weight.requires_grad and not loaded.steps.requires_grad


def test_the_archive_is_pytorchs_layout_and_its_tensor_records_pytorchs(tmp_path):
    nnref.save(build(nnref), tmp_path / "ours.pt")
    torch.save(build(torch), tmp_path / "theirs.pt")
    def layout(path):
        with zipfile.ZipFile(path) as archive:
            return sorted(n.split("/", 1)[1] for n in archive.namelist() if "serialization_id" not in n)
    assert layout(tmp_path / "ours.pt") == layout(tmp_path / "theirs.pt")
    with zipfile.ZipFile(tmp_path / "ours.pt") as archive:
        data = archive.read(next(n for n in archive.namelist() if n.endswith("/data.pkl")))
    for name in (b"ctorch._utils\n_rebuild_parameter\n", b"ctorch._utils\n_rebuild_tensor_v2\n", b"ctorch\nFloatStorage\n",
                 b"ctorch\nLongStorage\n"):
        assert name in data


def test_checkpoint_dicts_with_an_optimizer_and_models(tmp_path):
    def run(L):
        model = build(L)
        opt = L.optim.Adam(model.parameters(), lr=0.01)
        model(L.ones(2, 3)).sum().backward()
        opt.step()
        L.save({"epoch": 3, "model": model, "optimizer": opt}, tmp_path / f"{L.__name__}.pt")
        ck = L.load(tmp_path / f"{L.__name__}.pt", weights_only=False)
        ck["optimizer"].zero_grad()
        ck["model"](L.ones(2, 3)).sum().backward()
        ck["optimizer"].step()
        same = ck["optimizer"].param_groups[0]["params"][0] is ck["model"][0].weight
        return ck["epoch"], same, ck["model"][0].weight.detach().numpy().copy()
    (e1, s1, w1), (e2, s2, w2) = run(nnref), run(torch)
    assert (e1, s1) == (e2, s2) == (3, True)
    np.testing.assert_allclose(w1, w2, rtol=1e-6, atol=1e-7)


def test_a_file_object_and_format_torch_work_too():
    buffer = io.BytesIO()
    nnref.save(nnref.nn.Linear(2, 2), buffer, format="torch")
    buffer.seek(0)
    assert type(nnref.load(buffer, weights_only=False)) is nnref.nn.Linear
    with pytest.raises(TypeError):
        nnref.save(nnref.nn.Linear(2, 2), io.BytesIO(), format="safetensors")


def test_a_whole_model_saved_by_pytorch_is_refused_with_the_state_dict_recipe(tmp_path):
    torch.save(build(torch), tmp_path / "theirs.pt")
    with pytest.raises(nnref.serialization.CheckpointError, match=r"cannot rebuild PyTorch's objects.*state_dict"):
        nnref.load(tmp_path / "theirs.pt", weights_only=False)


def test_state_dicts_stay_weights_only_and_readable_by_pytorch(tmp_path):
    nnref.save(build(nnref).state_dict(), tmp_path / "sd.pt", format="torch")
    theirs = build(torch)
    theirs.load_state_dict(torch.load(tmp_path / "sd.pt", weights_only=True))
    ours = nnref.load(tmp_path / "sd.pt")  # no weights_only needed
    assert np.array_equal(ours["0.weight"].numpy(), theirs[0].weight.detach().numpy())


def test_errors_from_the_files_code_come_through_as_pytorchs(tmp_path):
    script = textwrap.dedent("""
        import sys, importlib
        L = importlib.import_module(sys.argv[1])
        class Net(L.nn.Module):
            pass
        L.save(Net(), sys.argv[2])
    """)
    load = "import sys, importlib; L = importlib.import_module(sys.argv[1]); L.load(sys.argv[2], weights_only=False)"
    errors = []
    for lib in ("torch", "nnref"):
        path = str(tmp_path / f"{lib}.pt")
        subprocess.run([sys.executable, "-c", script, lib, path], check=True)
        done = subprocess.run([sys.executable, "-c", load, lib, path], capture_output=True, text=True)
        errors.append(done.stderr.strip().splitlines()[-1])
    assert errors[0] == errors[1] == "AttributeError: Can't get attribute 'Net' on <module '__main__' (built-in)>"


@pytest.mark.parametrize("make", [lambda L: L.nn.Linear(2, 2), lambda L: L.ones(2),
                                  lambda L: L.optim.SGD(L.nn.Linear(2, 2).parameters(), lr=0.1)])
def test_bare_pickle_stays_refused_and_names_the_recipe(make):
    with pytest.raises(TypeError, match=r"cannot be pickled.*\n.*nnref.save"):
        pickle.dumps(make(nnref))
    pickle.loads(pickle.dumps(make(torch)))  # (PyTorch pickles them: a difference, book/differences.md)


def test_uninitialized_parameters_are_not_saved():
    with pytest.raises(pickle.PicklingError, match="uninitialized parameter"):
        nnref.save(nnref.nn.LazyLinear(2), io.BytesIO())


def test_values_stay_in_nnrefs_own_format_and_load_by_default(tmp_path):
    values = {"epoch": 2, "loss": np.float32(0.25), "steps": np.int64(7), "w": nnref.ones(2), "name": "run",
              "dtype": nnref.float64, "shape": nnref.Size([2, 3]), "none": None, "flags": (True, [1.5])}
    nnref.save(values, tmp_path / "v.pt")
    with zipfile.ZipFile(tmp_path / "v.pt") as archive:
        assert "nnref_checkpoint/manifest.json" in archive.namelist()
    loaded = nnref.load(tmp_path / "v.pt")
    assert loaded["loss"] == 0.25 and loaded["steps"] == 7 and loaded["shape"] == nnref.Size([2, 3])


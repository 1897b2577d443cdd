"""Checkpoints between nnref and PyTorch; models that cannot be lost; loads that change nothing
when they fail; saving that respects the file system.

PyTorch is the oracle: ``torch.load(weights_only=True)`` must read what
``nnref.save(..., format="torch")`` writes, and nnref must read what
``torch.save`` writes, bit for bit.
"""
import copy
import io
import os
import pickle
import stat
import struct
from collections import OrderedDict

import numpy as np
import pytest

import nnref
import nnref.optim
from nnref import nn
from nnref.serialization import CheckpointError

DTYPES = ["float16", "bfloat16", "float32", "float64", "int32", "int64", "bool"]
SHAPES = [(), (0,), (3,), (2, 0, 4), (3, 4)]


def bits(t):
    """The tensor's dtype name, shape and raw bytes (nnref or torch)."""
    if isinstance(t, nnref.Tensor):
        array = t.detach().numpy()
    else:
        import torch
        t = t.detach()
        array = (t.view(torch.int16).numpy() if t.dtype == torch.bfloat16 else t.numpy())
    return (str(t.dtype).rsplit(".", 1)[-1], tuple(t.shape),
            np.ascontiguousarray(array).tobytes())


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    return nnref.tensor(rng.standard_normal(shape) * 100).to(getattr(nnref, dtype))


# -- PyTorch's zip format ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_nnref_to_torch_to_nnref_is_exact_for_every_dtype_and_shape(tmp_path, dtype):
    torch = pytest.importorskip("torch")
    tensors = {f"t{i}": sample(dtype, shape, i) for i, shape in enumerate(SHAPES)}
    nnref.save(tensors, tmp_path / "a.pt", format="torch")
    theirs = torch.load(tmp_path / "a.pt", weights_only=True)
    assert {k: bits(v) for k, v in theirs.items()} == {k: bits(v) for k, v in tensors.items()}
    mapped = torch.load(tmp_path / "a.pt", weights_only=True, mmap=True)  # needs aligned data
    assert {k: bits(v) for k, v in mapped.items()} == {k: bits(v) for k, v in tensors.items()}
    torch.save(theirs, tmp_path / "b.pt")
    back = nnref.load(tmp_path / "b.pt")
    assert {k: bits(v) for k, v in back.items()} == {k: bits(v) for k, v in tensors.items()}


def test_torch_reads_state_dicts_parameters_and_plain_values(tmp_path):
    torch = pytest.importorskip("torch")
    nnref.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    p = nn.Parameter(nnref.randn(2))
    leaf = nnref.randn(2, requires_grad=True)
    obj = {"model": model.state_dict(), "p": p, "frozen": nn.Parameter(nnref.ones(1), False),
           "leaf": leaf, "again": leaf, "numbers": [1, -2**40, 2**70, 0.1, float("inf")],
           "flags": (True, False, None), 3: "int key", "dtype": nnref.bfloat16,
           "size": nnref.Size([2, 3]), "device": nnref.device("cpu")}
    nnref.save(obj, tmp_path / "ck.pt", format="torch")
    theirs = torch.load(tmp_path / "ck.pt", weights_only=True)
    assert list(theirs["model"]) == list(model.state_dict())
    assert theirs["model"]._metadata == model.state_dict()._metadata
    assert type(theirs["p"]) is torch.nn.Parameter and theirs["p"].requires_grad
    assert not theirs["frozen"].requires_grad
    assert theirs["leaf"].requires_grad and theirs["leaf"] is theirs["again"]
    assert theirs["numbers"] == [1, -2**40, 2**70, 0.1, float("inf")]
    assert theirs["flags"] == (True, False, None) and theirs[3] == "int key"
    assert theirs["dtype"] is torch.bfloat16 and theirs["size"] == torch.Size([2, 3])
    assert theirs["device"] == torch.device("cpu")
    # And back: PyTorch's own file of the same object reads into the same nnref values.
    torch.save(theirs, tmp_path / "torch.pt")
    back = nnref.load(tmp_path / "torch.pt")
    assert back["model"]._metadata == model.state_dict()._metadata
    assert type(back["p"]) is nn.Parameter and back["leaf"] is back["again"]
    assert back["dtype"] is nnref.bfloat16 and back["size"] == nnref.Size([2, 3])
    assert bits(back["model"]["0.weight"]) == bits(model.state_dict()["0.weight"])


def test_torch_views_of_one_storage_load_as_their_values(tmp_path):
    torch = pytest.importorskip("torch")
    base = torch.arange(12.0).reshape(3, 4)
    torch.save({"base": base, "t": base.t(), "row": base[1], "col": base[:, 2],
                "empty": base[3:], "scalar": base[2, 3]}, tmp_path / "v.pt")
    loaded = nnref.load(tmp_path / "v.pt")
    for name, expected in [("base", base), ("t", base.t()), ("row", base[1]), ("col", base[:, 2]),
                           ("empty", base[3:]), ("scalar", base[2, 3])]:
        assert loaded[name].tolist() == expected.tolist(), name
    loaded["t"].add_(1)  # views load as copies: no hidden aliasing between tensors
    assert loaded["base"].tolist() == base.tolist()


def test_a_real_torch_training_checkpoint_resumes_in_nnref(tmp_path):
    """torch model + optimizer checkpoint -> nnref model and optimizer."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    optimizer = torch.optim.Adam(theirs.parameters(), lr=0.01)
    theirs(torch.randn(5, 3)).sum().backward()
    optimizer.step()
    torch.save({"model": theirs.state_dict(), "optimizer": optimizer.state_dict()},
               tmp_path / "ck.pt")
    loaded = nnref.load(tmp_path / "ck.pt")
    ours = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    ours.load_state_dict(loaded["model"])
    ours_optimizer = nnref.optim.Adam(ours.parameters(), lr=0.01)
    ours_optimizer.load_state_dict(loaded["optimizer"])
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(ours(nnref.tensor(x)).detach().numpy(),
                                  theirs(torch.tensor(x)).detach().numpy())
    assert ours_optimizer.state_dict()["state"][0]["step"].item() == 1


# -- safetensors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_safetensors_round_trip_is_exact_and_matches_the_library(tmp_path, dtype):
    pytest.importorskip("safetensors")
    from nnref.utils import safetensors as st
    tensors = {f"t{i}": sample(dtype, shape, i) for i, shape in enumerate(SHAPES)}
    st.save_file(tensors, tmp_path / "a.safetensors")
    assert {k: bits(v) for k, v in st.load_file(tmp_path / "a.safetensors").items()} == \
        {k: bits(v) for k, v in tensors.items()}
    nnref.save(tensors, tmp_path / "b.safetensors", format="safetensors")
    assert (tmp_path / "b.safetensors").read_bytes() == (tmp_path / "a.safetensors").read_bytes()
    assert {k: bits(v) for k, v in nnref.load(tmp_path / "b.safetensors").items()} == \
        {k: bits(v) for k, v in tensors.items()}
    pytest.importorskip("torch")
    import safetensors.torch
    theirs = safetensors.torch.load_file(tmp_path / "a.safetensors")
    assert {k: bits(v) for k, v in theirs.items()} == {k: bits(v) for k, v in tensors.items()}
    safetensors.torch.save_file(theirs, tmp_path / "c.safetensors")
    assert {k: bits(v) for k, v in st.load_file(tmp_path / "c.safetensors").items()} == \
        {k: bits(v) for k, v in tensors.items()}


def test_safetensors_refuses_what_it_cannot_hold(tmp_path):
    pytest.importorskip("safetensors")
    w = nnref.ones(2)
    with pytest.raises(TypeError, match="only tensors"):
        nnref.save({"w": w, "epoch": 3}, tmp_path / "x.safetensors", format="safetensors")
    with pytest.raises(RuntimeError, match="same tensor"):
        nnref.save({"a": w, "b": w}, tmp_path / "x.safetensors", format="safetensors")
    assert os.listdir(tmp_path) == []


# -- PyTorch tensors given to nnref --------------------------------------------------------------
def test_load_state_dict_converts_a_torch_state_dict_exactly():
    torch = pytest.importorskip("torch")
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    theirs[1].running_mean.normal_()
    ours = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    ours.load_state_dict(theirs.state_dict())
    assert {k: bits(v) for k, v in ours.state_dict().items()} == \
        {k: bits(v) for k, v in theirs.state_dict().items()}
    half = nn.Linear(2, 1).to(nnref.bfloat16)
    half.load_state_dict(torch.nn.Linear(2, 1).to(torch.bfloat16).state_dict())


def test_torch_tensor_of_a_dtype_nnref_lacks_says_how_to_convert():
    torch = pytest.importorskip("torch")
    model = nn.Linear(1, 1)
    with pytest.raises(TypeError, match=r"torch.complex64.*nnref.tensor\(value.float\(\).numpy"):
        model.load_state_dict({"weight": torch.zeros(1, 1, dtype=torch.complex64),
                               "bias": torch.zeros(1)})


# -- no way to lose a model ----------------------------------------------------------------------
def objects():
    model = nn.Sequential(nn.Linear(2, 2))
    return {"tensor": nnref.ones(2), "parameter": model[0].weight, "module": model,
            "optimizer": nnref.optim.SGD(model.parameters(), lr=0.1)}


@pytest.mark.parametrize("kind", ["tensor", "parameter", "module", "optimizer"])
def test_pickling_fails_at_once_with_the_recipe(kind, tmp_path):
    obj = objects()[kind]
    with pytest.raises(TypeError, match=r"(?s)cannot be pickled.*nnref\.save\(model\.state_dict"
                                        r"\(\), path\)") as info:
        pickle.dumps(obj)
    assert "nnref.load(path)" in str(info.value)
    with open(tmp_path / "f.pkl", "wb") as f, pytest.raises(TypeError):
        pickle.dump({"inside": [obj]}, f)


@pytest.mark.parametrize("kind", ["module", "optimizer"])
def test_a_saved_module_or_optimizer_loads_only_with_weights_only_false(kind, tmp_path):
    # as PyTorch 2.6+: torch.save pickles it, torch.load refuses it by default
    # (tests/nn/test_whole_model_checkpoint.py compares the details with PyTorch)
    nnref.save(objects()[kind], tmp_path / "x.pt")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        nnref.load(tmp_path / "x.pt")
    assert type(nnref.load(tmp_path / "x.pt", weights_only=False)) is type(objects()[kind])


def test_copy_and_deepcopy_still_work():
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    optimizer = nnref.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(nnref.randn(3, 2)).sum().backward()
    optimizer.step()
    twin = copy.deepcopy(model)
    assert twin[0].weight is not model[0].weight
    assert twin[0].weight.tolist() == model[0].weight.tolist()
    assert copy.copy(model)[0] is model[0]
    twin_optimizer = copy.deepcopy(optimizer)
    state = next(iter(twin_optimizer.state.values()))
    assert state["momentum_buffer"].tolist() == \
        next(iter(optimizer.state.values()))["momentum_buffer"].tolist()
    assert copy.copy(optimizer).param_groups is optimizer.param_groups


# -- atomic load_state_dict, PyTorch's algorithm -------------------------------------------------
def with_extra_state(torch, nn, fail):
    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.scale = 1.0

        def get_extra_state(self):
            return {"scale": self.scale}

        def set_extra_state(self, state):
            self.scale = state["scale"]
            if fail:
                raise ValueError("bad extra state")

    return nn.Sequential(nn.Linear(2, 2), Scaled(), nn.Linear(2, 1))


def test_set_extra_state_raising_rolls_everything_back():
    torch = pytest.importorskip("torch")
    for library, module in [(nnref, nn), (torch, torch.nn)]:
        src = with_extra_state(library, module, fail=False)
        src[1].scale = 3.0
        dst = with_extra_state(library, module, fail=True)
        before = {k: bits(v) for k, v in dst.state_dict().items() if k != "1._extra_state"}
        with pytest.raises(ValueError, match="bad extra state"):
            dst.load_state_dict(src.state_dict())
        after = {k: bits(v) for k, v in dst.state_dict().items() if k != "1._extra_state"}
        if library is nnref:
            assert after == before and dst[1].scale == 1.0
        else:  # PyTorch: layer 0 and the extra state are already loaded
            assert after != before and dst[1].scale == 3.0


def test_a_shape_mismatch_after_a_custom_copy_rolls_back_that_copy_too():
    """An override of _load_from_state_dict that copies values itself (it runs as in PyTorch)."""
    torch = pytest.importorskip("torch")

    def build(torch, nn):
        class Renamed(nn.Linear):
            """Loads old checkpoints that called the weight 'w'."""

            def _load_from_state_dict(self, state_dict, prefix, *args):
                if prefix + "w" in state_dict:
                    with torch.no_grad():
                        self.weight.copy_(state_dict.pop(prefix + "w"))
                    state_dict[prefix + "weight"] = self.weight.detach().clone()
                super()._load_from_state_dict(state_dict, prefix, *args)

        return nn.Sequential(Renamed(2, 2), nn.Linear(2, 3))

    results = {}
    for library, module in [(nnref, nn), (torch, torch.nn)]:
        model = build(library, module)
        good = {"0.w": library.full((2, 2), 5.0), "0.bias": library.zeros(2),
                "1.weight": library.ones(3, 2), "1.bias": library.zeros(3)}
        model.load_state_dict(good)
        results[library.__name__] = model[0].weight.tolist()
        before = {k: bits(v) for k, v in model.state_dict().items()}
        bad = dict(good, **{"0.w": library.full((2, 2), 7.0), "1.weight": library.ones(4, 4)})
        with pytest.raises(RuntimeError, match="size mismatch for 1.weight"):
            model.load_state_dict(bad)
        after = {k: bits(v) for k, v in model.state_dict().items()}
        assert (after == before) == (library is nnref)
    assert results["nnref"] == results["torch"] == [[5.0, 5.0], [5.0, 5.0]]


def test_hooks_and_overrides_see_what_they_see_in_pytorch():
    torch = pytest.importorskip("torch")

    def run(library, module):
        log = []

        class Versioned(module.Linear):
            _version = 2

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs):
                log.append(("override", prefix, local_metadata.get("version"),
                            sorted(state_dict)))
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                              missing_keys, unexpected_keys, error_msgs)
                log.append(("after", [round(v, 3) for v in self.weight.flatten().tolist()]))

        model = module.Sequential(Versioned(2, 1), module.Linear(1, 1))
        model.register_load_state_dict_post_hook(
            lambda m, keys: log.append(("post", list(keys.missing_keys))))
        model[1].register_load_state_dict_pre_hook(
            lambda m, sd, prefix, *rest: log.append(("pre", prefix, sorted(sd))))
        sd = model.state_dict()
        sd["0.weight"] = library.tensor([[1.5, -2.0]])
        del sd["1.bias"]
        model.load_state_dict(sd, strict=False)
        return log

    assert run(nnref, nn) == run(torch, torch.nn)


def test_assign_rolls_back_to_the_original_parameter_objects():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 3))
    weight = model[0].weight
    sd = {"0.weight": nnref.ones(2, 2), "0.bias": nnref.ones(2), "1.weight": nnref.ones(9),
          "1.bias": nnref.ones(3)}
    with pytest.raises(RuntimeError, match="size mismatch"):
        model.load_state_dict(sd, assign=True)
    assert model[0].weight is weight and model._modules["0"]._parameters["weight"] is weight


def test_a_failed_load_does_not_touch_versions_of_tensors_it_did_not_write():
    model = nn.Linear(2, 2)
    version = model.weight._version
    with pytest.raises(RuntimeError):
        model.load_state_dict({"weight": nnref.ones(3, 3), "bias": nnref.ones(2)})
    assert model.weight._version == version


def test_optimizer_load_is_atomic():
    model = nn.Linear(2, 2)
    optimizer = nnref.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(nnref.ones(1, 2)).sum().backward()
    optimizer.step()
    before = optimizer.state_dict()
    saved = copy.deepcopy(before)
    saved["param_groups"][0]["lr"] = 5.0
    saved["state"][0]["momentum_buffer"] = "not a tensor"

    class Broken(nnref.optim.SGD):
        def __setstate__(self, state):
            super().__setstate__(state)
            raise ValueError("late failure")

    optimizer.__class__ = Broken
    with pytest.raises(ValueError, match="late failure"):
        optimizer.load_state_dict(saved)
    optimizer.__class__ = nnref.optim.SGD
    assert optimizer.param_groups[0]["lr"] == 0.1
    assert isinstance(optimizer.state[model.weight]["momentum_buffer"], nnref.Tensor)


# -- saving respects the file system -------------------------------------------------------------
def test_write_protected_file_raises_permission_error_and_stays(tmp_path):
    path = tmp_path / "ck.pt"
    nnref.save({"epoch": 1}, path)
    before = path.read_bytes()
    path.chmod(0o444)
    with pytest.raises(PermissionError) as info:
        nnref.save({"epoch": 2}, path)
    assert info.value.filename == str(path)
    assert path.read_bytes() == before and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert os.listdir(tmp_path) == ["ck.pt"]


def test_a_fifo_is_written_through_not_replaced(tmp_path):
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()))
    reader.start()
    nnref.save({"w": nnref.arange(3)}, fifo)
    reader.join(timeout=30)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert nnref.load(io.BytesIO(received[0]))["w"].tolist() == [0, 1, 2]


@pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="no posix_fadvise on this system")
@pytest.mark.parametrize("fmt", ["nnref", "torch", "safetensors"])
def test_the_replaced_files_cache_is_dropped_before_its_successor_is_written(
        tmp_path, monkeypatch, fmt):
    path = tmp_path / "ck.pt"
    nnref.save({"w": nnref.zeros(1000)}, path, format=fmt)
    old_inode = path.stat().st_ino
    advised = []
    real = os.posix_fadvise

    def recording(fd, offset, length, advice):
        # which file, what advice, and whether the new file was begun yet
        advised.append((os.fstat(fd).st_ino, offset, length, advice, sorted(os.listdir(tmp_path))))
        return real(fd, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", recording)
    open_fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    nnref.save({"w": nnref.ones(1000)}, path, format=fmt)
    assert advised == [(old_inode, 0, 0, os.POSIX_FADV_DONTNEED, ["ck.pt"])]
    assert nnref.load(path)["w"].tolist() == [1.0] * 1000
    if open_fds is not None:
        assert len(os.listdir("/proc/self/fd")) == open_fds  # the descriptor was closed
    # A file system that refuses the advice does not stop the save.
    monkeypatch.setattr(os, "posix_fadvise", lambda *args: (_ for _ in ()).throw(
        OSError(22, "Invalid argument")))
    nnref.save({"w": nnref.full((1000,), 2.0)}, path, format=fmt)
    assert nnref.load(path)["w"].tolist() == [2.0] * 1000
    assert os.listdir(tmp_path) == ["ck.pt"]


def test_missing_directory_names_the_users_path_like_pytorch(tmp_path):
    target = tmp_path / "no" / "such" / "ck.pt"
    with pytest.raises(RuntimeError, match=f"Parent directory {tmp_path / 'no' / 'such'} does "
                                           "not exist"):
        nnref.save(1, target)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=f"Parent directory {tmp_path / 'no' / 'such'} does "
                                           "not exist"):
        torch.save(1, target)


def test_a_directory_target_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError):
        nnref.save(1, tmp_path)


def test_errors_remove_the_temporary_file_and_stale_ones_are_cleaned(tmp_path, monkeypatch):
    path = tmp_path / "ck.pt"
    with pytest.raises(pickle.PicklingError):  # a lambda: pickle cannot name it, as in torch.save
        nnref.save({"bad": lambda: 0}, path)
    with pytest.raises(pickle.PicklingError):
        nnref.save({"bad": lambda: 0}, path, format="torch")
    assert os.listdir(tmp_path) == []
    # A crash (power cut) of another process leaves its temporary file; the next save removes it.
    dead = 2**22 + 12345  # above the kernel's default pid_max: no such process
    stale = tmp_path / f".ck.pt.{dead}.deadbeef.nnref-tmp"
    stale.write_bytes(b"half")
    alive = tmp_path / f".ck.pt.{os.getppid()}.cafe0000.nnref-tmp"  # a live process's save
    alive.write_bytes(b"in progress")
    nnref.save({"epoch": 1}, path)
    assert sorted(os.listdir(tmp_path)) == sorted(["ck.pt", alive.name])
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O error")))
    with pytest.raises(OSError, match="I/O error"):
        nnref.save({"epoch": 2}, path)
    assert sorted(os.listdir(tmp_path)) == sorted(["ck.pt", alive.name])
    assert nnref.load(path) == {"epoch": 1}


def test_unknown_format_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="format must be one of 'nnref', 'torch', 'safetensors'"):
        nnref.save(1, tmp_path / "x", format="pickle")


def test_checkpoint_error_for_a_foreign_zip():
    buffer = io.BytesIO()
    import zipfile
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(CheckpointError, match="neither an nnref checkpoint"):
        nnref.load(io.BytesIO(buffer.getvalue()))


def test_float_bits_survive_the_torch_format():
    values = [0.1, -0.0, 5e-324, 1 / 3, float("inf"), float("-inf")]
    buffer = io.BytesIO()
    nnref.save(values, buffer, format="torch")
    loaded = nnref.load(io.BytesIO(buffer.getvalue()))
    assert [struct.pack("<d", v) for v in loaded] == [struct.pack("<d", v) for v in values]
    assert OrderedDict is type(nnref.load(io.BytesIO(_saved(OrderedDict(a=1)))))


def _saved(obj):
    buffer = io.BytesIO()
    nnref.save(obj, buffer, format="torch")
    return buffer.getvalue()

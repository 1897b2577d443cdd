"""``nnref.save`` / ``nnref.load``: exact round trips, atomic writes, and hostile files.

Loading must never run code and never fail with anything but ``CheckpointError``,
whatever the bytes: truncated, flipped, random, or crafted to lie about sizes.
"""
import io
import json
import math
import os
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import nnref
import nnref.optim
from nnref import nn
from nnref.serialization import CheckpointError, MAX_NESTING
from nn_compare import numpy_of, rng  # noqa: F401


def assert_same(a, b, path="obj"):
    """Same structure, container types, key order, dtypes, shapes and bits."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, nnref.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad, path
        bits = [np.ascontiguousarray(t.detach().numpy()).reshape(-1).view(np.uint8) for t in (a, b)]
        assert np.array_equal(*bits), path
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]")
        assert getattr(a, "_metadata", None) == getattr(b, "_metadata", None), path
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, float):
        assert struct.pack("<d", a) == struct.pack("<d", b), f"{path}: {a!r} != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def round_trip(obj, tmp_path):
    path = tmp_path / "obj.pt"
    nnref.save(obj, path)
    return nnref.load(path)


DTYPES = [nnref.float16, nnref.bfloat16, nnref.float32, nnref.float64, nnref.int32, nnref.int64,
          nnref.bool]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 4), (3, 4), (2, 3, 4, 5)])
def test_tensors_of_every_dtype_and_shape(rng, tmp_path, dtype, shape):
    t = nnref.tensor(rng.standard_normal(shape) * 100).to(dtype)
    loaded = round_trip(t, tmp_path)
    assert_same(t, loaded)


def test_nested_python_values_keep_types_order_and_bits(tmp_path):
    state = OrderedDict([("b.weight", nnref.randn(2, 3)), ("a.bias", nnref.zeros(2))])
    state._metadata = OrderedDict([("", {"version": 1}), ("a", {"version": 2})])
    obj = {"ints": [0, -1, 2 ** 70], "floats": (0.1, -0.0, float("inf"), -float("inf"), 5e-324,
                                                 1 / 3),
           "strings": ["", "héllo ✓", "quote\"back\\slash"], "flags": (True, False, None),
           3: "int key", (1, "a"): "tuple key", None: "none key", 2.5: [], "empty": {},
           "state": state, "odict in list": [OrderedDict(z=1, a=2)],
           "dtype": nnref.bfloat16, "device": nnref.device("cpu"), "size": nnref.Size([2, 3])}
    loaded = round_trip(obj, tmp_path)
    assert_same(obj, loaded)
    nan = round_trip(float("nan"), tmp_path)
    assert math.isnan(nan)


def test_parameters_grad_flags_and_shared_tensors(tmp_path):
    p = nn.Parameter(nnref.randn(3))
    frozen = nn.Parameter(nnref.randn(2), requires_grad=False)
    leaf = nnref.randn(2, requires_grad=True)
    shared = nnref.arange(6).reshape(2, 3)
    loss = (leaf * 2).sum()
    loaded = round_trip({"p": p, "frozen": frozen, "leaf": leaf, "x": shared, "y": shared,
                         "view": shared.t(), "loss": loss}, tmp_path)
    assert loaded["loss"].is_leaf and loaded["loss"].requires_grad  # as torch.load gives it
    assert type(loaded["p"]) is nn.Parameter and loaded["p"].requires_grad
    assert type(loaded["frozen"]) is nn.Parameter and not loaded["frozen"].requires_grad
    assert type(loaded["leaf"]) is nnref.Tensor and loaded["leaf"].requires_grad
    assert loaded["x"] is loaded["y"]
    np.testing.assert_array_equal(loaded["view"].numpy(), shared.t().numpy())
    assert loaded["view"].is_contiguous()


def test_file_objects_and_map_location(tmp_path):
    buffer = io.BytesIO()
    nnref.save({"w": nnref.ones(2)}, buffer)
    buffer.seek(0)
    assert nnref.load(buffer, map_location="cpu")["w"].device == nnref.device("cpu")
    buffer.seek(0)
    loaded = nnref.load(buffer, map_location={"cuda:0": "cpu"}, weights_only=True)
    assert loaded["w"].tolist() == [1.0, 1.0]


def test_same_object_gives_identical_bytes(tmp_path):
    obj = {"w": nnref.arange(10).float(), "n": 3}
    nnref.save(obj, tmp_path / "a.pt")
    nnref.save(obj, tmp_path / "b.pt")
    assert (tmp_path / "a.pt").read_bytes() == (tmp_path / "b.pt").read_bytes()


def test_unsaveable_objects_raise_before_touching_the_file(tmp_path):
    # other objects (a set, a module, a numpy array) are pickled, as torch.save pickles them
    # (tests/nn/test_whole_model_checkpoint.py); what pickle cannot write raises PyTorch's error
    path = tmp_path / "ck.pt"
    nnref.save({"epoch": 1}, path)
    before = path.read_bytes()
    for bad in [{"f": lambda: 0}, [nn.Linear(2, 2), lambda: 1]]:
        with pytest.raises(pickle.PicklingError):
            nnref.save(bad, path)
    cycle = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="nested"):
        nnref.save(cycle, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ck.pt"]


# -- the notes' checkpoint ---------------------------------------------------------------------
def make_training(seed):
    nnref.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
    optimizer = nnref.optim.Adam(model.parameters(), lr=0.01)
    return model, optimizer


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = nn.CrossEntropyLoss()(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def test_notes_checkpoint_round_trip_and_resume(rng, tmp_path):
    x = nnref.tensor(rng.standard_normal((16, 4)).astype(np.float32))
    y = nnref.tensor(rng.integers(0, 3, 16))
    model, optimizer = make_training(0)
    for _ in range(3):
        train_step(model, optimizer, x, y)
    checkpoint = {"epoch": 5, "model_state_dict": model.state_dict(),
                  "optimizer_state_dict": optimizer.state_dict(), "loss": 0.42}
    path = tmp_path / "checkpoint.pt"
    nnref.save(checkpoint, path)
    loaded = nnref.load(path)
    assert_same(checkpoint, loaded)
    assert loaded["model_state_dict"]["1.num_batches_tracked"].dtype == nnref.int64
    assert list(loaded["optimizer_state_dict"]["state"]) == list(range(6))

    # Resume in a fresh model and optimizer: the next steps are the ones training would have taken.
    model2, optimizer2 = make_training(123)
    model2.load_state_dict(loaded["model_state_dict"])
    optimizer2.load_state_dict(loaded["optimizer_state_dict"])
    for _ in range(3):
        assert train_step(model2, optimizer2, x, y) == train_step(model, optimizer, x, y)
    for (name, p), p2 in zip(model.state_dict().items(), model2.state_dict().values()):
        np.testing.assert_array_equal(p.numpy(), p2.numpy(), err_msg=name)


# -- atomic writes -----------------------------------------------------------------------------
def test_crash_during_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    from nnref import serialization
    path = tmp_path / "ck.pt"
    nnref.save({"epoch": 1, "w": nnref.ones(1000)}, path)
    before = path.read_bytes()

    def crash(stream, obj):
        stream.write(b"PK\x03\x04 half a checkpoint")
        raise KeyboardInterrupt  # a crash as abrupt as Ctrl-C mid-write

    monkeypatch.setattr(serialization, "_write_archive", crash)
    with pytest.raises(KeyboardInterrupt):
        nnref.save({"epoch": 2, "w": nnref.zeros(1000)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ck.pt"]  # no temporary file left behind
    assert nnref.load(path)["epoch"] == 1


@pytest.mark.parametrize("fmt", ["nnref", "torch", "safetensors"])
def test_writeback_starts_while_writing_and_the_bytes_are_those_of_a_plain_write(
        tmp_path, monkeypatch, fmt):
    from nnref._checkpoint_io import _EarlyWriteback  # every format's atomic write uses it
    if _EarlyWriteback._sync_range is None:
        pytest.skip("no sync_file_range on this system: saves fsync at the end only")
    handed_over = []
    real = _EarlyWriteback._sync_range

    def recording(fd, offset, length, flags):
        handed_over.append((offset, length))
        return real(fd, offset, length, flags)

    monkeypatch.setattr(_EarlyWriteback, "CHUNK", 4096)
    monkeypatch.setattr(_EarlyWriteback, "_sync_range", staticmethod(recording))
    state = {f"w{i}": nnref.arange(3000 * (i + 1)).float() for i in range(4)}
    nnref.save(state, tmp_path / "ck", format=fmt)
    in_memory = io.BytesIO()
    nnref.save(state, in_memory, format=fmt)
    assert (tmp_path / "ck").read_bytes() == in_memory.getvalue()
    # consecutive ranges, handed over during the write (not one range at the end)
    assert len(handed_over) > 4
    assert all(a + n == b for (a, n), (b, _) in zip(handed_over, handed_over[1:]))
    assert handed_over[-1][0] + handed_over[-1][1] > len(in_memory.getvalue()) - 3 * 4096 * 4


def test_saving_through_a_symlink_replaces_its_target(tmp_path):
    (tmp_path / "runs").mkdir()
    nnref.save(1, tmp_path / "runs" / "epoch1.pt")
    (tmp_path / "latest.pt").symlink_to(tmp_path / "runs" / "epoch1.pt")
    nnref.save(2, tmp_path / "latest.pt")
    assert (tmp_path / "latest.pt").is_symlink()
    assert nnref.load(tmp_path / "runs" / "epoch1.pt") == 2


def test_new_files_get_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        nnref.save(1, tmp_path / "ck.pt")
    finally:
        os.umask(umask)
    assert (tmp_path / "ck.pt").stat().st_mode & 0o777 == 0o644


# -- damaged, foreign and hostile files ---------------------------------------------------------
def reference_bytes():
    buffer = io.BytesIO()
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    nnref.save({"epoch": 5, "model": model.state_dict(), "loss": 0.42,
                "half": nnref.ones(3).to(nnref.bfloat16)}, buffer)
    return buffer.getvalue()


def load_or_checkpoint_error(data, tmp_path, name="damaged.pt"):
    path = tmp_path / name
    path.write_bytes(data)
    try:
        nnref.load(path)
    except CheckpointError as exc:
        assert str(path) in str(exc)
        return "error"
    return "loaded"


def test_random_damage_only_ever_raises_checkpoint_error(tmp_path):
    data = reference_bytes()
    rng = np.random.default_rng(2024)
    outcomes = {"error": 0, "loaded": 0}
    for trial in range(600):
        damaged = bytearray(data)
        kind = trial % 5
        if kind == 0:  # truncated anywhere
            damaged = damaged[:rng.integers(0, len(data))]
        elif kind == 1:  # a few flipped bits
            for _ in range(rng.integers(1, 5)):
                damaged[rng.integers(0, len(data))] ^= 1 << rng.integers(0, 8)
        elif kind == 2:  # a run of random bytes
            start = rng.integers(0, len(data))
            damaged[start:start + 16] = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
        elif kind == 3:  # junk
            damaged = rng.integers(0, 256, rng.integers(0, 3000), dtype=np.uint8).tobytes()
        else:  # bytes cut out of the middle
            start = rng.integers(0, len(data))
            del damaged[start:start + rng.integers(1, 200)]
        outcomes[load_or_checkpoint_error(bytes(damaged), tmp_path)] += 1
    assert outcomes["error"] > 500


def write_zip(entries, compression=zipfile.ZIP_STORED):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def manifest(obj, tensors=(), **overrides):
    doc = {"format": "nnref-checkpoint", "version": 1, "byteorder": "little",
           "tensors": list(tensors), "object": obj}
    doc.update(overrides)
    return json.dumps(doc)


M = "nnref_checkpoint/manifest.json"
T0 = "nnref_checkpoint/tensors/0"
F32 = {"dtype": "float32", "shape": [2], "device": "cpu", "requires_grad": False,
       "parameter": False}


def deep(depth):
    return '{"list": [' * depth + "1" + "]}" * depth


HOSTILE = {
    "empty file": b"",
    "not a zip": b"hello, world\n" * 10,
    "pickle (what torch.save writes inside)": b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94.",
    "zip without manifest": write_zip({"data.pkl": b"\x80\x04."}),
    "manifest not json": write_zip({M: b"{not json"}),
    "manifest not utf-8": write_zip({M: b"\xff\xfe{}"}),
    "manifest a list": write_zip({M: b"[1, 2]"}),
    "wrong format name": write_zip({M: manifest(1, format="torch")}),
    "future version": write_zip({M: manifest(1, version=2)}),
    "version as bool": write_zip({M: manifest(1, version=True)}),
    "big-endian": write_zip({M: manifest(1, byteorder="big")}),
    "no object": write_zip({M: json.dumps({"format": "nnref-checkpoint", "version": 1,
                                           "byteorder": "little", "tensors": []})}),
    "compressed bomb": write_zip({M: manifest({"tensor": 0}, [dict(F32, shape=[2_500_000])]),
                                  T0: b"\0" * 10_000_000}, zipfile.ZIP_DEFLATED),
    "shape larger than bytes": write_zip({M: manifest({"tensor": 0}, [dict(F32, shape=[2 ** 40])]),
                                          T0: b"\0" * 8}),
    "shape smaller than bytes": write_zip({M: manifest({"tensor": 0}, [F32]), T0: b"\0" * 12}),
    "negative dim": write_zip({M: manifest({"tensor": 0}, [dict(F32, shape=[-2])]), T0: b""}),
    "bool dim": write_zip({M: manifest({"tensor": 0}, [dict(F32, shape=[True, 2])]), T0: b"\0" * 8}),
    "float dim": write_zip({M: manifest({"tensor": 0}, [dict(F32, shape=[2.0])]), T0: b"\0" * 8}),
    "too many dims": write_zip({M: manifest({"tensor": 0}, [dict(F32, shape=[1] * 100)]), T0: b"\0" * 4}),
    "unknown dtype": write_zip({M: manifest({"tensor": 0}, [dict(F32, dtype="complex64")]),
                                T0: b"\0" * 16}),
    "dtype not a string": write_zip({M: manifest({"tensor": 0}, [dict(F32, dtype=["float32"])]),
                                     T0: b"\0" * 8}),
    "int tensor requiring grad": write_zip({M: manifest({"tensor": 0}, [dict(F32, dtype="int32",
                                                                        requires_grad=True)]),
                                            T0: b"\0" * 8}),
    "unknown device": write_zip({M: manifest({"tensor": 0}, [dict(F32, device="tpu")]), T0: b"\0" * 8}),
    "missing tensor entry": write_zip({M: manifest({"tensor": 0}, [F32])}),
    "tensor index out of range": write_zip({M: manifest({"tensor": 3}, [F32]), T0: b"\0" * 8}),
    "tensor index negative": write_zip({M: manifest({"tensor": -1}, [F32]), T0: b"\0" * 8}),
    "more tensors than entries": write_zip({M: manifest(1, [F32] * 50)}),
    "unknown tag": write_zip({M: manifest({"pickle": "os.system"})}),
    "two tags": write_zip({M: manifest({"list": [], "tuple": []})}),
    "bare json list": write_zip({M: manifest([1, 2])}),
    "dict item not a pair": write_zip({M: manifest({"dict": [[1, 2, 3]]})}),
    "unhashable key": write_zip({M: manifest({"dict": [[{"list": []}, 1]]})}),
    "size of floats": write_zip({M: manifest({"size": [1.5]})}),
    "nesting beyond the limit": write_zip({M: manifest(json.loads(deep(MAX_NESTING + 5)))}),
    "nesting beyond json's recursion": write_zip({M: ('{"format":"nnref-checkpoint","version":1,'
                                                      '"byteorder":"little","tensors":[],"object":'
                                                      + deep(100_000) + "}")}),
    "huge integer text": write_zip({M: manifest(1).replace('"object": 1', '"object": ' + "9" * 5000)}),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_files_raise_checkpoint_error(tmp_path, name):
    assert load_or_checkpoint_error(HOSTILE[name], tmp_path) == "error"


def test_entry_claiming_more_bytes_than_the_file_is_rejected_before_reading(tmp_path):
    data = bytearray(write_zip({M: manifest({"tensor": 0}, [F32]), T0: b"\0" * 8}))
    # Patch the tensor entry's uncompressed size in the central directory to 4 GB - 1.
    record = data.rfind(b"PK\x01\x02")
    assert data[record + 46:record + 46 + len(T0)] == T0.encode()
    data[record + 24:record + 28] = struct.pack("<I", 0xFFFFFFFE)
    with pytest.raises(CheckpointError, match="more than the whole file"):
        nnref.load(io.BytesIO(bytes(data)))


def test_a_torch_checkpoint_naming_other_code_is_refused_not_run(tmp_path):
    """A torch.save zip whose data.pkl names any global beyond the tensor-rebuild set is refused."""
    torch = pytest.importorskip("torch")
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(2)}, path)
    entries = {}
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            entries[info.filename] = archive.read(info)
    prefix = next(n for n in entries if n.endswith("data.pkl"))[:-len("data.pkl")]
    entries[prefix + "data.pkl"] = b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00echo\x85R."
    path.write_bytes(write_zip(entries))
    with pytest.raises(CheckpointError, match="GLOBAL os.system whose module os is blocked") as ours:
        nnref.load(path)
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(path)
    assert str(ours.value) == str(theirs.value)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        nnref.load(tmp_path / "nope.pt")


def test_checkpoint_error_is_a_runtime_error():
    assert issubclass(CheckpointError, RuntimeError)


def test_numpy_of_loaded_tensors_is_writable(tmp_path):
    loaded = round_trip(nnref.ones(3), tmp_path)
    loaded.add_(1)
    assert numpy_of(loaded).tolist() == [2.0, 2.0, 2.0]

"""Hostile checkpoints cost bounded time and memory, run no code, and raise one error type.

Crafted files for each known bomb (overlapping ZIP entries, colliding dict
keys, deep nesting, code named in a PyTorch pickle, a planted ``cupy.py``),
then a fixed-seed fuzz of 1,000 mutated files per format (nnref, PyTorch zip,
safetensors), each case timed and its memory traced.
"""
import io
import json
import os
import struct
import subprocess
import sys
import time
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

import nnref
from nnref import nn
from nnref.serialization import CheckpointError, MAX_HASH_COLLISIONS, MAX_NESTING

M = "nnref_checkpoint/manifest.json"


def manifest(obj, tensors=()):
    return json.dumps({"format": "nnref-checkpoint", "version": 1, "byteorder": "little",
                       "tensors": list(tensors), "object": obj}).encode()


def stored_zip(entries):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def load_bytes(data):
    return nnref.load(io.BytesIO(data))


def bounded(data, seconds=2.0, extra_bytes=None, trace=True):
    """Load ``data``; return the exception (None if it loaded), after checking time and memory
    (memory only if ``trace``: tracemalloc slows loading tenfold)."""
    limit = extra_bytes if extra_bytes is not None else 8 * len(data) + 2**20
    if trace:
        tracemalloc.start()
    # The process's CPU time, not the wall clock: the bound is on the loader's work, which other
    # processes on a busy machine (CI runs three test streams on two cores) must not inflate.
    start = time.process_time()
    try:
        load_bytes(data)
        outcome = None
    except Exception as exc:  # the assertion below names any type but CheckpointError
        outcome = exc
    elapsed = time.process_time() - start
    assert elapsed < seconds, f"loading took {elapsed:.2f} s of CPU time"
    if trace:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < limit, f"loading allocated {peak} bytes for a {len(data)}-byte file"
    return outcome


# -- memory bomb: ZIP entries whose data overlap -------------------------------------------------
def overlapping_zip(count, payload):
    """Entry i's data runs over the local headers of entries i+1.. and the payload: with stored
    entries, ``zipfile`` would read about ``count * len(payload)`` bytes from one payload."""
    names = [f"nnref_checkpoint/tensors/{i}".encode() for i in range(count)]
    offsets, position = [], 0
    for name in names:
        offsets.append(position)
        position += 30 + len(name)
    end = position + len(payload)
    sizes = [end - (offset + 30 + len(name)) for offset, name in zip(offsets, names)]
    man = manifest({"list": [{"tensor": i} for i in range(count)]},
                   [{"dtype": "bool", "shape": [size], "device": "cpu", "requires_grad": False,
                     "parameter": False} for size in sizes])
    blob = bytearray(b"".join(_local(name, 0, 0) for name in names) + payload)
    for offset, size in zip(offsets, sizes):
        blob[offset + 18:offset + 26] = struct.pack("<2L", size, size)
    records = []
    for name, offset, size in reversed(list(zip(names, offsets, sizes))):  # CRCs cover later CRCs
        crc = zlib.crc32(bytes(blob[end - size:end]))
        blob[offset + 14:offset + 18] = struct.pack("<L", crc)
        records.insert(0, (name, offset, crc, size))
    records.append((M.encode(), len(blob), zlib.crc32(man), len(man)))
    blob += _local(M.encode(), zlib.crc32(man), len(man)) + man
    central = b"".join(struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 0, 20, 0, 0, 0, 0, 0x21,
                                   crc, size, size, len(name), 0, 0, 0, 0, 0, offset) + name
                       for name, offset, crc, size in records)
    return bytes(blob) + central + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(records),
                                               len(records), len(central), len(blob), 0)


def _local(name, crc, size):
    return struct.pack("<4s2B4HL2L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0x21, crc, size, size,
                       len(name), 0) + name


def test_overlapping_entries_are_refused_before_any_tensor_is_read():
    data = overlapping_zip(300, b"\0" * 50_000)
    # Without the check these 120 KB would load as about 300 * 60 KB = 18 MB.
    assert len(data) < 130_000
    outcome = bounded(data, extra_bytes=2 * 2**20)
    assert isinstance(outcome, CheckpointError), outcome
    assert "overlaps the entry before it" in str(outcome)


def test_entries_out_of_order_are_refused():
    data = stored_zip({M: manifest({"list": [{"tensor": 0}, {"tensor": 1}]},
                                   [{"dtype": "float32", "shape": [1], "device": "cpu",
                                     "requires_grad": False, "parameter": False}] * 2),
                       "nnref_checkpoint/tensors/0": b"\0" * 4,
                       "nnref_checkpoint/tensors/1": b"\0" * 4})
    directory = data.index(b"PK\x01\x02")
    records = data[directory:data.index(b"PK\x05\x06")].split(b"PK\x01\x02")[1:]
    swapped = b"".join(b"PK\x01\x02" + r for r in [records[0], records[2], records[1]])
    data = data[:directory] + swapped + data[data.index(b"PK\x05\x06"):]
    with pytest.raises(CheckpointError, match="out of order"):
        load_bytes(data)


# -- CPU bomb: dict keys that share one hash -----------------------------------------------------
COLLIDING = [k * (2**61 - 1) for k in range(1, 20_001)]  # every hash(k * (2**61 - 1)) is 0


def test_colliding_int_keys_are_refused_in_linear_time():
    data = stored_zip({M: manifest({"dict": [[k, 0] for k in COLLIDING]})})
    assert len(data) > 400_000
    # Built as a dict, these keys would take about 2 * 10**8 comparisons (tens of seconds).
    outcome = bounded(data, seconds=2.0, trace=False)
    assert isinstance(outcome, CheckpointError), outcome
    assert f"limit: MAX_HASH_COLLISIONS = {MAX_HASH_COLLISIONS}" in str(outcome)


def test_colliding_keys_in_a_torch_pickle_are_refused():
    buffer = io.BytesIO()
    nnref.save({"x": 1}, buffer, format="torch")
    pickle_bytes = b"\x80\x02}(" + b"".join(b"\x8a" + bytes([len(e)]) + e + b"K\x00"
                                           for e in (k.to_bytes(16, "little", signed=True)
                                                     for k in COLLIDING[:5000])) + b"u."
    data = _replace_torch_pickle(buffer.getvalue(), pickle_bytes)
    outcome = bounded(data, seconds=2.0, trace=False)
    assert isinstance(outcome, CheckpointError) and "share one hash value" in str(outcome), outcome


def _replace_torch_pickle(data, pickle_bytes):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = {i.filename: archive.read(i) for i in archive.infolist()}
    name = next(n for n in entries if n.endswith("/data.pkl"))
    entries[name] = pickle_bytes
    return stored_zip(entries)


def test_genuine_int_keys_load():
    state = {i: {"step": i} for i in range(5000)}
    buffer = io.BytesIO()
    nnref.save(state, buffer)
    assert load_bytes(buffer.getvalue()) == state


# -- nesting and code --------------------------------------------------------------------------
def test_deep_nesting_in_a_torch_pickle_is_refused():
    buffer = io.BytesIO()
    nnref.save([1], buffer, format="torch")
    deep = b"\x80\x02" + b"](" * (MAX_NESTING + 10) + b"e" * (MAX_NESTING + 10) + b"."
    with pytest.raises(CheckpointError, match="limit: MAX_NESTING"):
        load_bytes(_replace_torch_pickle(buffer.getvalue(), deep))


@pytest.mark.parametrize("payload", [
    b"\x80\x02cbuiltins\neval\nX\x01\x00\x00\x001\x85R.",                 # a call
    b"\x80\x02cnnref\ntensor\n.",                                          # any other global
    b"\x80\x02ccollections\nOrderedDict\n)R}X\x03\x00\x00\x00fooK\x01sb.",  # attributes
    b"\x80\x02c__main__\nX\n)\x81.",                                      # NEWOBJ: not admitted
    b"\x80\x02(cos\nsystem\nX\x02\x00\x00\x00lsi.",                       # INST
], ids=["reduce-eval", "other-global", "build-attributes", "newobj", "inst"])
def test_torch_pickles_that_name_code_are_refused(payload):
    buffer = io.BytesIO()
    nnref.save({"x": 1}, buffer, format="torch")
    with pytest.raises(CheckpointError):
        load_bytes(_replace_torch_pickle(buffer.getvalue(), payload))


def test_legacy_torch_file_and_plain_pickles_say_what_they_are(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "old.pt"
    torch.save({"w": torch.ones(2)}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(CheckpointError, match=r"legacy format.*torch.save\(torch.load\(path, "
                                              r"weights_only=True\), new_path\)"):
        nnref.load(path)
    with pytest.raises(CheckpointError, match="a Python pickle, not a checkpoint"):
        load_bytes(b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94.")


PLANTED = "open({marker!r}, 'w').write('ran')\n"
SITE_CUPY = """
from . import cuda
imported_from_site = True
"""
SITE_CUPY_CUDA = """
class runtime:
    @staticmethod
    def getDeviceCount():
        return 0
"""
LOAD_SCRIPT = """
import nnref, sys
assert sys.path[0] == ''
for name in ['gpu-nnref.pt', 'gpu-torch.pt']:
    for where in [None, 'cuda', {'cuda': 'cuda:0'}]:
        try:
            nnref.load(name, map_location=where)
        except nnref.serialization.CheckpointError as exc:
            print('refused:', str(exc).split(': ', 1)[1][:120])
    print(nnref.load(name, map_location='cpu')['w'].device)
cupy = sys.modules.get('cupy')
print(cupy is not None and getattr(cupy, 'imported_from_site', False))
"""


@pytest.mark.parametrize("site", [False, True], ids=["no-cupy", "cupy-in-site"])
def test_a_cuda_checkpoint_never_imports_a_planted_cupy(tmp_path, site):
    """``cupy.py`` beside the checkpoint, cwd on sys.path (as in Jupyter or ``python -c``).
    Without map_location nothing is imported; with map_location='cuda', CuPy comes from the
    site folder (here a stand-in CuPy without a GPU, named by NNREF_CUPY_SITE), never from cwd."""
    marker = tmp_path / "planted-code-ran"
    (tmp_path / "cupy.py").write_text(PLANTED.format(marker=str(marker)))
    for fmt in ("nnref", "torch"):
        buffer = io.BytesIO()
        nnref.save({"w": nnref.ones(2)}, buffer, format=fmt)
        data = buffer.getvalue()
        if fmt == "nnref":
            data = _retag(data, M, b'"device":"cpu"', b'"device":"cuda"')
        else:
            data = _retag(data, "archive/data.pkl", b"X\x03\x00\x00\x00cpu",
                          b"X\x04\x00\x00\x00cuda")
        (tmp_path / f"gpu-{fmt}.pt").write_bytes(data)
    site_folder = tmp_path / "site"
    if site:
        (site_folder / "cupy").mkdir(parents=True)
        (site_folder / "cupy" / "__init__.py").write_text(SITE_CUPY)
        (site_folder / "cupy" / "cuda.py").write_text(SITE_CUPY_CUDA)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(nnref.__file__)),
               NNREF_CUPY_SITE=str(site_folder) if site else "")
    run = subprocess.run([sys.executable, "-c", LOAD_SCRIPT], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert not marker.exists(), "the planted cupy.py ran"
    lines = run.stdout.splitlines()
    assert lines[0].startswith("refused: a tensor was saved on cuda, and nnref.load does not "
                               "start the GPU on its own: pass map_location='cpu'"), lines
    assert lines[3] == lines[7] == "cpu"
    gpu_refusal = ("refused: cannot place a tensor on cuda (CuPy is installed but this machine has "
                   "no CUDA GPU" if site else
                   "refused: cannot place a tensor on cuda (nnref's 'cuda' device needs CuPy")
    for line in (lines[1], lines[2], lines[5], lines[6]):
        assert line.replace("cuda:0 (", "cuda (").startswith(gpu_refusal), lines
    # Once CuPy is in use (the user asked for the GPU), a 'cuda' tensor goes to the GPU, as in
    # PyTorch; before, loading never starts it.
    assert lines[4].startswith(gpu_refusal) if site else lines[4] == lines[0], lines
    assert lines[-1] == str(site)


def _retag(data, name, old, new):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = {i.filename: archive.read(i) for i in archive.infolist()}
    assert old in entries[name]
    entries[name] = entries[name].replace(old, new)
    return stored_zip(entries)


# -- fuzzing -----------------------------------------------------------------------------------
def reference_object():
    nnref.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    optimizer = nnref.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(nnref.randn(5, 3)).sum().backward()
    optimizer.step()
    return {"epoch": 5, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "half": nnref.ones(3).to(nnref.bfloat16), "names": ["a", "b"], "loss": 0.42}


def reference_files():
    obj = reference_object()
    files = {}
    for fmt in ("nnref", "torch"):
        buffer = io.BytesIO()
        nnref.save(obj, buffer, format=fmt)
        files[fmt] = buffer.getvalue()
    pytest.importorskip("safetensors")
    buffer = io.BytesIO()
    nnref.save(dict(obj["model"]), buffer, format="safetensors")
    files["safetensors"] = buffer.getvalue()
    return files


def inner_entry(fmt):
    return {"nnref": M, "torch": "archive/data.pkl"}.get(fmt)


def mutate(data, rng, fmt):
    """One of eight kinds of damage; the last two rewrite the inner manifest/pickle validly zipped,
    so the parsers behind the ZIP layer see hostile input too."""
    data = bytearray(data)
    kind = rng.integers(0, 8)
    if kind == 0:
        return bytes(data[:rng.integers(0, len(data))])
    if kind == 1:
        for _ in range(rng.integers(1, 6)):
            data[rng.integers(0, len(data))] ^= 1 << rng.integers(0, 8)
        return bytes(data)
    if kind == 2:
        start = rng.integers(0, len(data))
        data[start:start + 8] = rng.integers(0, 256, 8, dtype=np.uint8).tobytes()
        return bytes(data)
    if kind == 3:  # a 4-byte field set to an extreme value (sizes, offsets, counts)
        start = rng.integers(0, max(1, len(data) - 4))
        data[start:start + 4] = struct.pack("<I", int(rng.choice([0, 1, 2**31 - 1, 2**32 - 1])))
        return bytes(data)
    if kind == 4:
        start = rng.integers(0, len(data))
        del data[start:start + rng.integers(1, 64)]
        return bytes(data)
    if kind == 5:
        start = rng.integers(0, len(data))
        return bytes(data[:start] + data[start:start + rng.integers(1, 200)] * 2 + data[start:])
    name = inner_entry(fmt)
    if name is None:  # safetensors: mutate the JSON header in place
        header = int.from_bytes(data[:8], "little")
        position = 8 + rng.integers(0, header)
        data[position] = int(rng.choice(list(b'0123456789{}[]",:-e')))
        return bytes(data)
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        entries = {i.filename: archive.read(i) for i in archive.infolist()}
    inner = bytearray(entries[name])
    if kind == 6:
        for _ in range(rng.integers(1, 4)):
            inner[rng.integers(0, len(inner))] = rng.integers(0, 256)
    else:
        start, length = rng.integers(0, len(inner)), rng.integers(1, 40)
        inner[start:start] = inner[rng.integers(0, len(inner)):][:length]
    entries[name] = bytes(inner)
    return stored_zip(entries)


def fuzz(fmt, cases=1000, traced_every=10):
    """Load ``cases`` mutated files; every case is timed, one in ``traced_every`` has its memory
    traced (tracemalloc slows loading tenfold).  Returns counts and the worst figures."""
    data = reference_files()[fmt]
    rng = np.random.default_rng({"nnref": 16, "torch": 1616, "safetensors": 161616}[fmt])
    stats = {"refused": 0, "loaded": 0, "slowest_s": 0.0, "largest_peak": 0, "other_errors": []}
    for case in range(cases):
        mutated = mutate(data, rng, fmt)
        traced = case % traced_every == 0
        if traced:
            tracemalloc.start()
        start = time.process_time()  # the loader's own work, as in bounded()
        try:
            load_bytes(mutated)
            stats["loaded"] += 1
        except CheckpointError:
            stats["refused"] += 1
        except Exception as exc:  # reported by the test, with the case number
            stats["other_errors"].append(f"case {case}: {exc!r}")
        stats["slowest_s"] = max(stats["slowest_s"], time.process_time() - start)
        if traced:
            stats["largest_peak"] = max(stats["largest_peak"], tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
    stats["file_bytes"] = len(data)
    return stats


def reset_peak_rss():
    """Reset the kernel's high-water mark of resident memory (VmHWM) to the current RSS; return
    that baseline, or None where /proc does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _status_bytes("VmRSS")
    except OSError:
        return None


def _status_bytes(field):
    with open("/proc/self/status") as f:
        line = next(line for line in f if line.startswith(field + ":"))
    return int(line.split()[1]) * 1024


@pytest.mark.parametrize("fmt", ["nnref", "torch", "safetensors"])
def test_fuzzed_files_raise_only_checkpoint_error_in_bounded_time_and_memory(fmt):
    """1,000 mutated files: every case is timed; the peak resident memory over all of them
    bounds every case's memory, and one in ten has its allocations traced exactly."""
    pytest.importorskip("safetensors")
    reference_files()  # imports and caches first, so the peak below belongs to the cases
    baseline = reset_peak_rss()
    stats = fuzz(fmt)
    assert stats["other_errors"] == []
    assert stats["refused"] + stats["loaded"] == 1000 and stats["refused"] > 500, stats
    assert stats["slowest_s"] < 1.0, stats
    assert stats["largest_peak"] < 16 * stats["file_bytes"] + 2**20, stats
    if baseline is not None:
        assert _status_bytes("VmHWM") - baseline < 64 * 2**20, stats

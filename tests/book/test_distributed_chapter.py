"""Chapter 17's claims about PyTorch, checked on real PyTorch (Gloo on 127.0.0.1).

The chapter runs its scripts on nnref's ranks (MPI) and says that PyTorch prints the same: the
broadcast at construction, the losses, the bucket sizes before and after the rebuild, the
weights after three steps (``ddp_buckets.py``) and what ``no_sync`` leaves in ``.grad``
(``accumulate.py``).  Each script is taken from the chapter's ``%%writefile`` cell, made a
PyTorch program by swapping the imports and the backend's name, and run on two PyTorch
processes; what the ranks print must be the chapter's stored output, and the buckets rank 0
saves must be those nnref's ranks save.
"""
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("mpi4py")
pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "book" / "17_distributed.ipynb"
TO_PYTORCH = [("import nnref as torch", "import torch"),
              ("import nnref.distributed as dist", "import torch.distributed as dist"),
              ("from nnref import nn", "from torch import nn"),
              ("from nnref.nn.parallel import", "from torch.nn.parallel import"),
              ('init_process_group("mpi")', 'init_process_group("gloo")')]


def _chapter():
    return nbformat.read(CHAPTER, as_version=4)


def _script_and_output(name):
    """The script a ``%%writefile name`` cell writes, and what ``launch(name)`` printed."""
    cells = [c for c in _chapter().cells if c.cell_type == "code"]
    script = next(c.source.split("\n", 1)[1] for c in cells if c.source.startswith(f"%%writefile {name}\n"))
    launch = next(c for c in cells if c.source.strip() == f'launch("{name}")')
    return script, "".join(o["text"] for o in launch.outputs if o["output_type"] == "stream")


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", **extra)
    env.pop("CI", None)
    return env


def _run_torch(script, folder, nproc=2):
    """``script`` on ``nproc`` PyTorch processes joined by Gloo: their stdout, in rank order."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    ranks = [subprocess.Popen([sys.executable, str(script)], cwd=folder, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env=_env(RANK=str(rank), WORLD_SIZE=str(nproc), MASTER_ADDR="127.0.0.1",
                                       MASTER_PORT=port, GLOO_SOCKET_IFNAME="lo"))
             for rank in range(nproc)]
    outputs = []
    try:
        for p in ranks:
            out, err = p.communicate(timeout=180)
            assert p.returncode == 0, f"a PyTorch rank failed:\n{err}"
            outputs.append(out)
    finally:
        for p in ranks:
            if p.poll() is None:
                p.kill()
                p.wait()
    return "".join(outputs)


def _run_nnref(script, folder, nproc=2):
    logs = folder / "logs"
    subprocess.run([sys.executable, "-m", "nnref.distributed.run", "-n", str(nproc), "--timeout", "180",
                    "--log-dir", str(logs), str(script)], cwd=folder, env=_env(), check=True, timeout=200)
    return "".join((logs / f"rank{r}.out").read_text() for r in range(nproc))


@pytest.mark.parametrize("name", ["ddp_buckets.py", "accumulate.py"])
def test_pytorch_prints_what_the_chapter_shows(name, tmp_path):
    source, shown = _script_and_output(name)
    for ours, theirs in TO_PYTORCH:
        source = source.replace(ours, theirs)
    assert "nnref" not in source
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / name).write_text(source)
    assert _run_torch(tmp_path / "torch" / name, tmp_path / "torch") == shown


def test_the_buckets_drawn_are_pytorchs(tmp_path):
    """The bucket figure's data (``buckets.json``, from DDP's logging data) is the same on
    both libraries: which parameters share a bucket, in the Reducer's order."""
    source, _ = _script_and_output("ddp_buckets.py")
    (tmp_path / "nnref").mkdir()
    (tmp_path / "nnref" / "ddp_buckets.py").write_text(source)
    _run_nnref(tmp_path / "nnref" / "ddp_buckets.py", tmp_path / "nnref")
    for ours, theirs in TO_PYTORCH:
        source = source.replace(ours, theirs)
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "ddp_buckets.py").write_text(source)
    _run_torch(tmp_path / "torch" / "ddp_buckets.py", tmp_path / "torch")
    ours, theirs = (json.loads((tmp_path / side / "buckets.json").read_text()) for side in ("nnref", "torch"))
    assert ours == theirs
    assert len(theirs["buckets"]) > 1  # the figure shows a rebuild into several buckets

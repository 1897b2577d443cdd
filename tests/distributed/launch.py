"""Start real processes for the distributed tests: nnref's ranks through mpiexec (the
launcher under test), PyTorch's through one ``subprocess`` per rank with the gloo backend on
127.0.0.1 (what ``torchrun`` would set up)."""
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AS_LIBRARY = ROOT / "tests" / "programs" / "_as_library.py"


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", **extra)
    env.pop("CI", None)
    return env


def run_nnref(script, nproc, out, timeout=60, check=True):
    """Run ``script`` as ``torch`` = nnref on ``nproc`` MPI ranks (``$OUT``: the folder its
    ranks write to); the CompletedProcess."""
    command = [sys.executable, "-m", "nnref.distributed.run", "-n", str(nproc), "--timeout",
               str(timeout), str(AS_LIBRARY), "nnref", str(script)]
    done = subprocess.run(command, capture_output=True, text=True, env=_env(OUT=str(out)),
                          timeout=timeout + 20)
    if check and done.returncode != 0:
        raise AssertionError(f"nnref ranks failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_torch(script, nproc, out, timeout=60):
    """Run ``script`` on real PyTorch, ``nproc`` processes joined by gloo over 127.0.0.1."""
    port, second_port = str(_free_port()), str(_free_port())
    processes = [subprocess.Popen(
        [sys.executable, str(AS_LIBRARY), "torch", str(script)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env=_env(OUT=str(out), RANK=str(rank), WORLD_SIZE=str(nproc), LOCAL_RANK=str(rank), MASTER_ADDR="127.0.0.1",
                 MASTER_PORT=port, SECOND_MASTER_PORT=second_port,
                 GLOO_SOCKET_IFNAME="lo"))
        for rank in range(nproc)]
    outputs = []
    try:
        for p in processes:
            out, err = p.communicate(timeout=timeout)
            if p.returncode != 0:
                raise AssertionError(f"torch rank failed ({p.returncode}):\n{out}\n{err}")
            outputs.append(out)
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
                p.wait()
    return "".join(outputs)


def records(folder):
    """The JSON lines the ranks wrote (``rank<r>.jsonl`` in ``folder``), by rank."""
    return {int(path.stem[4:]): [json.loads(line) for line in path.read_text().splitlines()]
            for path in sorted(Path(folder).glob("rank*.jsonl"))}

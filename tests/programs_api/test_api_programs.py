"""Each program in this folder prints the same text on PyTorch and on nnref.

The programs are written as PyTorch code (``import torch``); their weights and data
come from ``arange``/``sin``/``cos``, not from random numbers, so both libraries start
from the same values.  A program passes only if every printed character matches, dtypes and
sizes included (nnref prints ``torch.float32`` and ``torch.Size``, as PyTorch does).
"""
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch")

HERE = pathlib.Path(__file__).parent
PROGRAMS = sorted(p.name for p in HERE.glob("*.py") if p.name not in {"run_program.py", "test_api_programs.py"})


def _run(library, program):
    root = HERE.parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
               PYTHONWARNINGS="ignore", OMP_NUM_THREADS="1")
    result = subprocess.run([sys.executable, str(HERE / "run_program.py"), library, str(HERE / program)],
                            capture_output=True, text=True, timeout=300, env=env, cwd=HERE)
    assert result.returncode == 0, f"{program} failed on {library}:\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.mark.parametrize("program", PROGRAMS)
def test_program_prints_what_pytorch_prints(program):
    theirs = _run("torch", program)
    ours = _run("nnref", program)
    assert theirs.strip(), f"{program} printed nothing"
    ours_lines = ours.splitlines()
    theirs_lines = theirs.splitlines()
    for number, (a, b) in enumerate(zip(ours_lines, theirs_lines), 1):
        assert a == b, f"{program}, line {number}:\n  nnref: {a}\n  torch: {b}"
    assert len(ours_lines) == len(theirs_lines)

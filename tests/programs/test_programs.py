"""Every program in this folder prints the same on nnref as on PyTorch (see README.md)."""
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch")

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parent.parent
PROGRAMS = sorted(p for p in HERE.glob("[0-9]*.py"))


def run(library, program):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    done = subprocess.run([sys.executable, str(HERE / "_as_library.py"), library, str(program)],
                          capture_output=True, text=True, env=env, timeout=300, cwd=str(HERE))
    assert done.returncode == 0, f"{program.name} failed on {library}:\n{done.stderr[-3000:]}"
    return done.stdout


def test_there_are_programs():
    assert len(PROGRAMS) >= 5


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_prints_what_pytorch_prints(program):
    expected = run("torch", program)
    got = run("nnref", program)
    assert expected.strip(), f"{program.name} printed nothing"
    assert got.splitlines() == expected.splitlines()

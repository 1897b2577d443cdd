"""The device the device tests run on, and the strict stand-in for CuPy that plays 'cuda' here.

Every test that takes the ``device`` fixture runs once per device of this run:

* ``NNREF_TEST_DEVICE=cpu`` (the default, what ``./dev.sh test`` runs): on the CPU, and again
  on ``'cuda'`` served by ``strictcuda``, the test-only stand-in that enforces CuPy's rules
  about host and device arrays on the CPU (see its docstring).  The stand-in is put in CuPy's
  place only for the duration of one such test, and taken out afterwards.
* ``NNREF_TEST_DEVICE=strictcuda``: on the stand-in only.
* ``NNREF_TEST_DEVICE=cuda`` (``./dev.sh gpu``): on the real GPU only, through CuPy.

The device tests also reuse the op cases of tests/core and the layer table of tests/nn.
"""
import os
import pathlib
import sys

import pytest

import nnref
from nnref import _cupy, _random

HERE = pathlib.Path(__file__).parent
for folder in ("core", "nn"):
    path = str(HERE.parent / folder)
    if path not in sys.path:
        sys.path.append(path)

# tests/conftest.py checks the value
DEVICES = {"cpu": ["cpu", "strictcuda"], "strictcuda": ["strictcuda"],
           "cuda": ["cuda"]}.get(os.environ.get("NNREF_TEST_DEVICE", "cpu"), [])


def use_strict_stand_in(monkeypatch):
    """Make ``'cuda'`` mean the stand-in until the test ends: CuPy's slot in the backend layer
    (and ``cupyx.scipy.special`` in ``sys.modules``),
    an answer of "usable" to the one-time GPU query, and a fresh generator table (so no
    stand-in generator outlives the test)."""
    import strictcuda
    monkeypatch.setattr(_cupy, "_cupy", strictcuda.cupy)
    for name, module in strictcuda._cupyx().items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(_cupy, "_cuda_answer", None)
    monkeypatch.setattr(_random._State, "cuda", {})


@pytest.fixture(params=DEVICES)
def device(request, monkeypatch):
    """The nnref device under test: 'cpu', or 'cuda:0' (the stand-in, or the GPU in GPU mode)."""
    if request.param == "cpu":
        return nnref.device("cpu")
    if request.param == "strictcuda":
        use_strict_stand_in(monkeypatch)
    return nnref.device("cuda", 0)


@pytest.fixture(params=[name for name in DEVICES if name != "cpu"] or ["cpu"])
def second_device(request, monkeypatch):
    """The 'cuda' devices of the run, for tests that compare a device with the CPU path (in a
    run without one, 'cpu' and the test skips itself)."""
    if request.param == "cpu":
        pytest.skip("compares 'cuda' with the CPU path; this run has no 'cuda' device")
    if request.param == "strictcuda":
        use_strict_stand_in(monkeypatch)
    return nnref.device("cuda", 0)

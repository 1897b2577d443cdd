"""nnref picks the CPU capability PyTorch picks (``nnref/_capability.py``), and the kernels whose
rounding depends on it follow it (the ``exact`` tests here run again as on AVX2 and DEFAULT CPUs:
``tests/capabilities.py``)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

_REPORT = ("import warnings, {lib}\n"
           "with warnings.catch_warnings(record=True) as seen:\n"
           "    warnings.simplefilter('always')\n"
           "    capability = {lib}.backends.cpu.get_cpu_capability()\n"
           "print(capability, [str(w.message).split(' (Triggered internally')[0] for w in seen\n"
           "                  if 'ATEN_CPU_CAPABILITY' in str(w.message)])\n")


def _capability_in_a_fresh_process(lib, value):
    env = dict(os.environ)
    env.pop("ATEN_CPU_CAPABILITY", None)
    if value is not None:
        env["ATEN_CPU_CAPABILITY"] = value
    done = subprocess.run([sys.executable, "-c", _REPORT.format(lib=lib)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.exact
def test_the_capability_is_pytorchs():
    assert nnref.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()


@pytest.mark.parametrize("value", [None, "default", "AVX2"])
def test_the_environment_variable_is_read_as_pytorch_reads_it(value):
    """Lower case only: another spelling is ignored with PyTorch's warning and the CPU decides."""
    ours = _capability_in_a_fresh_process("nnref", value)
    assert ours == _capability_in_a_fresh_process("torch", value)
    assert ("ignoring invalid value" in ours) == (value == "AVX2")


@pytest.mark.exact
def test_linspace_matches_for_every_length():
    """``at::linspace`` builds its values from multiply-adds, fused or not with the capability."""
    for dtype in ("float32", "float64"):
        for steps in [*range(1, 130), 1000, 4097]:
            for start, end in ((-3.7, 11.3), (0.1, 0.7)):
                ours = nnref.linspace(start, end, steps, dtype=getattr(nnref, dtype)).numpy()
                theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
                np.testing.assert_array_equal(ours, theirs, err_msg=f"{dtype} {steps} steps")


@pytest.mark.exact
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_long_normal_fills_and_uniform_ranges_match(dtype):
    """``normal_`` of 16 or more values (each capability's own kernel) and ``uniform_`` with a range
    (a multiply-add per value), over enough values that one rounding in a hundred would show."""
    draws = {}
    for lib in (torch, nnref):
        lib.manual_seed(7)
        t = lib.empty(4000, dtype=getattr(lib, dtype))
        draws[lib.__name__] = (t.clone().normal_(-0.37, 0.52).numpy(), t.clone().uniform_(-0.37, 0.52).numpy())
    for ours, theirs in zip(draws["nnref"], draws["torch"]):
        np.testing.assert_array_equal(ours, theirs)

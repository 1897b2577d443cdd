"""Run the exactness tests as on a machine of another CPU capability (issue: main was red on an
AVX2 machine while every machine it had been checked on had AVX-512).

``python tests/capabilities.py [PYTEST ARGS]`` runs ``pytest -m exact`` once for every capability
below this CPU's own (``{capability}`` in an argument is replaced by its name) (an AVX512 machine: AVX2 and DEFAULT; an AVX2 one: DEFAULT), each in an
environment that tells every library the same:

* PyTorch's ATen kernels: ``ATEN_CPU_CAPABILITY`` (and nnref, which reads it the same way:
  ``nnref/_capability.py``);
* the libraries whose kernels follow the CPU on their own: oneDNN (``ONEDNN_MAX_CPU_ISA``), MKL
  (``MKL_ENABLE_INSTRUCTIONS``), OpenBLAS under numpy (``OPENBLAS_CORETYPE``) and numpy's own SIMD
  loops (``NPY_DISABLE_CPU_FEATURES``).  A machine that sets ``OPENBLAS_CORETYPE`` itself keeps
  its value: it is set there because other kernels fail on that CPU.

The main test run covers the machine's own capability; the lower ones run side by side.  The
exit code is pytest's worst, with "no tests collected" counted as a failure: a subset that ran
nothing checked nothing.
"""
import os
import pathlib
import platform
import subprocess
import sys
import tempfile

try:
    from numpy._core._multiarray_umath import __cpu_features__
except ImportError:  # numpy 1.x
    from numpy.core._multiarray_umath import __cpu_features__

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What each library is told to use, to run as it would on a CPU whose best is the capability.
EMULATION = {
    "AVX2": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2",
             "OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"},
    "DEFAULT": {"ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41",
                "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "OPENBLAS_CORETYPE": "Nehalem",
                "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"},
}


def _machine_capability():
    features = {name for name, present in __cpu_features__.items() if present}
    if {"AVX512VL", "AVX512BW", "AVX512DQ", "FMA3"} <= features:
        return "AVX512"
    if {"AVX2", "FMA3"} <= features:
        return "AVX2"
    return "DEFAULT"


def capabilities_below(capability):
    order = ["DEFAULT", "AVX2", "AVX512"]
    return [c for c in reversed(order[:order.index(capability)])]


def environment(capability):
    """This process's environment, told ``capability`` (numpy's features that the CPU lacks anyway
    are left out of ``NPY_DISABLE_CPU_FEATURES``: numpy refuses to disable what it did not find)."""
    env = dict(os.environ, **EMULATION[capability])
    if "OPENBLAS_CORETYPE" in os.environ:
        env["OPENBLAS_CORETYPE"] = os.environ["OPENBLAS_CORETYPE"]
    found = {name for name, present in __cpu_features__.items() if present}
    disabled = [name for name in EMULATION[capability]["NPY_DISABLE_CPU_FEATURES"].split() if name in found]
    if disabled:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disabled)
    else:
        env.pop("NPY_DISABLE_CPU_FEATURES", None)
    return env


def exact_test_files():
    """The test files that mark tests ``exact`` (collecting only those keeps each run short)."""
    tests = pathlib.Path(ROOT, "tests")
    return sorted(str(path.relative_to(ROOT)) for path in tests.rglob("test_*.py")
                  if "mark.exact" in path.read_text(encoding="utf-8"))


def main(pytest_args):
    """Both capabilities at once (one core each), each one's output shown when it ends."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        print("capabilities: not an x86 machine; nnref's exact kernels model x86's capabilities only")
        return 0
    own = _machine_capability()
    others = capabilities_below(own)
    if not others:
        print(f"capabilities: this CPU's capability is {own}, the lowest: nothing else to run")
        return 0
    runs = []
    for capability in others:
        args = [arg.replace("{capability}", capability) for arg in pytest_args]
        log = tempfile.TemporaryFile("w+")
        command = [sys.executable, "-m", "pytest", "-m", "exact", *exact_test_files(), *args]
        runs.append((capability, log, subprocess.Popen(command, env=environment(capability), cwd=ROOT,
                                                        stdout=log, stderr=subprocess.STDOUT, text=True)))
    worst = 0
    for capability, log, run in runs:
        code = run.wait()
        log.seek(0)
        print(f"\n--- exactness tests as on a {capability} machine (this CPU: {own}) ---\n{log.read()}", flush=True)
        worst = max(worst, 1 if code == 5 else code)  # 5: no test ran, so nothing was checked
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Which of ATen's CPU kernels PyTorch runs on this machine, so that nnref's exact kernels round
as those do.

ATen compiles each file of ``aten/src/ATen/native/cpu/`` several times, once per *capability*
(``DEFAULT``, ``AVX2``, ``AVX512`` on x86), and picks one when it first dispatches
(``compute_cpu_capability`` in ``aten/src/ATen/native/DispatchStub.cpp``): the environment
variable ``ATEN_CPU_CAPABILITY`` (``default``, ``avx2`` or ``avx512``, as written) if set, else the
best the CPU supports.  Two things nnref reproduces depend on that choice:

* **Fused multiply-adds.**  The AVX2 and AVX512 builds are compiled with FMA instructions, so a
  vector ``fmadd`` and the compiler's contraction of ``a * b + c`` round once; the ``DEFAULT``
  build has no FMA and rounds the product and the sum separately (:func:`fuses_multiply_add`).
* **Vector widths**, which set the order of sums: ``Vectorized<float>`` holds 8 floats in the
  AVX2 and DEFAULT builds (32 bytes), 16 in the AVX512 one.  The kernels nnref follows for their
  order (``sum``, ``norm``, ``grid_sample``, ``normal_``) are not registered for AVX512 and run
  their AVX2 build there, so they use 8 and 4 lanes on every x86 capability (:data:`SUM_LANES`).

ARM CPUs have capabilities of their own (NEON, SVE) that nnref does not model: there its exact
kernels follow the x86 ``DEFAULT`` build and may differ from PyTorch in the last bit (see the book's
"Differences from PyTorch").
"""
import os
import platform
import warnings

import numpy as np

__all__ = ["get_cpu_capability", "fuses_multiply_add", "models_this_cpu", "SUM_LANES"]

# ``Vectorized<float>`` and ``Vectorized<double>`` lanes of the 32-byte builds.
SUM_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}

_FORCED = {"default": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512"}


def _cpu_features():
    """The x86 features numpy's runtime detection found (the hardware's: ``NPY_DISABLE_CPU_FEATURES``
    only changes which of numpy's own loops run)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy 1.x
        from numpy.core._multiarray_umath import __cpu_features__
    return {name for name, present in __cpu_features__.items() if present}


def _compute_cpu_capability():
    forced = os.environ.get("ATEN_CPU_CAPABILITY")
    if forced is not None:
        if forced in _FORCED:
            return _FORCED[forced]
        warnings.warn(f"ignoring invalid value for ATEN_CPU_CAPABILITY: {forced}", UserWarning, stacklevel=3)
    features = _cpu_features()
    if {"AVX512VL", "AVX512BW", "AVX512DQ", "FMA3"} <= features:
        return "AVX512"
    if {"AVX2", "FMA3"} <= features:
        return "AVX2"
    return "DEFAULT"


_CAPABILITY = None


def get_cpu_capability():
    """The capability PyTorch's CPU kernels run with here: ``"DEFAULT"``, ``"AVX2"`` or
    ``"AVX512"`` (``torch.backends.cpu.get_cpu_capability``).  Decided once, on first use, as
    ATen decides it on its first dispatch."""
    global _CAPABILITY
    if _CAPABILITY is None:
        _CAPABILITY = _compute_cpu_capability()
    return _CAPABILITY


def fuses_multiply_add():
    """Whether ATen's vectorised CPU kernels round ``a * b + c`` once here (AVX2, AVX512) or twice
    (DEFAULT, compiled without FMA instructions)."""
    return get_cpu_capability() != "DEFAULT"


def models_this_cpu():
    """Whether nnref's exact kernels model the kernels PyTorch runs on this CPU: x86's capabilities
    yes, ARM's NEON and SVE builds no."""
    return platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")

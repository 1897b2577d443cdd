"""Process-wide switches that PyTorch programs set at the top: threads, determinism, matmul precision.

Mirrors the functions of ``torch/__init__.py`` over ``at::Context`` (``aten/src/ATen/Context.cpp``).
nnref computes on the CPU with numpy, which is deterministic and always computes float32 products
in float32, so these switches are recorded and checked as PyTorch checks them; the thread count
is handed to the BLAS library when ``threadpoolctl`` is installed.
"""
import os
import warnings

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
           "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_float32_matmul_precision",
           "get_float32_matmul_precision"]

_state = {"num_threads": None, "interop_threads": None, "deterministic": False, "warn_only": False,
          "matmul_precision": "highest"}


def _check_thread_count(name, n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")


def set_num_threads(int):
    """Use ``int`` threads for intra-op work: numpy's BLAS, when ``threadpoolctl`` can reach it
    (``torch.set_num_threads``, ``aten/src/ATen/ParallelCommon.cpp``)."""
    _check_thread_count("set_num_threads", int)
    try:
        import threadpoolctl
    except ImportError:
        pass
    else:
        threadpoolctl.threadpool_limits(int, user_api="blas")
    _state["num_threads"] = int


def get_num_threads():
    """The intra-op thread count: the last :func:`set_num_threads`, else this process's CPUs
    (``torch.get_num_threads``)."""
    if _state["num_threads"] is not None:
        return _state["num_threads"]
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def set_num_interop_threads(int):
    """Record the inter-op thread count; nnref runs ops one after another, so nothing else changes
    (``torch.set_num_interop_threads``)."""
    _check_thread_count("set_num_interop_threads", int)
    _state["interop_threads"] = int


def get_num_interop_threads():
    """The inter-op thread count (``torch.get_num_interop_threads``)."""
    return _state["interop_threads"] or get_num_threads()


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms (``torch.use_deterministic_algorithms``).  Every nnref op
    already is one, so the switch is recorded for :func:`are_deterministic_algorithms_enabled`."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    """True after ``use_deterministic_algorithms(True)`` (``torch.are_deterministic_algorithms_enabled``)."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """True after ``use_deterministic_algorithms(True, warn_only=True)``
    (``torch.is_deterministic_algorithms_warn_only_enabled``)."""
    return _state["warn_only"]


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode):
    """``"default"``/0, ``"warn"``/1 or ``"error"``/2: the same switch as
    :func:`use_deterministic_algorithms` (``torch.set_deterministic_debug_mode``)."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0, 1 or 2 as set by :func:`set_deterministic_debug_mode` (``torch.get_deterministic_debug_mode``)."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_float32_matmul_precision(precision):
    """``"highest"``, ``"high"`` or ``"medium"`` (``torch.set_float32_matmul_precision``,
    ``aten/src/ATen/Context.cpp``).

    nnref multiplies float32 matrices in float32 whatever is set, which is what PyTorch does on
    a CPU for ``"high"`` (a CPU has no TF32) and for ``"medium"`` on CPUs without bfloat16
    instructions; PyTorch on a CPU with AVX512-BF16 or AMX rounds the factors to bfloat16 under
    ``"medium"``, so nnref warns that its products stay float32.
    """
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    if precision == "medium":
        warnings.warn("nnref computes float32 matrix products in float32 under 'medium' precision; "
                      "PyTorch on a CPU with bfloat16 instructions (AVX512-BF16, AMX) uses bfloat16 "
                      "factors there, so its results can differ in the 3rd significant digit.",
                      UserWarning, stacklevel=2)
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    """The value last set by :func:`set_float32_matmul_precision`, ``"highest"`` at start
    (``torch.get_float32_matmul_precision``)."""
    return _state["matmul_precision"]


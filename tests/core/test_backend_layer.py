"""The backend layer: one place picks numpy or CuPy, and the code that computes asks it.

nnref's ops, autograd, layers and optimizers must run unchanged on a CPU tensor
(numpy) and a ``'cuda'`` tensor (CuPy).  ``nnref/core/_device.py`` (with ``nnref/_cupy.py``) decides which
library a tensor uses; everything else writes ``xp = array_module(t.device)``
(or ``array_module_of(array)``) and calls ``xp.zeros``, ``xp.exp``, ...  A
stray ``np.zeros`` in a backward formula would hand a CUDA tensor a host
array, which only a GPU run would reveal, so these tests read the source.
"""
import ast
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import nnref
from nnref import _cupy
from nnref.core import _device

PACKAGE = pathlib.Path(nnref.__file__).parent

# Everything that touches a tensor's values.  Left out on purpose: the course tooling,
# viz (draws graphs from metadata), _tensor_str, serialization and gradcheck (they format,
# write or compare host copies made with to_host), _dtype (dtype tables) and _device (the
# backend layer itself).
# _random.py and _ops/random.py are PyTorch's CPU generator and its kernels: host arrays by
# design (a CUDA tensor draws from CuPy's generator through _random.generator(device)).
# nn/parallel/distributed.py is DDP's reducer: MPI moves host buffers, and DDP refuses a module
# whose parameters are not on the CPU (nnref.distributed carries CPU tensors only).
# core/nn/functional.py and init.py are the teaching core's plain numpy (CPU only, as the core's
# empty() says); under import nnref every call goes to the mirror's version in their seams.
HOST_SIDE = {PACKAGE / "autograd" / "gradcheck.py", PACKAGE / "_ops" / "random.py",
             PACKAGE / "nn" / "parallel" / "distributed.py",
             PACKAGE / "core" / "nn" / "functional.py", PACKAGE / "core" / "nn" / "init.py",
             *(PACKAGE / "core" / name for name in ("_tensor_str.py", "_dtype.py", "_device.py"))}
COMPUTE_CODE = sorted(
    {p for folder in ("core", "_ops", "autograd", "nn", "optim") for p in (PACKAGE / folder).rglob("*.py")}
    - HOST_SIDE | {PACKAGE / "_creation.py"})

# numpy names that describe data rather than compute on it, so they are right for CuPy
# arrays too: CuPy uses numpy's dtypes, and these work on dtypes and shapes.
HOST_METADATA = {"dtype", "result_type", "promote_types", "can_cast", "iinfo", "finfo",
                 "broadcast_shapes", "ndarray", "generic", "number", "integer", "floating",
                 "signedinteger", "unsignedinteger", "inexact", "inf", "nan", "pi", "e",
                 # Only numpy warns about 1/0 or overflow; silencing it changes nothing on CuPy.
                 "errstate"}

# The few numpy calls that must stay numpy: (file, enclosing function, name) -> why.
HOST_ONLY = {
    ("_tensor.py", "__init__", "asarray"): "Python data (lists, numbers) is read on the host, then moved",
    ("_creation.py", "_legacy_new", "asarray"): "Python data (lists, numbers) is read on the host, then moved",
    ("_tensor.py", "__init__", "zeros"): "the legacy constructor builds on the host, then moves",
    ("_creation.py", "tensor", "array"): "Python data (nested lists) is read on the host, then moved",
    ("inplace.py", "add_", "may_share_memory"): "add_'s BLAS path, taken for two numpy arrays only",
    ("inplace.py", "mul_", "multiply"): "mul_'s path in the array's own memory, for numpy arrays only",
    ("inplace.py", "check_no_partial_overlap", "may_share_memory"): "the bounds test, for numpy arrays only",
    ("inplace.py", "shares_memory", "shares_memory"): "numpy's exact overlap test, for numpy arrays only",
    ("inplace.py", "shares_memory", "exceptions"): "numpy's TooHardError (an exception, not an array)",
    ("inplace.py", "shares_memory", "may_share_memory"): "the bounds test, for numpy arrays only",
    ("fused.py", "axpy_rounds_as_aten", "random"): "the probe of the host BLAS's axpy",
    ("fused.py", "axpy_rounds_as_aten", "array_equal"): "the probe of the host BLAS's axpy",
    **{(file, scope, "linalg"): "numpy's LinAlgError, the exception numpy and CuPy raise (not an array)"
       for file, scope in (("linalg_decompositions.py", "cholesky"), ("linalg_solvers.py", "inv"),
                           ("linalg_solvers.py", "solve"))},
}


def _is_scalar_type(name):
    value = getattr(np, name, None)
    return isinstance(value, type) and issubclass(value, np.generic)


class _NumpyUses(ast.NodeVisitor):
    """Collect ``np.NAME`` uses with the function (or class) they sit in."""

    def __init__(self):
        self.scopes, self.uses = ["<module>"], []

    def _scoped(self, node):
        self.scopes.append(node.name)
        self.generic_visit(node)
        self.scopes.pop()

    visit_FunctionDef = visit_ClassDef = _scoped

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "np":
            self.uses.append((node.lineno, self.scopes[-1], node.attr))
        self.generic_visit(node)


def _numpy_uses(path):
    visitor = _NumpyUses()
    visitor.visit(ast.parse(path.read_text(), str(path)))
    return visitor.uses


def test_compute_code_reaches_numpy_only_through_the_backend_layer():
    stray = []
    for path in COMPUTE_CODE:
        for line, scope, name in _numpy_uses(path):
            if name in HOST_METADATA or _is_scalar_type(name):
                continue
            if (path.name, scope, name) in HOST_ONLY:
                continue
            stray.append(f"{path.relative_to(PACKAGE.parent)}:{line} np.{name} (in {scope})")
    assert not stray, ("these would give a CUDA tensor a host array; write xp = array_module_of(...) "
                       "and xp." + "NAME instead:\n" + "\n".join(stray))


def test_the_host_only_exceptions_are_all_still_needed():
    used = {(path.name, scope, name) for path in COMPUTE_CODE for _, scope, name in _numpy_uses(path)}
    assert not set(HOST_ONLY) - used, "remove exceptions the code no longer needs"


def _xp_attribute_chains():
    """Every ``xp.a.b`` the package calls, e.g. ``('add', 'at')``."""
    chains = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute):
                parts, inner = [], node
                while isinstance(inner, ast.Attribute):
                    parts.append(inner.attr)
                    inner = inner.value
                if isinstance(inner, ast.Name) and inner.id == "xp":
                    chains.add(tuple(reversed(parts)))
    # arithmetic.py names its ufuncs as strings ("add", "floor_divide") that _binary looks up
    # with getattr(xp, name): those are calls on xp too.
    arithmetic = ast.parse((PACKAGE / "_ops" / "arithmetic.py").read_text())
    chains |= {(node.value,) for node in ast.walk(arithmetic)
               if isinstance(node, ast.Constant) and isinstance(node.value, str)
               and isinstance(getattr(np, node.value, None), np.ufunc)}
    # keep only the longest chains (xp.add.at, not also xp.add)
    return {c for c in chains if not any(o[:len(c)] == c and len(o) > len(c) for o in chains)}


def _resolve(module, chain):
    value = module
    for part in chain:
        value = getattr(value, part)
    return value


# CuPy-only spellings, used only where the device is known to be CUDA.
CUDA_ONLY = {("cuda", "Device")}


def test_every_xp_function_the_package_calls_exists_in_numpy():
    chains = _xp_attribute_chains()
    assert len(chains) > 30, "the scan found too few xp.* uses to be reading the package"
    missing = [".".join(c) for c in chains - CUDA_ONLY if not _has(np, c)]
    assert not missing, missing


def test_every_xp_function_the_package_calls_exists_in_cupy():
    """CuPy imports without a GPU, so its names can be checked on any machine.

    ``./dev.sh test`` installs CuPy into a folder of its own (``NNREF_CUPY_SITE``), kept
    out of the notebooks' environment so that the book shows nnref without CuPy.
    """
    site = os.environ.get("NNREF_CUPY_SITE")
    if site is None:
        pytest.importorskip("cupy", reason="CuPy is not installed (pip install -e .[gpu])")
    chains = sorted(".".join(c) for c in _xp_attribute_chains())
    script = ("import functools, json, sys\n"
              "import cupy\n"
              "def has(chain):\n"
              "    try:\n"
              "        functools.reduce(getattr, chain.split('.'), cupy)\n"
              "    except AttributeError:\n"
              "        return False\n"
              "    return True\n"
              "print(json.dumps([c for c in json.loads(sys.argv[1]) if not has(c)]))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [site, os.environ.get("PYTHONPATH")])))
    run = subprocess.run([sys.executable, "-c", script, json.dumps(chains)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    missing = json.loads(run.stdout)
    assert not missing, f"CuPy has no {missing}: these ops would fail on 'cuda'"


def _has(module, chain):
    try:
        _resolve(module, chain)
    except AttributeError:
        return False
    return True


def test_array_module_picks_numpy_for_the_cpu():
    assert _device.array_module(nnref.device("cpu")) is np
    assert _device.array_module_of(np.zeros(2)) is np
    assert _device.array_module_of(np.float32(1)) is np
    assert _device.array_module(nnref.ones(2).device) is np


def test_to_host_returns_numpy_arrays_unchanged():
    array = np.arange(3)
    assert _device.to_host(array) is array


def test_the_cupy_module_is_the_only_place_that_imports_cupy():
    importers = [p.relative_to(PACKAGE.parent) for p in PACKAGE.rglob("*.py")
                 if "import cupy" in p.read_text() and p.name != "_cupy.py"]
    assert not importers, importers

"""Errors that name the layer: PyTorch's kernels report a bad input without saying which layer got it."""

from ...core._seams import install
from ...core.nn import functional as _core_functional

__all__ = ["naming_layer"]


class naming_layer:
    """Re-raise shape errors from inside ``forward`` with the layer and the inputs' sizes in front.

    The exception keeps its type (RuntimeError, ValueError, IndexError, as
    PyTorch raises them), so ``except`` clauses written for PyTorch still work.
    (A class rather than a ``contextlib`` generator: it wraps every forward, and this costs
    a tenth as much.)
    """

    __slots__ = ("module", "inputs")

    def __init__(self, module, *inputs):
        self.module, self.inputs = module, inputs

    def __enter__(self):
        return None

    def __exit__(self, kind, exc, traceback):
        if kind is None or not issubclass(kind, (RuntimeError, ValueError, IndexError)):
            return False
        sizes = " and ".join(str(list(t.shape)) for t in self.inputs)
        got = f"an input of size {sizes}" if len(self.inputs) == 1 else f"inputs of sizes {sizes}"
        raise kind(f"{self.module._get_name()}({self.module.extra_repr()}) got {got}: {exc}") from None


install(_core_functional, "naming_layer", naming_layer)  # the core layers' forwards name themselves

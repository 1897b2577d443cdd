"""Run a program with ``torch`` being either real PyTorch or nnref.

``python _as_library.py nnref prog.py`` makes every ``import torch`` /
``from torch.utils.data import ...`` in ``prog.py`` load the matching ``nnref``
module instead (an import hook, so the program's source is run unchanged);
``python _as_library.py torch prog.py`` runs it on PyTorch.
"""
import importlib
import importlib.abc
import importlib.util
import runpy
import sys


class _TorchIsNnref(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers imports of ``torch`` and ``torch.x.y`` with ``nnref`` and ``nnref.x.y``."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("nnref" + spec.name[len("torch"):])

    def exec_module(self, module):
        pass


def main(library, program):
    if library == "nnref":
        sys.meta_path.insert(0, _TorchIsNnref())
    elif library != "torch":
        raise SystemExit(f"library must be 'torch' or 'nnref', not {library!r}")
    sys.argv = [program]
    runpy.run_path(program, run_name="__main__")


if __name__ == "__main__":
    main(*sys.argv[1:3])

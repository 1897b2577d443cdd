"""Run one program of this folder with PyTorch or with nnref standing in for it.

``python run_program.py nnref cnn_pooling.py`` makes ``import torch`` (and every
``torch.x.y`` submodule nnref has) resolve to nnref before the program runs, exactly as
a learner's ``import nnref as torch`` would; ``python run_program.py torch ...`` runs it
unchanged.
"""
import runpy
import sys


def _alias_nnref_as_torch():
    import nnref
    import nnref.nn.functional  # noqa: F401 - make sure the submodules are in sys.modules
    import nnref.optim.lr_scheduler  # noqa: F401
    for name, module in list(sys.modules.items()):
        if name == "nnref" or name.startswith("nnref."):
            sys.modules["torch" + name[len("nnref"):]] = module


def main(library, path):
    if library == "nnref":
        _alias_nnref_as_torch()
    elif library != "torch":
        raise SystemExit(f"library must be 'torch' or 'nnref', not {library!r}")
    sys.argv = [path]
    runpy.run_path(path, run_name="__main__")


if __name__ == "__main__":
    main(*sys.argv[1:])

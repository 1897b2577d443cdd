"""Run a program with ``torch`` being either real PyTorch or nnref.

``python _as_library.py nnref prog.py`` makes every ``import torch`` /
``from torch.utils.data import ...`` in ``prog.py`` load the matching ``nnref``
module instead (an import hook, so the program's source is run unchanged);
``python _as_library.py torch prog.py`` runs it on PyTorch.

``python _as_library.py --serve LIBRARY`` imports the library once and then runs the programs it
is sent on standard input (``program<TAB>stdout file<TAB>stderr file`` per line), each in a
child forked from that process, as a fresh process would run it, without paying the library's
import again (PyTorch's takes about two seconds); it answers each line with the exit code.
"""
import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys
import traceback


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


def as_library(library):
    if library == "nnref":
        sys.meta_path.insert(0, _TorchIsNnref())
    elif library != "torch":
        raise SystemExit(f"library must be 'torch' or 'nnref', not {library!r}")


def run(program):
    sys.argv = [program]
    runpy.run_path(program, run_name="__main__")


def _child(program, out_path, err_path):
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
    code = 0
    try:
        run(program)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # noqa: BLE001 - reported as a fresh interpreter would report it
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve(library):
    as_library(library)
    importlib.import_module(library)
    for line in sys.stdin:
        program, out_path, err_path = line.rstrip("\n").split("\t")
        pid = os.fork()
        if pid == 0:
            _child(program, out_path, err_path)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        as_library(sys.argv[1])
        run(sys.argv[2])

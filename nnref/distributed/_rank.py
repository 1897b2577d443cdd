"""One rank of ``nnref.distributed.run``: run the script as ``__main__``; on an uncaught
exception print it with this rank's number, so the job's output says which rank ended it."""
import os
import runpy
import sys
import traceback


def _rank():
    # Hydra's environment: known before (and without) MPI being initialised.
    return os.environ.get("PMI_RANK", "?"), os.environ.get("PMI_SIZE", "?")


def _wait_for_other_ranks():
    """A rank that ends while another still waits for it would make mpiexec stop that one
    quietly, exit code 0; meeting at a barrier first turns that into a wait that ``--timeout``
    reports."""
    MPI = sys.modules.get("mpi4py.MPI")
    if MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized():
        MPI.COMM_WORLD.Barrier()


def _failed():
    """No MPI_Finalize at exit: it would wait for ranks that may be waiting for this one."""
    from .distributed_c10d import _World
    _World.failed = True


def main():
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
        _wait_for_other_ranks()
    except SystemExit as exit:
        if exit.code not in (None, 0):
            _failed()
            rank, size = _rank()
            print(f"nnref.distributed.run: rank {rank} of {size} exited with {exit.code!r}; the "
                  f"other ranks are stopped", file=sys.stderr, flush=True)
        raise
    except BaseException as error:
        _failed()
        rank, size = _rank()
        traceback.print_exc()
        print(f"nnref.distributed.run: rank {rank} of {size} failed with {type(error).__name__}: "
              f"{error}; the other ranks are stopped", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()

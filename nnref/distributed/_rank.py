"""One rank of ``nnref.distributed.run``: run the script as ``__main__``; on an uncaught
exception print it with this rank's number, so the job's output says which rank ended it."""
import os
import runpy
import sys
import traceback


def _rank():
    # Hydra's environment: known before (and without) MPI being initialised.
    return os.environ.get("PMI_RANK", "?"), os.environ.get("PMI_SIZE", "?")


def main():
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exit:
        if exit.code not in (None, 0):
            rank, size = _rank()
            print(f"nnref.distributed.run: rank {rank} of {size} exited with {exit.code!r}; the "
                  f"other ranks are stopped", file=sys.stderr, flush=True)
        raise
    except BaseException as error:
        rank, size = _rank()
        traceback.print_exc()
        print(f"nnref.distributed.run: rank {rank} of {size} failed with {type(error).__name__}: "
              f"{error}; the other ranks are stopped", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()

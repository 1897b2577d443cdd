"""``python -m nnref.distributed.run -n 4 script.py [args]``: start a program on N processes.

A thin wrapper over MPICH's ``mpiexec``, as ``torchrun`` (``torch/distributed/run.py``) wraps
PyTorch's launcher: ``mpiexec`` starts the processes and MPI gives each its rank, so a program
only calls ``dist.init_process_group("mpi")``.  Plain ``mpiexec -n 4 python script.py`` works
as well; this wrapper adds:

* each rank runs the script through ``nnref.distributed._rank``, which names the rank whose
  exception ended the run;
* ``--timeout S`` stops the whole job after S seconds (a program whose ranks wait for each
  other forever, say one rank skipping a collective, then fails instead of hanging);
* ``--log-dir DIR`` writes each rank's output to ``DIR/rank<r>.out`` and ``DIR/rank<r>.err``
  (as torchrun's ``--log-dir`` with ``--redirects 3``): ranks printing to one terminal
  interleave their lines, sometimes inside a line;
* ``--hostfile FILE`` spreads the ranks over machines (one host name a line, optionally
  ``host:slots``; MPICH's Hydra reaches them by ssh, the same path on each).

A rank that dies ends the job: after an error nnref does not call ``MPI_Finalize`` (see
``_mpi`` in ``distributed_c10d``), so ``mpiexec`` sees the process exit and stops the others at
once.  Ranks stopped that way cannot unlink MPICH's shared-memory segment
(``/dev/shm/mpich_shm_*``, a few MB a job); the launcher removes the segments its job made
once no process maps them any more.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys

__all__ = ["main"]


def _mpiexec():
    """MPICH's mpiexec from the ``mpich`` wheel beside this Python, else one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = here if os.access(here, os.X_OK) else shutil.which("mpiexec")
    if found is None:
        raise SystemExit("nnref.distributed.run: mpiexec was not found; install MPICH and mpi4py "
                         "with `pip install mpich mpi4py` (./dev.sh test does).")
    return found


def _parser():
    parser = argparse.ArgumentParser(prog="python -m nnref.distributed.run",
                                     description="Run a program on several processes over MPI.")
    parser.add_argument("-n", "--nproc-per-node", "--nproc_per_node", dest="nproc", type=int, default=1,
                        help="number of processes (ranks) to start")
    parser.add_argument("--hostfile", help="MPICH host file: spread the ranks over these machines")
    parser.add_argument("--log-dir", "--log_dir", dest="log_dir",
                        help="write each rank's stdout and stderr to DIR/rank<r>.out and .err")
    parser.add_argument("--timeout", type=float, default=None,
                        help="stop every rank after this many seconds (exit code 124)")
    parser.add_argument("script", help="the Python program each rank runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    return parser


def command(nproc, script, args=(), hostfile=None, log_dir=None):
    """The mpiexec command line that runs ``script`` on ``nproc`` ranks."""
    if nproc < 1:
        raise SystemExit(f"nnref.distributed.run: -n must be at least 1, got {nproc}")
    line = [_mpiexec(), "-n", str(nproc)]
    if hostfile is not None:
        line += ["-f", hostfile]
    if log_dir is not None:
        # Hydra's patterns: %r is the rank.
        line += ["-outfile-pattern", os.path.join(log_dir, "rank%r.out"),
                 "-errfile-pattern", os.path.join(log_dir, "rank%r.err")]
    return line + [sys.executable, "-m", "nnref.distributed._rank", script, *args]


_SHM = "/dev/shm"


def _shm_segments():
    """This user's MPICH shared-memory files."""
    try:
        names = os.listdir(_SHM)
    except OSError:
        return set()
    found = set()
    for name in names:
        path = os.path.join(_SHM, name)
        try:
            if name.startswith("mpich_shm_") and os.stat(path).st_uid == os.getuid():
                found.add(path)
        except OSError:
            pass  # removed meanwhile
    return found


def _mapped(paths):
    """Those of ``paths`` that some process still maps (``/proc/PID/maps``)."""
    used = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/maps") as maps:
                    text = maps.read()
            except OSError:
                continue  # ended meanwhile, or not ours to read
            used.update(path for path in paths if path in text)
    return used


def _remove_leftover_segments(before):
    """Unlink the segments made since ``before`` that no process maps: those of this job's
    killed ranks (a live job, this user's or another's, maps its own)."""
    new = _shm_segments() - before
    if not new:
        return  # the usual case: MPI_Finalize unlinked them
    for path in new - _mapped(new):
        try:
            os.unlink(path)
        except OSError:
            pass


def main(argv=None):
    options = _parser().parse_args(argv)
    segments = _shm_segments()
    try:
        return _run(options)
    finally:
        _remove_leftover_segments(segments)


def _run(options):
    if options.log_dir is not None:
        os.makedirs(options.log_dir, exist_ok=True)
    # mpiexec starts a new process group of its own; killing it (-9 is not needed: Hydra passes
    # SIGTERM on to every rank) stops the job.
    process = subprocess.Popen(command(options.nproc, options.script, options.args, options.hostfile,
                                       options.log_dir))
    try:
        return process.wait(timeout=options.timeout)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        print(f"nnref.distributed.run: the job ran past --timeout {options.timeout:g} s and was "
              f"stopped (a rank waiting for a message no other rank sends?)", file=sys.stderr)
        return 124
    except KeyboardInterrupt:
        process.send_signal(signal.SIGINT)
        return process.wait()


if __name__ == "__main__":
    sys.exit(main())

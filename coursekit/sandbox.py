"""The sandbox every process running a student's code runs in: Debian's ``bubblewrap`` (``bwrap``).

One sandbox per run of ``_runner.py``:

* **a view of its own** (a mount namespace): the system's ``/usr`` and ``/etc``,
  Python and its packages, read-only; the task's code at ``/task`` and the
  runner at ``/runner``, read-only; a scratch folder at ``/box``, the only
  place it may write (and a private ``/tmp``).  The instructor's repository,
  the hidden tests of other runs, the reference solutions and the grader's
  output folders are not in it;
* **no network** (``--unshare-net``: only a loopback nobody listens on), its own
  PID, IPC and UTS namespaces, and ``--die-with-parent``: when the grader ends
  the run (or dies), the sandbox's init dies and the kernel kills every
  process in it, daemons included;
* **an unprivileged user of its own**: as root, the grader gives each sandbox
  a fresh uid with no capabilities (``setpriv``), so ``RLIMIT_NPROC`` counts
  that sandbox's processes only;
* **limits** (``setrlimit``, inherited by every process of the sandbox):
  address space, CPU time, processes, file size, open files, no core dumps.

The channel back is a pipe the grader made: the runner writes records to it,
the grader reads them (``grader.py``); nothing the sandbox writes to disk is
read back.
"""
import json
import os
import random
import resource
import select
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .tasks import CourseError

RUNNER = Path(__file__).with_name("_runner.py")
ENV = {"HOME": "/box", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
       "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1",
       "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONNOUSERSITE": "1",
       "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
UIDS = range(200_000, 265_000)  # sandbox users: no account, no files on the host
ISSUED = set()                  # the users this process's sandboxes ran as


class SandboxUnavailable(CourseError):
    """bubblewrap cannot sandbox here; grading refuses to run without ``--unsafe``."""


@dataclass
class Limits:
    memory: int = 3 << 30        # bytes of address space per process
    cpu: int = 120               # CPU seconds per process (the grader's wall clock ends runs first)
    processes: int = 32          # processes and threads of the sandbox's user
    file_size: int = 64 << 20    # bytes per file written
    open_files: int = 256


def _python_roots():
    """What Python needs to start, with its packages: the interpreter's prefix and the venv's."""
    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix)}
    return sorted(roots)


def _dirs(path, made):
    """``--dir`` for the parents of a mount point, world-readable (bwrap makes them 0700)."""
    args = []
    for parent in reversed(Path(path).parents):
        if str(parent) not in made and parent != Path("/"):
            made.add(str(parent))
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def bwrap_command(task_dir, box_dir, uid):
    """The ``bwrap ... python _runner.py FD`` command line."""
    args = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "sandbox",
            "--clearenv", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    made = set()
    for root in _python_roots():
        if not str(root).startswith("/usr/"):
            args += _dirs(root, made) + ["--ro-bind", str(root), str(root)]
    args += ["--ro-bind", str(task_dir), "/task", "--perms", "0755", "--dir", "/runner",
             "--ro-bind", str(RUNNER), "/runner/_runner.py",
             "--bind", str(box_dir), "/box", "--chdir", "/box"]
    for key, value in ENV.items():
        args += ["--setenv", key, value]
    if uid is not None:
        args += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all"]
    return args + [sys.executable, "-s", "/runner/_runner.py"]


def _limit(limits):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu, limits.cpu))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size, limits.file_size))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if os.geteuid() == 0:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    return apply


_checked = {}


def check():
    """``None`` if bubblewrap sandboxes here, else why not (checked once per process)."""
    if "result" in _checked:
        return _checked["result"]
    problem = None
    if shutil.which("bwrap") is None:
        problem = "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap; ./dev.sh setup does it)"
    elif shutil.which("setpriv") is None and os.geteuid() == 0:
        problem = "setpriv (util-linux) is not installed"
    else:
        import tempfile
        with tempfile.TemporaryDirectory() as scratch:
            task, box = Path(scratch) / "task", Path(scratch) / "box"
            task.mkdir()
            box.mkdir()
            os.chmod(scratch, 0o755)
            uid = random.choice(UIDS) if os.geteuid() == 0 else None
            if uid is not None:
                os.chown(box, uid, uid)
            command = bwrap_command(task, box, uid)[:-2] + ["-c", "import os; print(os.getuid())"]
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=60)
                if done.returncode != 0:
                    problem = f"bwrap fails here: {done.stderr.strip()[-500:]}"
            except (OSError, subprocess.TimeoutExpired) as err:
                problem = f"bwrap fails here: {err}"
    _checked["result"] = problem
    return problem


@dataclass
class Outcome:
    records: list
    how: str              # "done", "timeout", "exited", "output-limit"
    timed_out: str = ""   # the test that ran past its limit
    seconds: float = 0.0
    stderr: str = ""


def run(plan, task_dir, box_dir, limits=None, setup_limit=60.0, test_limit=10.0, total_limit=3600.0,
        unsafe=False, output_limit=64 << 20):
    """Run ``_runner.py`` on ``plan`` in a sandbox; the records it sent, and how it ended.

    The grader's clock: ``setup_limit`` seconds until the first test starts,
    then ``test_limit`` seconds per test (from its ``start`` record to its
    ``end``; a function of the test's key, or a number), and ``total_limit``
    seconds in all, whatever records arrive.  Past any, the whole sandbox is killed.  Each ``end`` record gets the test's ``seconds``,
    as the grader measured them.
    """
    limit_of = test_limit if callable(test_limit) else (lambda _test: test_limit)
    limits = limits or Limits()
    uid = random.choice(UIDS) if os.geteuid() == 0 else None
    if uid is not None:
        ISSUED.add(uid)
    box_dir.mkdir(parents=True, exist_ok=True)
    if uid is not None:
        for path in [box_dir, *box_dir.rglob("*")]:
            os.lchown(path, uid, uid)
    read_end, write_end = os.pipe()
    if unsafe:
        command = [sys.executable, "-s", str(RUNNER)]
        plan = dict(plan, cwd=str(box_dir))
    else:
        command = bwrap_command(task_dir, box_dir, uid)
    start = time.monotonic()
    process = subprocess.Popen(command + [str(write_end)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, pass_fds=(write_end,), preexec_fn=_limit(limits),
                               env=dict(ENV, HOME=str(box_dir)) if unsafe else {},
                               start_new_session=True)
    os.close(write_end)
    try:
        process.stdin.write(json.dumps(plan).encode())
        process.stdin.close()
    except BrokenPipeError:
        pass
    records, buffer, total = [], b"", 0
    deadline, current, how, late, started = start + setup_limit, None, "exited", "", start
    stderr_chunks = []
    streams = [read_end, process.stderr.fileno()]
    hard_deadline = start + total_limit
    while read_end in streams:
        wait = min(deadline, hard_deadline) - time.monotonic()
        if wait <= 0:
            how, late = "timeout", current or ""
            break
        ready, _, _ = select.select(streams, [], [], min(wait, 1.0))
        if process.stderr.fileno() in ready:
            chunk = os.read(process.stderr.fileno(), 65536)
            if chunk:
                if sum(map(len, stderr_chunks)) < 65536:
                    stderr_chunks.append(chunk)
            else:
                streams.remove(process.stderr.fileno())
        if read_end not in ready:
            continue
        chunk = os.read(read_end, 1 << 20)
        if not chunk:
            streams.remove(read_end)
            break
        total += len(chunk)
        if total > output_limit:
            how = "output-limit"
            break
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            records.append(record)
            kind = record.get("r")
            if kind == "start":
                current = str(record.get("test"))
                started = time.monotonic()
                deadline = started + limit_of(current)
            elif kind == "end" and record.get("test") == current:
                record["seconds"] = round(time.monotonic() - started, 3)
                current = None
                deadline = time.monotonic() + setup_limit
            elif kind == "done":
                how = "done"
        if how == "done":
            break  # whatever else still writes is ignored
    _kill(process)
    os.close(read_end)
    stderr = b"".join(stderr_chunks).decode("utf-8", "replace")
    return Outcome(records, how if how != "exited" or not records or records[-1].get("r") != "done" else "done",
                   late, round(time.monotonic() - start, 2), stderr)


def _kill(process):
    """End the sandbox: its init dies, and with it every process in its PID namespace."""
    try:
        os.killpg(process.pid, 9)
    except OSError:
        pass
    try:
        process.kill()
    except OSError:
        pass
    process.wait()
    if process.stderr:
        process.stderr.close()

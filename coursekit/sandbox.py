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
* **limits for the sandbox as a whole**: memory and processes by a control
  group of its own (``Group``: cgroup v2, or v1's ``memory`` and ``pids``
  controllers, made under the grader's own group; ``systemd-run`` needs a
  running systemd, which containers such as Gradescope's lack); where no
  cgroup can be made, the fallback is ``RLIMIT_NPROC`` for the sandbox's
  fresh user (so processes still count per sandbox) and ``RLIMIT_AS`` per
  process (memory then counts per process: ``processes x memory`` at most).
  Disk: ``/box``, ``/tmp`` and ``/dev/shm`` are size-limited tmpfs (the
  runner copies the task's files in from a read-only ``/seed``).  Per
  process, by ``setrlimit``: address space, CPU time, file size, open
  files, no core dumps.  Wall time: the grader's clock (``run``).

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
    sandbox_memory: int = 4 << 30  # bytes of memory for the sandbox as a whole (its control group)
    cpu: int = 120               # CPU seconds per process (the grader's wall clock ends runs first)
    processes: int = 32          # processes and threads of the sandbox (its group, and its user)
    file_size: int = 64 << 20    # bytes per file written
    disk: int = 256 << 20        # bytes of /box; /tmp and /dev/shm get a quarter each
    open_files: int = 256


class Group:
    """A control group holding one sandbox: its memory and its processes counted together.

    cgroup v2 (``memory.max``, ``pids.max``), or v1's ``memory`` and ``pids``
    hierarchies; each made as a child of the grader's own group, so the
    machine's limits on the grader still hold.  ``Group.make`` is None where
    none can be made (no cgroup file system, or not writable).
    """

    def __init__(self, paths):
        self.paths = paths  # the group's folders: one (v2), or one per v1 controller

    @staticmethod
    def _own(controller):
        """The grader's own group in ``controller``'s hierarchy ('' for v2)."""
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            number, controllers, path = line.split(":", 2)
            if controller in controllers.split(",") or (controller == "" and number == "0"):
                return path
        return None

    @classmethod
    def make(cls, limits):
        name = f"coursekit-{os.getpid()}-{random.getrandbits(48):012x}"
        try:
            root = Path("/sys/fs/cgroup")
            if (root / "cgroup.controllers").exists():  # v2: one hierarchy
                own = cls._own("")
                path = root / own.lstrip("/") / name
                path.mkdir()
                group = cls([path])
                group._write(path, "memory.max", limits.sandbox_memory)
                group._write(path, "memory.swap.max", 0, optional=True)
                group._write(path, "pids.max", limits.processes)
                return group
            paths = {c: root / c / cls._own(c).lstrip("/") / name for c in ("memory", "pids")}
            group = cls([])
            for path in paths.values():
                path.mkdir()
                group.paths.append(path)
            group._write(paths["memory"], "memory.limit_in_bytes", limits.sandbox_memory)
            group._write(paths["memory"], "memory.memsw.limit_in_bytes", limits.sandbox_memory, optional=True)
            group._write(paths["pids"], "pids.max", limits.processes)
            return group
        except (OSError, AttributeError, TypeError, ValueError):
            if "group" in locals():
                group.remove()
            return None

    @staticmethod
    def _write(path, name, value, optional=False):
        try:
            (path / name).write_text(str(value))
        except OSError:
            if not optional:
                raise

    def enter(self):
        """In the sandbox's first process, before it execs bwrap: everything it starts is in the group."""
        for path in self.paths:
            (path / "cgroup.procs").write_text(str(os.getpid()))

    def remove(self):
        """Kill whatever is left in the group, then remove it (a killed process leaves when it is reaped)."""
        left = list(self.paths)
        for _attempt in range(250):  # 5 s at most
            for path in list(left):
                try:
                    pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
                except OSError:
                    pids = []
                for pid in pids:
                    try:
                        os.kill(pid, 9)
                    except OSError:
                        pass
                try:
                    path.rmdir()
                    left.remove(path)
                except OSError:
                    pass
            if not left:
                return
            time.sleep(0.02)


def whole_sandbox_limits():
    """What limits memory and processes for a sandbox as a whole here, in words (the report says it)."""
    if "groups" not in _checked:
        group = Group.make(Limits())
        _checked["groups"] = ("cgroup v2" if group and len(group.paths) == 1 else "cgroup v1") if group else None
        if group:
            group.remove()
    return (f"{_checked['groups']} (memory and processes per sandbox)" if _checked["groups"] else
            "rlimits (processes per sandbox by its own user; memory per process)")


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


def bwrap_command(task_dir, box_dir, uid, limits=None):
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
    limits = limits or Limits()
    # disk: size-limited tmpfs (their pages count in the sandbox's memory group too)
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.disk // 4), "--perms", "1777",
             "--tmpfs", "/dev/shm", "--size", str(limits.disk // 4), "--perms", "1777", "--tmpfs", "/tmp",
             "--size", str(limits.disk), "--perms", "1777", "--tmpfs", "/box"]
    made = set()
    for root in _python_roots():
        if not str(root).startswith("/usr/"):
            args += _dirs(root, made) + ["--ro-bind", str(root), str(root)]
    args += ["--ro-bind", str(task_dir), "/task", "--perms", "0755", "--dir", "/runner",
             "--ro-bind", str(RUNNER), "/runner/_runner.py",
             "--ro-bind", str(box_dir), "/seed", "--chdir", "/box"]
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


RECORD_FIELDS = {"r": str, "test": (str, type(None)), "id": (str, type(None)), "n": (int, type(None))}


def _record(line):
    """One line of the channel as a record, or None: JSON, an object, its keys typed as the runner sends them
    (a sandbox may send anything; what is not a record is dropped here, before the grader looks at it)."""
    try:
        record = json.loads(line)
    except ValueError:  # not JSON, not UTF-8
        return None
    if not isinstance(record, dict) or not isinstance(record.get("r"), str):
        return None
    for key, kinds in RECORD_FIELDS.items():
        if key in record and (not isinstance(record[key], kinds) or isinstance(record[key], bool)):
            return None
    return record


def run(plan, task_dir, box_dir, limits=None, setup_limit=60.0, test_limit=10.0, total_limit=3600.0,
        unsafe=False, output_limit=64 << 20, tests=None, between_limit=None):
    """Run ``_runner.py`` on ``plan`` in a sandbox; the records it sent, and how it ended.

    The grader's clock, which no record extends: ``total_limit`` seconds in
    all; within it, ``setup_limit`` seconds until the first test starts,
    ``test_limit`` seconds per test (from its ``start`` record to its
    ``end``; a function of the test's key, or a number), and then
    ``between_limit`` (default: ``setup_limit``) more until the next test
    starts, counted from the test's start, so an early ``end`` buys nothing.  Only
    the first ``start`` of a test in ``tests`` (the reference's tests; None:
    any) starts a test's clock.  Past any limit, the whole sandbox is killed.
    Each ``end`` record gets the test's ``seconds``, and each ``start`` the
    ``gap`` since the run began or the last test ended, as the grader measured them.
    """
    between_limit = setup_limit if between_limit is None else between_limit
    limit_of = test_limit if callable(test_limit) else (lambda _test: test_limit)
    limits = limits or Limits()
    uid = random.choice(UIDS) if os.geteuid() == 0 else None
    if uid is not None:
        ISSUED.add(uid)
    box_dir.mkdir(parents=True, exist_ok=True)
    read_end, write_end = os.pipe()
    if unsafe:
        command = [sys.executable, "-s", str(RUNNER)]
        group = None
    else:
        command = bwrap_command(task_dir, box_dir, uid, limits)
        plan = dict(plan, seed="/seed")
        group = Group.make(limits)
    rlimits = _limit(limits)

    def prepare():
        if group is not None:
            group.enter()
        rlimits()

    start = time.monotonic()
    try:
        process = subprocess.Popen(command + [str(write_end)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, pass_fds=(write_end,), preexec_fn=prepare,
                                   env=dict(ENV, HOME=str(box_dir)) if unsafe else {},
                                   start_new_session=True)
    except BaseException:
        os.close(read_end)
        os.close(write_end)
        if group is not None:
            group.remove()
        raise
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
    seen = set()
    try:
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
                record = _record(line)
                if record is None:
                    continue
                records.append(record)
                kind = record.get("r")
                if kind == "start":
                    test = record.get("test")
                    if test in seen or (tests is not None and test not in tests):
                        continue  # a test's clock starts once, and only for a test the grader knows
                    seen.add(test)
                    current = test
                    record["gap"] = round(time.monotonic() - started, 3)
                    started = time.monotonic()
                    deadline = started + limit_of(current)
                elif kind == "end" and current is not None and record.get("test") == current:
                    record["seconds"] = round(time.monotonic() - started, 3)
                    # the next test starts by the time this one had, and the wait between tests:
                    # an early "end" (forged or not) buys no time
                    deadline = started + limit_of(current) + between_limit
                    current = None
                    started = time.monotonic()
                elif kind == "done":
                    how = "done"
            if how == "done":
                break  # whatever else still writes is ignored
    finally:
        _kill(process)
        if group is not None:
            group.remove()
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

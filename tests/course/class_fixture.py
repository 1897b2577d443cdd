"""A small synthetic class for the grader's tests: honest, half-done, broken, looping, crashing and hostile.

Each submission is a student edition of this repository with answers written
into a few tasks (``TASKS``); ``build_class`` zips them into a folder, the
way an instructor downloads a class.  ``expected_points`` says what each
student must get, from what each submission does.
"""
import json
import shutil
import textwrap
import zipfile
from pathlib import Path

from coursekit import student

NNREF_TASK = "module.named_modules"
EXERCISES = ["walking-ex1", "walking-ex2", "walking-ex3", "walking-ex4"]
TASKS = [NNREF_TASK, *EXERCISES]
MARK = "ATTACK SUCCEEDED"


def indent(code, prefix="        "):
    return textwrap.indent(textwrap.dedent(code).strip("\n"), prefix)


# -- the attacks (each in the exercise it names; an attack that works says so and fails its exercise) ---
def forge():
    """A wrong answer, plus every way of saying "passed" from inside: patched probes, forged records, files."""
    return textwrap.dedent('''
        import __main__, json, os
        def _forged(check_id, leaves, specs, expected=(), expected_specs=()):
            # the expected side's values where the plan has them, else True; both sides the same
            values = [__main__.encode(f()) for f in expected] or [True] * len(leaves)
            __main__.send({"r": "check", "test": __main__.CURRENT["test"], "id": check_id, "n": 1,
                           "kind": "expr", "leaves": values, "expected": values, "subject": True,
                           "truth": True})
        __main__.probe = _forged
        globals()["__probe__"] = _forged
        __main__.send({"r": "end", "test": "walking-ex1", "how": "ok"})
        for _name in ("result-walking_ex1.json", "results.json", "report.json", "/box/report.json",
                      "/tmp/report.json", "../report.json"):
            try:
                with open(_name, "w") as _f:
                    json.dump({"status": "passed", "points": 100}, _f)
            except OSError:
                pass
        per_child = {}
        total = 0
        ''')


def resources(port):
    """20 GiB of memory, 50 processes, a connection to the grader's machine."""
    return textwrap.dedent(f'''
        import os, socket, time
        _worked = []
        try:
            _block = bytearray(20 << 30)
            _worked.append("allocated 20 GiB")
            del _block
        except MemoryError:
            pass
        _children = []
        for _ in range(50):
            try:
                _pid = os.fork()
            except OSError:
                break
            if _pid == 0:
                time.sleep(30)
                os._exit(0)
            _children.append(_pid)
        if len(_children) >= 50:
            _worked.append("started 50 processes")
        for _pid in _children:
            os.kill(_pid, 9)
            os.waitpid(_pid, 0)
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
            _worked.append("connected to 127.0.0.1:{port}")
        except OSError:
            pass
        if _worked:
            raise RuntimeError("{MARK}: " + ", ".join(_worked))
        ''')


KILL_THE_RUNNER = textwrap.dedent('''
    import os, signal, time
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(5)
    ''')


def snoop(secrets, hidden_file, reference_line):
    """Read hidden tests and reference solutions, append to a hidden test file, leave a daemon behind."""
    return textwrap.dedent(f'''
        import glob, os, time
        _worked = []
        for _path in {secrets!r}:
            if os.path.exists(_path):
                _worked.append("read " + _path)
        for _value in os.environ.values():
            if "tests/course" in _value or "coursekit" in _value:
                _worked.append("found a path in the environment")
        for _top in ("/task", "/box", "/tmp", "/root", "/work", "/home", "/srv", "/opt"):
            for _dir, _subdirs, _files in os.walk(_top):
                _subdirs[:] = [d for d in _subdirs if d not in ("site-packages", "dist-packages", ".venv")]
                for _file in _files:
                    if _file.endswith("_hidden.py") or _file.endswith(".ipynb"):
                        _worked.append("found " + os.path.join(_dir, _file))
                    elif _file.endswith(".py"):
                        try:
                            if {reference_line!r} in open(os.path.join(_dir, _file), errors="replace").read():
                                _worked.append("found the reference in " + os.path.join(_dir, _file))
                        except OSError:
                            pass
        try:
            with open({hidden_file!r}, "a") as _f:
                _f.write("\\nassert False\\n")
            _worked.append("appended to the hidden tests")
        except OSError:
            pass
        try:
            with open("/task/nnref/__init__.py", "a") as _f:
                _f.write("#")
            _worked.append("wrote to the task's code")
        except OSError:
            pass
        if os.fork() == 0:  # a daemon, which would rewrite the reports once the grader is done
            os.setsid()
            if os.fork() == 0:
                time.sleep(2)
                import __main__
                for _ in range(100):
                    try:
                        __main__.send({{"r": "end", "test": "walking-ex1", "how": "ok"}})
                    except OSError:
                        pass
                    time.sleep(0.1)
                os._exit(0)
            os._exit(0)
        if _worked:
            raise RuntimeError("{MARK}: " + "; ".join(_worked))
        ''')


def import_reference(reference_line):
    """An nnref body that looks everywhere for the reference solution, to use it."""
    return indent(f'''
        import os
        if not getattr(Module, "_searched", False):  # once per process
            Module._searched = True
            for _top in ("/task", "/box", "/tmp", "/root", "/work", "/home", "/opt", "/srv"):
                for _dir, _subdirs, _files in os.walk(_top):
                    _subdirs[:] = [d for d in _subdirs if d not in ("site-packages", "dist-packages")]
                    for _file in _files:
                        if _file.endswith(".py"):
                            _path = os.path.join(_dir, _file)
                            try:
                                _text = open(_path, errors="replace").read()
                            except OSError:
                                continue
                            if {reference_line[:20]!r} + {reference_line[20:]!r} in _text:  # not in this file
                                raise RuntimeError("{MARK}: the reference solution is in " + _path)
        raise NotImplementedError("no reference solution to import")
        ''')


# -- the class --------------------------------------------------------------------------------------------
def write(edition, found, task_id, body):
    student.write_answer(found[task_id], edition, [body])


def build_class(base_edition, folder, root, port, secrets, hidden_file):
    """Zip six submissions into ``folder``; returns ``{submission name: student id}``."""
    found = {t.id: t for t in student.checked_tasks(root)}
    reference = {task_id: student.reference_answer(found[task_id], root)[0] for task_id in TASKS}
    # lines of reference solutions a hostile submission looks for: named_modules (not PyTorch's own
    # line, which differs in its quotes), and walking-ex3, an exercise mallory does not answer
    reference_line = 'submodule_prefix = prefix + ("." if prefix else "") + name'
    exercise_line = "targets = [name for name, m in net.named_modules()"
    assert reference_line in reference[NNREF_TASK] and exercise_line in reference["walking-ex3"]

    def edition(name, student_id):
        path = shutil.copytree(base_edition, folder / "editions" / name)
        if student_id is not None:
            (path / "student.json").write_text(json.dumps({"id": student_id, "name": name.title()}))
        return path

    people = {}
    # alice: everything solved
    path = edition("alice", "s001")
    for task_id in TASKS:
        write(path, found, task_id, reference[task_id])
    people["alice"] = path
    # bob: half done (the rest untouched)
    path = edition("bob", "s002")
    for task_id in (NNREF_TASK, "walking-ex1", "walking-ex2"):
        write(path, found, task_id, reference[task_id])
    people["bob"] = path
    # carol: broken (a syntax error, a wrong answer, an exception), two exercises right
    path = edition("carol", "s003")
    write(path, found, NNREF_TASK, "        def broken(:\n            pass")
    write(path, found, "walking-ex1", "per_child = {}\ntotal = 0")
    write(path, found, "walking-ex2", reference["walking-ex2"])
    write(path, found, "walking-ex3", "raise ValueError('not like this')")
    write(path, found, "walking-ex4", reference["walking-ex4"])
    people["carol"] = path
    # dave: loops (one nnref test's input, and one exercise), the rest right; no student.json id
    path = edition("dave", None)
    write(path, found, NNREF_TASK, indent('''
        while prefix == "model":
            pass''') + "\n" + reference[NNREF_TASK])
    for task_id in ("walking-ex1", "walking-ex2", "walking-ex3"):
        write(path, found, task_id, reference[task_id])
    write(path, found, "walking-ex4", "while True:\n    pass")
    people["dave"] = path
    # erin: crashes (os._exit in one nnref test, os.abort in an exercise), the rest right
    path = edition("erin", "s005")
    write(path, found, NNREF_TASK, indent('''
        if prefix == "model":
            import os
            os._exit(3)''') + "\n" + reference[NNREF_TASK])
    write(path, found, "walking-ex1", reference["walking-ex1"])
    write(path, found, "walking-ex2", reference["walking-ex2"])
    write(path, found, "walking-ex3", "import os\nos.abort()")
    write(path, found, "walking-ex4", reference["walking-ex4"])
    people["erin"] = path
    # mallory: hostile, with honest answers after each attack that leaves the exercise running
    path = edition("mallory", "s001")  # her student.json claims alice's id: ids come from file names
    write(path, found, NNREF_TASK, import_reference(reference_line))
    write(path, found, "walking-ex1", forge())
    write(path, found, "walking-ex2", resources(port) + reference["walking-ex2"])
    write(path, found, "walking-ex3", KILL_THE_RUNNER)
    write(path, found, "walking-ex4", snoop(secrets, hidden_file, exercise_line) + reference["walking-ex4"])
    people["mallory"] = path

    submissions = folder / "submissions"
    submissions.mkdir()
    ids = {"alice": "s001", "bob": "s002", "carol": "s003", "dave": None, "erin": "s005", "mallory": "s006"}
    for name, path in people.items():
        # the instructor's download names each zip after the student's id (dave's is named after him)
        with zipfile.ZipFile(submissions / f"{ids[name] or name}.zip", "w") as archive:
            for file in sorted(path.rglob("*")):
                archive.write(file, Path(name) / file.relative_to(path))
    return ids


def expected_points(found, visible_tests, hidden_tests):
    """Each student's points per task, from what their submission does.

    ``visible_tests``/``hidden_tests``: the test functions of the nnref task's files
    (partial credit is per test function); dave's loop and erin's crash hit the one
    test that calls ``named_modules(prefix="model")``.
    """
    points = {t: found[t].points for t in TASKS}
    functions = len(visible_tests) + len(hidden_tests)
    one_test_lost = round(points[NNREF_TASK] * (functions - 1) / functions, 2)
    full = dict(points)
    return {
        "s001": full,
        "s002": {**points, "walking-ex3": 0, "walking-ex4": 0},
        "s003": {**points, NNREF_TASK: 0, "walking-ex1": 0, "walking-ex3": 0},
        "dave": {**points, NNREF_TASK: one_test_lost, "walking-ex4": 0},
        "s005": {**points, NNREF_TASK: one_test_lost, "walking-ex3": 0},
        "s006": {**points, NNREF_TASK: 0, "walking-ex1": 0, "walking-ex3": 0},
    }

"""No reference solution and no hidden test can be read from inside the sandbox.

A submission looks for them everywhere it can, in the nnref task
``module.named_modules`` (its visible and hidden tests run with it) and in
the exercise ``walking-ex2`` (whose chapter has hidden tests, and later
exercises whose reference code the grader runs): it opens the reference's
paths, walks the file system, reads ``/proc/*/`` of every process it can see,
and searches its own memory (every code object's constants, every frame's
variables: the runner's plan).  Found text would fail the task, with the
text in the instructor's report; then its answer is the reference's, so
finding nothing means full points.  Graded through the real command line and
Gradescope's step.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from class_fixture import MARK
from course_root import ROOT
from coursekit import notebooks, student

NNREF = "module.named_modules"
EXERCISE = "walking-ex2"
NOTEBOOK = ROOT / "book" / "07_walking_the_tree.ipynb"


def secrets():
    """Lines only the grader has: reference solutions (of this task, of a later exercise) and hidden tests."""
    hidden_file = ROOT / "tests" / "course" / "hidden" / "test_module_named_modules_hidden.py"
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    exercises = {e.label: e for e in notebooks.exercises(notebook)[0]}
    hidden_cell = next(notebook.cells[i].source for i in exercises[EXERCISE].code_cells
                       if "BEGIN HIDDEN TESTS" in notebook.cells[i].source)
    hidden_lines = hidden_cell.split("BEGIN HIDDEN TESTS", 1)[1].split("END HIDDEN TESTS", 1)[0].split("\n")
    lines = [
        'submodule_prefix = prefix + ("." if prefix else "") + name',          # named_modules' reference
        "targets = [name for name, m in net.named_modules()",                  # walking-ex3's reference
        "Whether ``target`` is ``start`` or below it (read from ``_modules``",  # a hidden test's docstring
        max((line.strip() for line in hidden_lines), key=len),                  # the chapter's hidden test
    ]
    assert lines[0] in (ROOT / "nnref" / "core" / "nn" / "modules" / "module.py").read_text()
    assert lines[2] in hidden_file.read_text()
    assert len(lines[3]) > 30
    return lines


def snoop(lines):
    """The search; ``lines`` are split in two so that this code does not hold them whole."""
    halves = [(line[:10], line[10:]) for line in lines]
    paths = [str(ROOT / "nnref" / "core" / "nn" / "modules" / "module.py"), "/task/nnref/core/nn/modules/module.py",
             str(ROOT / "nnref" / "nn" / "modules" / "module.py"), "/task/nnref/nn/modules/module.py",
             str(ROOT / "tests" / "course" / "hidden" / "test_module_named_modules_hidden.py"), str(NOTEBOOK)]
    return textwrap.dedent(f'''
        import gc, os, sys, types
        _targets = [a + b for a, b in {halves!r}]
        _found = []

        def _look(where, text):
            for _target in _targets:
                if text is not _target and _target in text:  # not the search's own list
                    _found.append(f"{{where}} holds {{_target[:20]!r}}")

        def _read(path):
            try:
                if os.path.isfile(path) and os.path.getsize(path) < 20_000_000:
                    with open(path, "rb") as _file:
                        _look(path, _file.read().decode("utf-8", "replace"))
            except OSError:
                pass

        for _path in {paths!r}:
            _read(_path)
        for _top in ("/task", "/box", "/seed", "/runner", "/tmp", "/root", "/work", "/home", "/srv", "/opt", "/var"):
            for _dir, _subdirs, _files in os.walk(_top):
                _subdirs[:] = [d for d in _subdirs if d not in ("site-packages", "dist-packages", ".venv", "versions")]
                for _file in _files:
                    _read(os.path.join(_dir, _file))
        for _pid in os.listdir("/proc"):
            if _pid.isdigit() or _pid == "self":
                for _name in ("cmdline", "environ", "status", "maps"):
                    _read(f"/proc/{{_pid}}/{{_name}}")

        def _constants(code, depth=0):
            for _value in code.co_consts:
                if isinstance(_value, str):
                    _look("a code object", _value)
                elif isinstance(_value, types.CodeType) and depth < 20:
                    _constants(_value, depth + 1)

        def _values(value, depth=0):
            if isinstance(value, str):
                _look("a value", value)
            elif isinstance(value, (list, tuple)) and depth < 6:
                for _v in value:
                    _values(_v, depth + 1)
            elif isinstance(value, dict) and depth < 6:
                for _v in list(value.values()):
                    _values(_v, depth + 1)

        for _object in gc.get_objects():
            if isinstance(_object, types.FunctionType):
                _constants(_object.__code__)
            elif isinstance(_object, dict):
                _values(_object)
        _frame = sys._getframe()
        while _frame is not None:
            _values(dict(_frame.f_locals))
            _constants(_frame.f_code)
            _frame = _frame.f_back
        if _found:
            raise RuntimeError("{MARK}: " + "; ".join(sorted(set(_found))[:6]))
        ''')


@pytest.fixture(scope="module")
def snooping_class(student_edition, tmp_path_factory):
    found = {t.id: t for t in student.checked_tasks(ROOT)}
    lines = secrets()
    folder = tmp_path_factory.mktemp("secrets")
    path = Path(shutil.copytree(student_edition, folder / "class" / "s301"))
    named_modules = student.reference_answer(found[NNREF], ROOT)[0]
    once = "if not getattr(Module, '_snooped', False):\n    Module._snooped = True\n" + \
        textwrap.indent(snoop(lines), "    ")
    student.write_answer(found[NNREF], path, [textwrap.indent(once, "        ") + "\n" + named_modules])
    student.write_answer(found[EXERCISE], path, [snoop(lines) + student.reference_answer(found[EXERCISE], ROOT)[0]])
    out = folder / "out"
    done = subprocess.run([sys.executable, "-m", "coursekit", "--root", str(ROOT), "grade", str(folder / "class"),
                           "--out", str(out), "--task", NNREF, "--task", EXERCISE, "--jobs", "2", "--timeout", "20"],
                          capture_output=True, text=True, timeout=900, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(next((out / "graded").glob("*.json")).read_text())
    report = report.get("report", report)
    return {"report": report, "out": out, "lines": lines, "folder": folder}


def test_nothing_secret_is_found_in_the_sandbox(snooping_class):
    tasks = {t["id"]: t for t in snooping_class["report"]["tasks"]}
    text = json.dumps(snooping_class["report"])
    assert MARK not in text, [t["why"] for task in tasks.values() for t in task["tests"] if MARK in t["why"]]
    for task_id in (NNREF, EXERCISE):
        assert tasks[task_id]["status"] == "passed", tasks[task_id]
        assert any(t["hidden"] for t in tasks[task_id]["tests"])  # the search ran with the hidden tests too


def test_no_secret_reaches_the_feedback_or_gradescope(snooping_class, tmp_path):
    feedback = (snooping_class["out"] / "feedback" / "s301.md").read_text().replace("\\", "")
    results = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "coursekit", "--root", str(ROOT), "gradescope-run",
                           str(snooping_class["folder"] / "class" / "s301"), str(results), "--timeout", "20"],
                          capture_output=True, text=True, timeout=900, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(results.read_text())
    scores = {t["name"]: (t["score"], t["max_score"]) for t in data["tests"]}
    assert scores[NNREF][0] == scores[NNREF][1] and scores[EXERCISE][0] == scores[EXERCISE][1], scores
    for line in snooping_class["lines"]:
        assert line[:30] not in feedback and line[:30] not in results.read_text().replace("\\", "")

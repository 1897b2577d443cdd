"""Verdicts are the grader's: attacks on how a check is judged, each paired with its honest-wrong control.

Each submission answers an nnref task (``linear.forward``) and a chapter
exercise (``walking-ex3``) wrongly, the way its control does, and then tries
to make the checks pass from inside its process: patched builtins (``any``,
``all``, ``isinstance``, ``len``), a runner function whose
``__code__`` is replaced by a forger's, forged verdict records written
straight to the channel, patched ``numpy.allclose``/``array_equal`` and
``torch.equal``.  Graded through the real command line (``python -m coursekit
grade``) and Gradescope's step (``gradescope-run``), each attack must score
exactly what its control scores.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from course_root import ROOT
from coursekit import student

NNREF = "linear.forward"
EXERCISE = "walking-ex3"


def body(code):
    return textwrap.indent(textwrap.dedent(code).strip("\n"), "        ")


def check_line(path, text, cell=None):
    """The line of the assert starting with ``text`` (a check's id is its line: coursekit/checks.py)."""
    source = cell if cell is not None else (ROOT / path).read_text()
    return next(k for k, line in enumerate(source.split("\n"), 1) if line.strip().startswith(text))


def exercise_cell():
    import nbformat
    from coursekit import notebooks
    notebook = nbformat.read(ROOT / "book" / "07_walking_the_tree.ipynb", as_version=4)
    exercise = next(e for e in notebooks.exercises(notebook)[0] if e.label == EXERCISE)
    return notebook.cells[exercise.code_cells[0]].source


# -- the answers: wrong, honestly (controls) or with an attack on the verdict ---------------------------------
NOT_DONE = 'raise NotImplementedError("not done yet")'  # not the stub: graded, and wrong
WRONG_VALUES = "return input @ self.weight.T * 0 + 7"
LEAVE_THE_BATCHNORMS = "net.eval()  # honest, and wrong: the BatchNorm1d layers stay"

# Each patched builtin lies only to the checks (code in a cell, or in a test file), so that nothing else breaks.
PATCH_BUILTINS = '''
import builtins, sys
if not getattr(builtins, "_patched", False):
    builtins._patched = True
    _real = {name: getattr(builtins, name) for name in ("isinstance", "any", "all", "len")}
    _lie_about = (NotImplementedError, __import__("nnref").nn.BatchNorm1d)

    def _checking():
        name = sys._getframe(2).f_code.co_filename
        return name.startswith("<") or "/tests/" in name

    builtins.isinstance = lambda obj, cls: False if _checking() and cls in _lie_about \\
        else _real["isinstance"](obj, cls)
    builtins.any = lambda iterable: False if _checking() else _real["any"](iterable)
    builtins.all = lambda iterable: True if _checking() else _real["all"](iterable)
    builtins.len = lambda obj: 0 if _checking() else _real["len"](obj)
'''


def replace_the_probe(forge_ids):
    """The runner's probe given a forger's ``__code__``: the checks in ``forge_ids`` are sent as passed, in
    every form a record could say so (a truth value that makes the check hold, the expected side's value,
    "passed"); the others go to a copy of the real probe (so that the honest part is graded as the control's)."""
    return f'''
import __main__, types
__main__._real_probe = types.FunctionType(__main__.probe.__code__, __main__.probe.__globals__)
__main__._forge_ids = {{*{forge_ids!r}}}

def _forged(check_id, *args, **kwargs):
    if check_id not in _forge_ids:
        return _real_probe(check_id, *args, **kwargs)
    kind = args[0] if args and isinstance(args[0], str) else "expr"
    truth = kind != "falsy"
    send({{"r": "check", "test": CURRENT["test"], "id": check_id, "n": 1, "kind": kind, "truth": True,
          "passed": True, "subject": truth, "leaves": [truth] * 4, "expected": [truth] * 4}})

__main__.probe.__code__ = _forged.__code__
'''


def forge_records(test, check_ids):
    """Verdict records written straight to the channel, before the real ones."""
    return f'''
import __main__, json, os
for _id in {check_ids!r}:
    for _kind, _subject in (("falsy", False), ("truthy", True)):
        os.write(__main__.OUT, (json.dumps({{"r": "check", "test": {test!r}, "id": _id, "n": 1, "kind": _kind,
            "truth": True, "passed": True, "subject": _subject, "leaves": [_subject, _subject],
            "expected": [_subject, _subject]}}) + "\\n").encode())
os.write(__main__.OUT, (json.dumps({{"r": "end", "test": {test!r}, "how": "ok"}}) + "\\n").encode())
'''


PATCH_NUMPY = '''
import numpy, sys
if not getattr(numpy, "_patched", False):
    numpy._patched = True
    numpy.allclose = lambda *args, **kwargs: True
    numpy.array_equal = lambda *args, **kwargs: True
    numpy.isclose = lambda *args, **kwargs: True
    if "torch" in sys.modules:  # PyTorch, where the tests compare with it (importing it here costs seconds)
        sys.modules["torch"].allclose = sys.modules["torch"].equal = lambda *args, **kwargs: True
'''


def guarded(patch):
    """A patch run by ``Linear.forward`` once per process, before its wrong answer."""
    return "if not getattr(Linear, '_attacked', False):\n    Linear._attacked = True\n" + \
        textwrap.indent(textwrap.dedent(patch).strip("\n"), "    ")


def submissions():
    """``{id: (linear.forward body, walking-ex3 code, control id)}``."""
    linear_test = "test_linear_forward::test_wrong_input_size"
    linear_check = f"{check_line('tests/course/tasks/test_linear_forward.py', 'assert not isinstance')}.0"
    cell = exercise_cell()
    exercise_checks = [f"{EXERCISE}/v0:{check_line(None, text, cell)}.0"
                       for text in ("assert not any", "assert list(net.buffers())")]
    return {
        "s201": (body(NOT_DONE), LEAVE_THE_BATCHNORMS, None),
        "s202": (body(guarded(PATCH_BUILTINS) + "\n" + NOT_DONE),
                 textwrap.dedent(PATCH_BUILTINS) + LEAVE_THE_BATCHNORMS, "s201"),
        "s203": (body(guarded(replace_the_probe([linear_check])) + "\n" + NOT_DONE),
                 textwrap.dedent(replace_the_probe(exercise_checks)) + LEAVE_THE_BATCHNORMS, "s201"),
        "s204": (body(guarded(forge_records(linear_test, [linear_check])) + "\n" + NOT_DONE),
                 textwrap.dedent(forge_records(EXERCISE, exercise_checks)) + LEAVE_THE_BATCHNORMS, "s201"),
        "s205": (body(WRONG_VALUES), LEAVE_THE_BATCHNORMS, None),
        "s206": (body(guarded(PATCH_NUMPY) + "\n" + WRONG_VALUES),
                 textwrap.dedent(PATCH_NUMPY) + LEAVE_THE_BATCHNORMS, "s205"),
    }


@pytest.fixture(scope="module")
def attacked_class(student_edition, tmp_path_factory):
    found = {t.id: t for t in student.checked_tasks(ROOT)}
    folder = tmp_path_factory.mktemp("verdicts")
    cases = submissions()
    for name, (linear, exercise, _control) in cases.items():
        path = Path(shutil.copytree(student_edition, folder / "class" / name))
        student.write_answer(found[NNREF], path, [linear])
        student.write_answer(found[EXERCISE], path, [exercise])
    out = folder / "out"
    done = subprocess.run([sys.executable, "-m", "coursekit", "--root", str(ROOT), "grade", str(folder / "class"),
                           "--out", str(out), "--task", NNREF, "--task", EXERCISE, "--jobs", "2",
                           "--timeout", "6"], capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {r["id"]: r for r in csv.DictReader(open(out / "gradebook.csv", newline=""))}
    return {"rows": rows, "cases": cases, "folder": folder, "found": found}


def points(row):
    return float(row[NNREF]), float(row[EXERCISE])


def test_the_controls_are_wrong(attacked_class):
    """The honest-wrong answers lose points (so an attack that worked would show)."""
    rows = attacked_class["rows"]
    assert float(rows["s201"][NNREF]) == 0.0
    assert float(rows["s201"][EXERCISE]) < attacked_class["found"][EXERCISE].points  # 2 of its 3 checks fail
    assert float(rows["s205"][NNREF]) < attacked_class["found"][NNREF].points


@pytest.mark.parametrize("attack, what", [
    ("s202", "patched builtins: isinstance, any, all, len"),
    ("s203", "the runner's probe given a forger's __code__"),
    ("s204", "forged verdict records on the channel, before the real ones"),
    ("s206", "patched numpy.allclose, numpy.array_equal, numpy.isclose, torch.allclose, torch.equal"),
])
def test_an_attack_scores_what_its_control_scores(attacked_class, attack, what):
    rows, cases = attacked_class["rows"], attacked_class["cases"]
    control = cases[attack][2]
    assert points(rows[attack]) == points(rows[control]), what


def test_the_gradescope_step_scores_an_attack_as_its_control(attacked_class, tmp_path):
    scores = {}
    for name in ("s201", "s202", "s203"):
        results = tmp_path / f"{name}.json"
        done = subprocess.run([sys.executable, "-m", "coursekit", "--root", str(ROOT), "gradescope-run",
                               str(attacked_class["folder"] / "class" / name), str(results), "--timeout", "6"],
                              capture_output=True, text=True, timeout=900, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert done.returncode == 0, done.stderr[-2000:]
        data = json.loads(results.read_text())
        scores[name] = sorted((t["name"], t["score"]) for t in data["tests"])
    assert scores["s202"] == scores["s201"] and scores["s203"] == scores["s201"]

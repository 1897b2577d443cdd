"""No chapter exercise passes with an answer that only calls what it asks to rebuild (issue 27, item 3).

The defence: such an exercise's hidden tests call the answer with the built-in
taken away (``nnref._takeaway.without``).  The search
(``coursekit/exercise_twins.py``, ``python -m coursekit twins --kind chapter``)
builds, from every exercise's own checks, the answers that only forward to
what the checks compare the answer with, and grades them with the real grader
beside each exercise's reference solution.  Here: none may pass, through the
command line; the five exercises known to rebuild a built-in are among those
tried, each stopped by its takeaway test alone; with layers-ex2's takeaway
test taken out (the defence removed), the search finds its twin; and a
submission of the five, graded by the exported Gradescope autograder's step,
earns none of them whole.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile

import nbformat

from course_root import ROOT
from coursekit import exercise_twins, notebooks, student
from test_course_twins import course_copy

# The exercise, what its answer must not call, and the answer a student would write that only calls it
# (two of them hold the built-in captured before any test runs).
KNOWN = {
    "walking-ex2": (".named_modules(", "_walk = nn.Module.named_modules\n\n"
                                      "def my_named_modules(module, prefix='', memo=None, remove_duplicate=True):\n"
                                      "    return _walk(module, memo, prefix, remove_duplicate)"),
    "layers-ex2": ("F.linear(", "from functools import partial\n_linear = partial(F.linear)\n\n"
                                "def my_linear(x, weight, bias=None):\n    return _linear(x, weight, bias)"),
    "layers-ex3": ("F.conv2d(", "def conv2d_im2col(x, weight, bias, stride, padding):\n"
                               "    return F.conv2d(x, weight, bias, stride=stride, padding=padding)"),
    "data-ex2": ("DataLoader(", "def my_loader(dataset, batch_size, drop_last):\n"
                               "    return DataLoader(dataset, batch_size=batch_size, drop_last=drop_last)"),
    "tensors-ex5": ("torch.rand(", "def rand_like_torch(seed, n):\n"
                                  "    torch.manual_seed(seed)\n    return torch.rand(n).numpy()"),
}


def coursekit(*args, root=ROOT):
    return subprocess.run([sys.executable, "-m", "coursekit", "--root", str(root), *args], capture_output=True,
                          text=True, timeout=900, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def stopped_by_its_takeaway(candidate):
    """Every visible check passed; what failed is hidden, and failed because the built-in was taken away."""
    return candidate["status"] == "partial" and candidate["failed"] and all(
        t["hidden"] and t["why"].startswith("NotImplementedError: ") and
        f"is taken away while exercise {candidate['task']} is checked" in t["why"] for t in candidate["failed"])


def test_no_exercise_passes_by_calling_what_it_rebuilds(tmp_path):
    start = time.monotonic()
    done = coursekit("twins", "--kind", "chapter", "--timeout", "6", "--json", str(tmp_path / "twins.json"))
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    tried = json.loads((tmp_path / "twins.json").read_text())["chapter"]
    print(f"{len(tried)} answers of {len({t['task'] for t in tried})} exercises graded in {seconds:.0f} s")
    assert not [t for t in tried if t["status"] == "passed" and t["label"] != exercise_twins.CONTROL]
    controls = {t["task"]: t for t in tried if t["label"] == exercise_twins.CONTROL}
    assert set(controls) == {t["task"] for t in tried}
    assert all(t["status"] == "passed" and t["points"] == t["max_points"] for t in controls.values()), controls
    for task_id, (builtin, _answer) in KNOWN.items():
        calls = [t for t in tried if t["task"] == task_id and builtin in (t["answer"] or "")]
        assert calls and all(t["points"] < t["max_points"] for t in calls), (task_id, calls)
        assert any(stopped_by_its_takeaway(t) for t in calls), (task_id, calls)


def test_without_its_takeaway_test_an_exercise_has_a_twin(tmp_path):
    """The defence removed: layers-ex2's takeaway test taken out, the search finds my_linear calling F.linear."""
    root = course_copy(tmp_path / "course")
    path = root / "book" / "13_layers_functional.ipynb"
    notebook = nbformat.read(path, as_version=4)
    exercise = next(e for e in notebooks.exercises(notebook)[0] if e.label == "layers-ex2")
    takeaway = [i for i in exercise.code_cells if 'without("layers-ex2"' in notebook.cells[i].source]
    assert len(takeaway) == 1
    del notebook.cells[takeaway[0]]
    nbformat.write(notebook, path)
    done = coursekit("twins", "--kind", "chapter", "--task", "layers-ex2", "--timeout", "6",
                     "--json", str(tmp_path / "twins.json"), root=root)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    tried = json.loads((tmp_path / "twins.json").read_text())["chapter"]
    found = [t["label"] for t in tried if t["status"] == "passed" and t["label"] != exercise_twins.CONTROL]
    assert found == ["my_linear returns F.linear(x, weight, bias)"], tried
    assert "twin: layers-ex2 passes with an answer that only calls what it rebuilds" in done.stdout


def test_gradescope_grades_the_known_twins_down(student_edition, tmp_path):
    """A submission of the five answers that only call the built-in, graded by the exported autograder's step
    (``run_autograder``'s command, on the course as the export zip holds it)."""
    found = {t.id: t for t in student.checked_tasks(ROOT)}
    submission = tmp_path / "submission"  # the four notebooks only: the other tasks are missing, not graded
    for path in ["course.json"] + sorted({found[task_id].path for task_id in KNOWN}):
        (submission / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(student_edition / path, submission / path)
    for task_id, (_builtin, answer) in KNOWN.items():
        student.write_answer(found[task_id], submission, [answer])
    assert coursekit("export-gradescope", str(tmp_path / "autograder.zip")).returncode == 0
    source = tmp_path / "source"
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        archive.extractall(source)
    assert (source / "nnref" / "_takeaway.py").is_file()
    results = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "coursekit", "gradescope-run", str(submission), str(results),
                           "--timeout", "6"], capture_output=True, text=True, timeout=900, cwd=source,
                          env=dict(os.environ, COURSEKIT_ROOT=str(source), PYTHONPATH=str(source)))
    assert done.returncode == 0, done.stderr[-3000:]
    scores = {t["name"]: t for t in json.loads(results.read_text())["tests"]}
    for task_id in KNOWN:
        # the visible checks pass (part of the points, no failure listed), a hidden one does not
        assert 0 < scores[task_id]["score"] < scores[task_id]["max_score"], scores[task_id]
        counted = re.fullmatch(r"partial: - hidden tests: (\d+) of (\d+) passed", scores[task_id]["output"])
        assert counted and int(counted[1]) < int(counted[2]), scores[task_id]

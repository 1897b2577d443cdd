"""Every chapter exercise can be attempted (book/AUTHORING.md, "Exercises"): the task, the
learner's cell, a one-line self-check, then the solution collapsed; and the self-check,
run for real in a kernel, fails on an unsolved or wrong answer and passes on the solution."""
import ast
import json
import re
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from coursekit import notebooks  # noqa: E402
from coursekit.markers import SOLUTION, find_regions  # noqa: E402
from nnref._exercise import _REGION, verdict  # noqa: E402

CHAPTERS = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
CLOSING = re.compile(r"^(`{3,})\{solution-end\}[ \t]*\n\1[ \t]*$", re.M)
ONLY_DIRECTIVE = re.compile(r"\s*(`{3,})\{solution-(start|end)\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*\s*\1\s*")


def self_check_line(label):
    return f'from nnref._exercise import check; check("{label}")'


def _tags(cell):
    return cell.metadata.get("tags", [])


def _setup_and_bodies(notebook, exercise):
    """The setup before the first solution region, and the solution regions' bodies (dedented)."""
    first = notebook.cells[exercise.code_cells[0]].source
    regions = find_regions(first)
    setup = "\n".join(first.splitlines()[:regions[0].begin]).strip() if regions else ""
    bodies = []
    for index in exercise.code_cells:
        lines = notebook.cells[index].source.splitlines()
        bodies += [textwrap.dedent("\n".join(r.body(lines))) for r in find_regions(notebook.cells[index].source)
                   if r.kind == SOLUTION]
    return setup, bodies


def answer_names(notebook, exercise):
    """The names the solution defines at top level that the exercise's checks read."""
    setup, bodies = _setup_and_bodies(notebook, exercise)
    defined = []
    for body in bodies:
        for node in ast.parse(body).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.append(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    defined += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    code = "\n".join(notebook.cells[i].source for i in exercise.code_cells)[len(setup):]
    tree = ast.parse(_REGION.sub("", code.strip("\n")))
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    written = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return [name for name in dict.fromkeys(defined) if name in read and name not in written]


def _exercises(path):
    notebook = nbformat.read(path, as_version=4)
    found, problems = notebooks.exercises(notebook)
    assert not problems, problems
    return notebook, found


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_exercise_has_task_learner_cell_self_check_then_collapsed_solution(path):
    notebook, found = _exercises(path)
    assert found, f"{path.name} has no exercises"
    for exercise in found:
        label, cells = exercise.label, notebook.cells
        between = cells[exercise.cell + 1:exercise.solution_cell]
        assert [(c.cell_type, _tags(c)) for c in between] == [
            ("code", ["exercise-answer"]), ("code", ["nnref-only", "exercise-check"])], \
            f"{label}: the task must be followed by the learner's cell and the self-check, then the solution"
        learner, check = between
        assert check.source == self_check_line(label), f"{label}: the self-check is one line"
        setup, _bodies = _setup_and_bodies(notebook, exercise)
        assert learner.source.startswith(setup), f"{label}: the learner's cell starts with the exercise's setup"
        assert not find_regions(learner.source), f"{label}: the learner's cell holds no solution"
        # The solution: a dropdown on the site; in JupyterLab, collapsed cells after the learner's cell.
        opening = cells[exercise.solution_cell].source
        assert ONLY_DIRECTIVE.fullmatch(opening) and ":class: dropdown" in opening, \
            f"{label}: the solution-start cell holds the dropdown directive only"
        for index in exercise.code_cells:
            meta = cells[index].metadata
            assert meta.get("jupyter", {}).get("source_hidden") is True and meta.get("collapsed") is True, \
                f"{label}: solution cell {index} is not collapsed in JupyterLab"
            # JupyterLab shows a collapsed cell's first line: the setup's or the solution marker
            regions = find_regions(cells[index].source)
            assert not regions or regions[0].begin > 0 or regions[0].kind != SOLUTION or \
                cells[index].source.startswith("### BEGIN SOLUTION"), f"{label}: cell {index} shows its solution"
        # Then the closing directive: after the explanation, in a collapsed cell; else at the top of
        # the next markdown cell (a cell of nothing but a closing directive renders empty in JupyterLab).
        closing = cells[exercise.code_cells[-1] + 1]
        explanation = CLOSING.split(closing.source)[0] if closing.cell_type == "markdown" else None
        assert explanation is not None and explanation != closing.source, \
            f"{label}: the cell after the solution must close it ({{solution-end}})"
        assert not explanation.strip() or (closing.metadata.get("jupyter", {}).get("source_hidden") is True
                                           and closing.source.startswith("*Explanation*\n")), \
            f"{label}: the solution's explanation is not collapsed in JupyterLab behind its first line, *Explanation*"
        # The task names what the checks read, as the self-check's messages name it.
        task = cells[exercise.cell].source
        unnamed = [name for name in answer_names(notebook, exercise) if f"`{name}`" not in task]
        assert not unnamed, f"{label}: the task does not name {unnamed}, which its checks read"


def test_the_self_check_says_what_is_wrong(tmp_path, monkeypatch):
    """On a notebook of its own: a missing name, a failing assert with its values, an error, a pass."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("```{exercise-start}\n:label: demo-ex\n```\nDefine `total`.\n"
                                      "```{exercise-end}\n```\n```{solution-start} demo-ex\n:class: dropdown\n```"),
        nbformat.v4.new_code_cell("base = [1, 2]\n### BEGIN SOLUTION\ntotal = sum(base)\n### END SOLUTION\n"
                                  "print(total)\nassert total == 3"),
        nbformat.v4.new_code_cell("### BEGIN HIDDEN TESTS\nassert total > 100\n### END HIDDEN TESTS"),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```"),
    ]
    nbformat.write(notebook, tmp_path / "demo.ipynb")
    monkeypatch.chdir(tmp_path)
    missing = verdict("demo-ex", {})
    assert missing[0].startswith("\u2717 demo-ex: `total` is not defined")
    wrong = verdict("demo-ex", {"total": 4, "base": [1, 2]})
    assert wrong == ["\u2717 demo-ex: this check fails on your answer:", "    assert total == 3",
                     "    where total is 4"]
    broken = verdict("demo-ex", {"total": None})
    assert broken[0] == "\u2717 demo-ex: checking your answer raised TypeError:" or \
        broken[0].startswith("\u2717 demo-ex: this check fails")
    # the setup before the first region is the learner's: the checks do not redefine base
    assert verdict("demo-ex", {"total": 3}) == ["\u2713 demo-ex: your answer passes the exercise's checks."]
    assert verdict("no-such-ex", {})[0].startswith("\u2717 no notebook in")


# What runs in the kernel after each exercise's self-check: the unsolved verdict, then the
# learner's cell with the solution's code written into it, the verdict, and the verdicts with
# each name the checks read replaced by None and by an object() (wrong answers: one of the two
# is wrong whatever the right value is, a false one or a true one).
PROBE = """\
from nnref._exercise import verdict as __verdict
__report = {{"label": {label!r}, "unsolved": __verdict({label!r}, globals())}}
"""
SOLVE = """\
__report["solved"] = __verdict({label!r}, globals())
__report["wrong"] = {{name: [__verdict({label!r}, {{**globals(), name: wrong}})[0] for wrong in (None, object())]
                      for name in {names!r}}}
print("EXERCISE-REPORT " + __import__("json").dumps(__report))
"""


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_self_check_fails_unsolved_and_wrong_and_passes_on_the_solution(path, request):
    notebook, found = _exercises(path)
    # Under nbval in the same session (./dev.sh test) the probes ran in nbval's kernel, which
    # executes the chapter anyway (conftest.py at the root); on their own, in a kernel of their own.
    reports = getattr(request.config, PROBED, {}).get(path.resolve())
    if reports is None or [r["label"] for r in reports] != [e.label for e in found]:
        reports = probed_in_a_kernel_of_their_own(path, notebook, found)
    assert [r["label"] for r in reports] == [e.label for e in found]
    for report in reports:
        label = report["label"]
        assert "error" not in report, f"{label}: the solved answer or a verdict raised:\n{report['error']}"
        assert report["unsolved"][0].startswith(f"\u2717 {label}:"), report
        assert report["solved"] == [f"\u2713 {label}: your answer passes the exercise's checks."], report
        for name, said in report["wrong"].items():  # None, then an object(): one of them is wrong
            assert any(first.startswith(f"\u2717 {label}:") for first in said), (label, name, said)


def probed_in_a_kernel_of_their_own(path, notebook, found):
    """The chapter's code cells in a fresh kernel, with the probes after each self-check; their reports."""
    from nbclient import NotebookClient
    by_check = {}
    for exercise in found:
        setup, bodies = _setup_and_bodies(notebook, exercise)
        learner = notebook.cells[exercise.cell + 1].source
        solved = learner + "\n\n" + "\n\n".join(bodies)  # what a learner who solved it has written
        by_check[exercise.cell + 2] = [PROBE.format(label=exercise.label), solved,
                                       SOLVE.format(label=exercise.label, names=answer_names(notebook, exercise))]
    cells = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and "remove-cell" not in _tags(cell):
            cells.append(cell)
        cells += [nbformat.v4.new_code_cell(source) for source in by_check.get(index, [])]
    notebook.cells = cells
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return [json.loads(line.split(" ", 1)[1]) for cell in notebook.cells for output in cell.outputs
            if output.get("name") == "stdout" for line in output.text.splitlines()
            if line.startswith("EXERCISE-REPORT ")]


# The same probes in nbval's kernel, after the self-check cell nbval has just run: in a forked
# child of the kernel, so that the chapter's own state, whose outputs nbval goes on comparing with
# the stored ones, is left as it was (the solved answer retrains chapter 15's models, draws random
# numbers...).  The child writes its report to a file and says nothing on the kernel's channels.
PROBED = "_nnref_exercise_reports"  # the session's reports: {chapter path: [report, ...]}
IN_A_CHILD = """\
def __probe(label, solved, names, out, timeout):
    import contextlib, io, json, os, signal, time, traceback
    from nnref._exercise import verdict
    pid = os.fork()
    if pid == 0:
        try:
            get_ipython().display_pub.publish = lambda *args, **kwargs: None
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                namespace = globals()
                report = {"label": label, "unsolved": verdict(label, namespace)}
                exec(compile(solved, "<the solved answer of " + label + ">", "exec"), namespace)
                report["solved"] = verdict(label, namespace)
                report["wrong"] = {name: [verdict(label, {**namespace, name: wrong})[0] for wrong in (None, object())]
                                   for name in names}
        except BaseException:
            report = {"label": label, "error": traceback.format_exc()}
        try:
            with open(out, "w", encoding="utf-8") as file:
                json.dump(report, file)
        finally:
            os._exit(0)
    deadline = time.monotonic() + timeout
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            break
        time.sleep(0.02)
"""


def probe_in_nbval_kernel(item, timeout=600):
    """After nbval's item for a chapter's self-check cell: that exercise's probes, in its kernel."""
    import tempfile
    match = re.fullmatch(r'from nnref\._exercise import check; check\("([^"]+)"\)', item.cell.source)
    path = item.path.resolve()
    reports = getattr(item.config, PROBED, {})
    if match is None or path not in reports:
        return
    notebook, found = _exercises(path)
    exercise = next(e for e in found if e.label == match[1])
    _setup, bodies = _setup_and_bodies(notebook, exercise)
    solved = notebook.cells[exercise.cell + 1].source + "\n\n" + "\n\n".join(bodies)
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "report.json"
        kernel = item.parent.kernel
        call = (exercise.label, solved, answer_names(notebook, exercise), str(out), timeout)
        msg_id = kernel.execute_cell_input(f"{IN_A_CHILD}__probe{call!r}\ndel __probe\n", allow_stdin=False)
        kernel.await_reply(msg_id, timeout=timeout + 60)
        kernel.await_idle(msg_id, timeout=60)
        reports[path].append(json.loads(out.read_text(encoding="utf-8")) if out.exists() else
                             {"label": exercise.label, "error": f"no report within {timeout} s"})


def after_their_chapters(config, items):
    """``items`` with each chapter's probe test moved after that chapter's nbval items, whose kernel
    then runs the probes (probe_in_nbval_kernel); chapters not under nbval keep theirs."""
    tests = {}
    for item in items:
        if getattr(item, "originalname", None) == "test_self_check_fails_unsolved_and_wrong_and_passes_on_the_solution":
            tests[item.callspec.params["path"].resolve()] = item
    last = {}
    for item in items:
        if type(item).__name__ == "IPyNbCell" and item.path.resolve() in tests:
            last[item.path.resolve()] = item
    setattr(config, PROBED, {chapter: [] for chapter in last})
    moved = {id(tests[chapter]) for chapter in last}
    ordered = []
    for item in items:
        if id(item) not in moved:
            ordered.append(item)
        if type(item).__name__ == "IPyNbCell" and last.get(item.path.resolve()) is item:
            ordered.append(tests[item.path.resolve()])
    return ordered


def test_student_edition_self_check_runs_the_same_checks(tmp_path, monkeypatch):
    """The student edition keeps each exercise's checks (a raw cell) without any solution: the
    self-check there runs what it runs in the book, and fails on an unsolved exercise."""
    from nnref._exercise import checks_of
    for path in CHAPTERS:
        notebook, found = _exercises(path)
        (tmp_path / "reference").mkdir(exist_ok=True)
        (tmp_path / "student").mkdir(exist_ok=True)
        nbformat.write(notebook, tmp_path / "reference" / path.name)
        student = notebooks.student_notebook(notebook, path.name)
        nbformat.write(student, tmp_path / "student" / path.name)
        for exercise in found:
            monkeypatch.chdir(tmp_path / "reference")
            reference_checks, _ = checks_of(exercise.label)
            monkeypatch.chdir(tmp_path / "student")
            student_checks, _ = checks_of(exercise.label)
            assert student_checks.strip() == reference_checks.strip(), exercise.label
            assert verdict(exercise.label, {})[0].startswith(f"\u2717 {exercise.label}:")
        (tmp_path / "reference" / path.name).unlink()
        (tmp_path / "student" / path.name).unlink()

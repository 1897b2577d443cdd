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


def checks_only_source(notebook, exercise, index):
    """Solution cell ``index`` of ``exercise`` without its solution regions, and (the first) without
    the setup before them, which the learner's cell starts with."""
    lines = notebook.cells[index].source.splitlines()
    regions = [r for r in find_regions(notebook.cells[index].source) if r.kind == SOLUTION]
    assert all(not r.indent for r in regions), f"{exercise.label}: a solution region inside a block"
    dropped = {n for r in regions for n in range(r.begin, r.end + 1)}
    if index == exercise.code_cells[0] and regions:
        dropped |= set(range(regions[0].begin))
    return "\n".join(line for n, line in enumerate(lines) if n not in dropped)


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_self_check_fails_unsolved_and_wrong_and_passes_on_the_solution(path):
    from nbclient import NotebookClient
    notebook, found = _exercises(path)
    by_check = {}
    for exercise in found:
        setup, bodies = _setup_and_bodies(notebook, exercise)
        learner = notebook.cells[exercise.cell + 1].source
        solved = learner + "\n\n" + "\n\n".join(bodies)  # what a learner who solved it has written
        by_check[exercise.cell + 2] = [PROBE.format(label=exercise.label), solved,
                                       SOLVE.format(label=exercise.label, names=answer_names(notebook, exercise))]
    # The solved answer has just run the solution's code: its cells then run only what is not the
    # solution's (the checks, and what else they hold), so that no exercise trains its model twice.
    checks_only = {index: checks_only_source(notebook, exercise, index)
                   for exercise in found for index in exercise.code_cells}
    cells = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and "remove-cell" not in _tags(cell):
            cells.append(nbformat.v4.new_code_cell(checks_only[index]) if index in checks_only else cell)
        cells += [nbformat.v4.new_code_cell(source) for source in by_check.get(index, [])]
    notebook.cells = cells
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    reports = [json.loads(line.split(" ", 1)[1]) for cell in notebook.cells for output in cell.outputs
               if output.get("name") == "stdout" for line in output.text.splitlines()
               if line.startswith("EXERCISE-REPORT ")]
    assert [r["label"] for r in reports] == [e.label for e in found]
    for report in reports:
        label = report["label"]
        assert report["unsolved"][0].startswith(f"\u2717 {label}:"), report
        assert report["solved"] == [f"\u2713 {label}: your answer passes the exercise's checks."], report
        for name, said in report["wrong"].items():  # None, then an object(): one of them is wrong
            assert any(first.startswith(f"\u2717 {label}:") for first in said), (label, name, said)


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

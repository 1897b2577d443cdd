"""The exercises of a chapter notebook, and the notebook's student version.

Chapters write exercises with sphinx-exercise's gated directives, in markdown
cells (see book/AUTHORING.md)::

    ```{exercise-start}
    :label: walking-ex2
    ```
    question ...
    ```{exercise-end}
    ```
    <code cell tagged exercise-answer: the learner's cell>
    <code cell tagged exercise-check: the self-check, nnref._exercise.check("walking-ex2")>
    ```{solution-start} walking-ex2
    :class: dropdown
    ```
    <code cells: the solution, between SOLUTION markers, then visible asserts;
     optionally a cell of HIDDEN TESTS>
    <markdown: the explanation of the solution>
    ```{solution-end}
    ```

Several directives may share one markdown cell.  An exercise is one task
of the course; its id is the exercise's label.  The student edition puts its
stubs in the learner's cell and keeps the checks, the solution cells without
their solution, as a raw cell the self-check reads (book/AUTHORING.md).
"""
import ast
import copy
import re
import textwrap
from dataclasses import dataclass, field

from . import parsing
from .markers import (HIDDEN_TESTS, SOLUTION, YOUR_CODE, find_regions, replace_regions, stub_lines,
                      strip_reference_markers)

DIRECTIVE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>exercise-start|exercise-end|solution-start|"
                       r"solution-end|exercise|solution)\}[ \t]*(?P<argument>\S*)")
ASSERT = re.compile(r"^\s*assert\b", re.M)
ANSWER_TAG = "exercise-answer"  # the learner's cell, between the task and its self-check


@dataclass
class Exercise:
    """One exercise of a notebook and the cells of its solution."""

    label: str
    cell: int                       # the markdown cell that opens the exercise
    solution_cell: int = None       # the markdown cell that opens its solution
    code_cells: list = field(default_factory=list)  # code cells inside the solution block
    answer_cells: list = field(default_factory=list)  # the learner's cells: before the solution, tagged
    closed: bool = False            # the solution block has its solution-end


def _directives(source):
    """``(line_index, name, argument, options, closing_line_index)`` for each directive fence."""
    lines = source.splitlines()
    found, i = [], 0
    while i < len(lines):
        match = DIRECTIVE.match(lines[i].strip())
        if not match:
            i += 1
            continue
        fence, options, j = match["fence"], {}, i + 1
        while j < len(lines) and lines[j].strip() != fence:
            key = re.match(r"^:(\w[\w-]*):\s*(.*)$", lines[j].strip())
            if key:
                options[key[1]] = key[2].strip()
            j += 1
        found.append((i, match["name"], match["argument"], options, j))
        i = j + 1
    return found


def _walk(notebook):
    """Go through the cells in order, tracking which solution block each line or cell is in.

    Yields ``(cell_index, cell, events, inside)``: ``events`` are the
    directives of a markdown cell; ``inside`` is, for a markdown cell, the
    set of its line indexes that lie inside a solution block, and for a
    code cell the label of the solution block it is in (or None).
    """
    current = None  # label of the open solution block
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "markdown":
            yield index, cell, [], current
            continue
        events = _directives(cell.source)
        inside, position = set(), 0
        for line, name, argument, options, closing in events:
            if current is not None:
                inside.update(range(position, line))
            if name == "solution-start":
                current = argument or None
            elif name == "solution-end":
                current = None
            position = closing + 1
        if current is not None:
            inside.update(range(position, len(cell.source.splitlines())))
        yield index, cell, events, inside


def exercises(notebook):
    """The notebook's exercises, in order (and a list of structural problems found)."""
    found, problems, by_label = [], [], {}
    for index, cell, events, inside in _walk(notebook):
        if cell.cell_type == "code":
            if inside is not None and inside in by_label:
                by_label[inside].code_cells.append(index)
            elif found and found[-1].solution_cell is None and ANSWER_TAG in cell.metadata.get("tags", []):
                found[-1].answer_cells.append(index)
            continue
        for _line, name, argument, options, _closing in events:
            if name in ("exercise-start", "exercise"):
                label = options.get("label")
                if not label:
                    problems.append(f"cell {index}: an exercise without a :label:")
                    continue
                if label in by_label:
                    problems.append(f"cell {index}: exercise label {label!r} is used twice")
                    continue
                by_label[label] = Exercise(label, index)
                found.append(by_label[label])
            elif name in ("solution-start", "solution"):
                exercise = by_label.get(argument)
                if exercise is None:
                    problems.append(f"cell {index}: a solution for unknown exercise {argument!r}")
                elif name == "solution":
                    problems.append(f"cell {index}: the solution of {argument} is a plain {{solution}} "
                                    "directive; use solution-start/solution-end around code cells")
                else:
                    exercise.solution_cell = index
            elif name == "solution-end":
                for exercise in reversed(found):
                    if exercise.solution_cell is not None and not exercise.closed:
                        exercise.closed = True
                        break
    return found, problems


def only_hidden_tests(source):
    """True for cell code that is one HIDDEN TESTS region and nothing else."""
    try:
        regions = find_regions(source.strip())
    except ValueError:
        return False
    return (len(regions) == 1 and regions[0].kind == HIDDEN_TESTS and regions[0].begin == 0
            and regions[0].end == len(source.strip().splitlines()) - 1)


def solution_sources(notebook, exercise):
    """The sources of the code cells in the exercise's solution block."""
    return [notebook.cells[i].source for i in exercise.code_cells]


def count_asserts(source, where="cell"):
    """``(visible, hidden)``: assert lines outside solution regions, and inside hidden-test regions."""
    lines = source.splitlines()
    visible = hidden = 0
    skipped = set()
    for region in find_regions(source, where):
        body = range(region.begin, region.end + 1)
        skipped.update(body)
        if region.kind == HIDDEN_TESTS:
            hidden += sum(1 for i in body if ASSERT.match(lines[i]))
    visible = sum(1 for i, line in enumerate(lines) if i not in skipped and ASSERT.match(line))
    return visible, hidden


def _student_source(source, where):
    """Solution regions become stubs, hidden-test regions disappear."""
    def replace(region, _lines):
        if region.kind == SOLUTION:
            return stub_lines(region.indent)
        if region.kind == HIDDEN_TESTS:
            return []
        return None
    return replace_regions(source, replace, where)


# Where a listing that nnref._source.show_source printed names its file and lines: the first
# line of its text form ("# nnref/nn/modules/module.py, lines 854\u2013865 ...") or the <code>
# heading of its HTML form.
LISTING_HEADER = re.compile(r"(?:^# |<code>)(?P<file>nnref/[^\s,<]+), lines (?P<first>\d+)\u2013(?P<last>\d+)")


def shows_a_solution(text, solved_lines):
    """True when ``text`` (a stored output) is a listing of nnref source overlapping a solution.

    ``solved_lines`` maps an nnref file ("nnref/nn/modules/module.py") to the
    1-based line numbers of its SOLUTION regions (``tasks.solved_lines``).
    """
    for match in LISTING_HEADER.finditer(text):
        shown = range(int(match["first"]), int(match["last"]) + 1)
        if solved_lines.get(match["file"], set()).intersection(shown):
            return True
    return False


def _listing_shows(cell, solved_lines):
    for output in cell.get("outputs", []):
        for text in output.get("data", {}).values():
            if shows_a_solution(text if isinstance(text, str) else "".join(map(str, text)), solved_lines):
                return True
    return False


def student_notebook(notebook, name="notebook", solved_lines=None):
    """A copy of ``notebook`` for students.

    Solution code becomes ``# YOUR CODE HERE`` / ``raise NotImplementedError()``
    between YOUR CODE markers, in the learner's cell (tagged ``exercise-answer``)
    where the exercise has one, else in the solution cell; hidden tests go, the
    explanations inside solution blocks go.  The solution cells of an exercise
    with a learner's cell become its checks: a raw cell (run by the self-check,
    never by "Run All") without the solution or the setup before it, which the
    learner's cell starts with.  The cells left lose their stored outputs.
    So do the cells whose stored listing of nnref source shows a solution
    (``solved_lines``, see ``shows_a_solution``): run again, they list the
    student's own code.  Every other cell, outputs included, is unchanged.
    """
    notebook = copy.deepcopy(notebook)
    found, _problems = exercises(notebook)
    stubs = {}   # learner's cell -> the stubs of its exercise's solution regions
    checks = {}  # solution cell of an exercise with a learner's cell -> whether it is the first
    for exercise in found:
        if not exercise.answer_cells:
            continue
        regions = [region for index in exercise.code_cells
                   for region in find_regions(notebook.cells[index].source, f"{name} cell {index}")
                   if region.kind == SOLUTION]
        stubs[exercise.answer_cells[-1]] = [line for _region in regions for line in stub_lines("")]
        checks.update({index: k == 0 for k, index in enumerate(exercise.code_cells)})
    cells = []
    for index, cell, _events, inside in _walk(notebook):
        if cell.cell_type == "code" and _listing_shows(cell, solved_lines or {}):
            cell.outputs = []
            cell.execution_count = None
        if cell.cell_type == "markdown":
            if inside:
                kept = [line for i, line in enumerate(cell.source.splitlines()) if i not in inside]
                cell.source = "\n".join(kept).strip("\n")
                if not cell.source.strip():
                    continue
        elif index in stubs:
            cell.source = "\n".join([cell.source.rstrip("\n"), "", *stubs[index]])
        elif index in checks:
            source = cell.source
            if checks[index]:  # the setup before the first region is the learner's cell's start
                regions = find_regions(source, f"{name} cell {index}")
                source = "\n".join(source.splitlines()[regions[0].begin:]) if regions else source
            source = replace_regions(source, lambda region, _lines: [], f"{name} cell {index}").strip("\n")
            if source.strip():
                cells.append(_raw_cell(source, cell))
            continue
        elif cell.cell_type == "code" and inside is not None:
            cell.source = _student_source(cell.source, f"{name} cell {index}").rstrip("\n")
            if not cell.source.strip():
                continue  # a cell that held only hidden tests
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    notebook.cells = cells
    return notebook


def _raw_cell(source, like):
    """A raw cell holding ``source``, with the id of the cell ``like`` it replaces (if cells have ids)."""
    raw = {"cell_type": "raw", "metadata": {}, "source": source}
    if "id" in like:
        raw["id"] = like["id"]
    return type(like)(raw)


def student_code(notebook, label, where="notebook"):
    """The student's code for exercise ``label``: the YOUR CODE bodies of its learner's and solution cells, in order.

    None when the notebook has no such exercise any more.
    """
    found, _problems = exercises(notebook)
    exercise = next((e for e in found if e.label == label), None)
    if exercise is None:
        return None
    bodies = []
    for index in exercise.answer_cells + exercise.code_cells:
        source = notebook.cells[index].source
        lines = source.splitlines()
        bodies += ["\n".join(r.body(lines)) for r in find_regions(source, f"{where} cell {index}")
                   if r.kind == YOUR_CODE]
    return bodies


def fill_solutions(sources, bodies, where="solution"):
    """The solution cells with their SOLUTION regions replaced, in order, by ``bodies``.

    Each body goes in as written (the student's indentation); the markers go.
    """
    bodies = list(bodies)

    def replace(region, _lines):
        if region.kind != SOLUTION:
            return None
        return bodies.pop(0).split("\n") if bodies else []

    return [replace_regions(source, replace, f"{where} cell {k + 1}") for k, source in enumerate(sources)]


def count_solution_regions(sources, where="solution"):
    return sum(1 for k, source in enumerate(sources)
               for region in find_regions(source, f"{where} cell {k + 1}") if region.kind == SOLUTION)


# -- proposing markers for a chapter written without them ------------------------------------------
def _kind(statement):
    """'test' (an assert, or a block of nothing but asserts and prints), 'print', or 'code'."""
    if isinstance(statement, ast.Assert):
        return "test"
    if (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name) and statement.value.func.id == "print"):
        return "print"
    if isinstance(statement, (ast.For, ast.While, ast.If, ast.With)):
        kinds = [_kind(s) for s in statement.body + statement.orelse
                 if not isinstance(s, ast.Pass)] if not isinstance(statement, ast.With) else \
            [_kind(s) for s in statement.body]
        if kinds and "code" not in kinds and "test" in kinds:
            return "test"
    return "code"


def propose_markers(source):
    """``source`` with SOLUTION markers around its code, leaving the asserts out.

    Top-level statements are read in order: a run of code (with the prints
    that follow it) up to the next assert, or block of asserts, becomes one
    solution region; the asserts stay visible.  A heuristic: read the
    result, and move a marker where the exercise asks for less (a helper the
    tests use, the setup of a check).
    """
    tree = parsing.parse(source)
    lines = source.splitlines()
    spans, current = [], None
    for statement in tree.body:
        kind = _kind(statement)
        first = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", [])])
        if kind == "test":
            current = None
        elif kind == "code" or current is not None:
            if current is None:
                current = [first, statement.end_lineno]
                spans.append(current)
            current[1] = statement.end_lineno
    for span in spans:  # comments right above a region belong to it
        while span[0] > 1 and lines[span[0] - 2].lstrip().startswith("#"):
            span[0] -= 1
    for begin, end in reversed(spans):
        lines[end:end] = [f"### END {SOLUTION}"]
        lines[begin - 1:begin - 1] = [f"### BEGIN {SOLUTION}"]
    return "\n".join(lines)


def mark_notebook(notebook):
    """Propose markers for every unmarked solution cell; returns the labels of the cells changed."""
    changed = []
    found, _problems = exercises(notebook)
    for exercise in found:
        for index in exercise.code_cells:
            cell = notebook.cells[index]
            if find_regions(cell.source):
                continue
            proposed = propose_markers(cell.source)
            if proposed != cell.source:
                cell.source = proposed
                changed.append((exercise.label, index))
    return changed


def reference_notebook(notebook):
    """A copy of ``notebook`` as the reference book offers it for download: markers and hidden tests gone."""
    notebook = copy.deepcopy(notebook)
    cells = []
    for cell in notebook.cells:
        if cell.cell_type == "code" and "###" in cell.source:
            if only_hidden_tests(cell.source):
                continue
            cell.source = strip_reference_markers(cell.source)
        cells.append(cell)
    notebook.cells = cells
    return notebook


class _Node(dict):
    """A notebook's JSON object, read as nbformat's ``NotebookNode`` is (``cell.source``)."""
    __getattr__ = dict.get


def parse_notebooks_child():
    """In the limited child of ``student.notebook_answers``: the request on stdin, ``{where: {label: bodies}}`` out.

    Plain ``json`` (nbformat's import and schema validation cost seconds): a
    version 4 notebook's cells, their multi-line sources joined as nbformat does.
    """
    import json
    import sys
    answers = {}
    for path, labels, where in json.loads(sys.stdin.read()):
        with open(path, encoding="utf-8") as f:
            notebook = json.load(f, object_hook=_Node)
        if not isinstance(notebook, dict) or notebook.get("nbformat") != 4 or \
                not isinstance(notebook.get("cells"), list):
            raise ValueError("not a Jupyter notebook (version 4)")
        for cell in notebook.cells:
            if not isinstance(cell, dict):
                raise ValueError("a cell is not a JSON object")
            if isinstance(cell.get("source"), list):
                cell["source"] = "".join(str(line) for line in cell["source"])
            if not isinstance(cell.get("source", ""), str):
                raise ValueError("a cell's source is not text")
        answers[where] = {label: student_code(notebook, label, where) for label in labels}
    json.dump(answers, sys.stdout)


# -- names across exercises ----------------------------------------------------------------------------
def _tree(source, where):
    """A cell's AST, IPython's magics rewritten as Jupyter runs them; None if it does not parse."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        source = TransformerManager().transform_cell(source)
    except ImportError:
        pass
    try:
        return parsing.parse(source, where)
    except SyntaxError:
        return None


def _bound(tree):
    """Every name the code binds, at any level (an over-approximation: it only hides problems)."""
    names = set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _used(tree):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} \
        if tree is not None else set()


def cross_exercise_names(notebook, where="notebook"):
    """Names that an exercise's given code uses and only a *later* exercise's solution defines.

    The grader runs each exercise's given code with the student's code in
    place of the solution, after the reference's definitions of every earlier
    exercise (``grader.chapter_units``); a name that only a later solution
    defines would be missing there, whatever the student did.  Returns
    ``"LABEL uses NAME, which only the solution of OTHER defines (later)"`` lines.
    """
    import builtins
    found, _problems = exercises(notebook)
    in_exercise = {i for e in found for i in e.code_cells}
    public, given, solution = set(dir(builtins)) | {"__name__", "__file__", "display", "get_ipython"}, {}, {}
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and index not in in_exercise:
            public |= _bound(_tree(cell.source, f"{where} cell {index}"))
    for exercise in found:
        given[exercise.label], solution[exercise.label] = set(), set()
        for index in exercise.code_cells:
            source = notebook.cells[index].source
            regions = [r for r in find_regions(source, f"{where} cell {index}") if r.kind == SOLUTION]
            lines = source.split("\n")
            for region in regions:
                solution[exercise.label] |= _bound(_tree(textwrap.dedent("\n".join(region.body(lines))),
                                                         f"{where} cell {index}"))
            tree = _tree(_student_source(source, f"{where} cell {index}"), f"{where} cell {index}")
            given[exercise.label] = given[exercise.label] | {("use", n) for n in _used(tree)} | \
                {("bind", n) for n in _bound(tree)}
    problems = []
    order = [e.label for e in found]
    for k, label in enumerate(order):
        bound_here = {n for kind, n in given[label] if kind == "bind"} | solution[label]
        bound_given = {n for other in order for kind, n in given[other] if kind == "bind"}
        for name in sorted(n for kind, n in given[label] if kind == "use"):
            if name in public or name in bound_here or name in bound_given:
                continue
            earlier = [o for o in order[:k] if name in solution[o]]
            later = [o for o in order[k + 1:] if name in solution[o]]
            if later and not earlier:
                problems.append(f"{label} uses {name}, which only the solution of {later[0]} defines (later)")
    return problems


"""The chapters' self-check: ``check("tensors-ex1")`` under a learner's answer.

Not a PyTorch name (hence the underscore): a reading aid of the course, like
``nnref._source``.  An exercise's checks are written once, in the chapter: the
``assert``s of its solution cells, outside the solution markers
(coursekit/markers.py, book/AUTHORING.md).  The autograder (coursekit)
grades with them; ``check`` runs them on what the learner's own cell defined,
so it reads the chapter notebook itself: the one JupyterLab names, else the
one in the working folder (a kernel's is the notebook's) holding the label.
What the solution cells compute between the markers is left out, and so are
hidden tests and the setup before the first marker (the learner's cell starts
with it): the checks see the learner's variables, never the solution's.

It says which check failed and why in plain words, never with a traceback,
and raises nothing, so a chapter run top to bottom goes on past an unsolved
exercise.
"""
import ast
import contextlib
import io
import json
import os
import re
import sys
from pathlib import Path

# The regions the checks leave out: the solution, the instructor's hidden tests, and the
# student edition's stub (coursekit/markers.py writes these comments).
_REGION = re.compile(r"^[ \t]*### BEGIN (SOLUTION|HIDDEN TESTS|YOUR CODE)\b.*?^[ \t]*### END \1[ \t]*$\n?",
                     re.M | re.S)
_FIRST_MARKER = re.compile(r"^[ \t]*### BEGIN ", re.M)
_DIRECTIVE = r"^(?:`{3,}|:{3,})\{%s\}"


def _notebooks():
    """Where the chapter may be: the notebook this kernel runs (JupyterLab names it), then the working folder's."""
    session = os.environ.get("JPY_SESSION_NAME", "")
    if session.endswith(".ipynb") and Path(session).is_file():
        yield Path(session)
    for folder in (Path.cwd(), Path.cwd() / "book"):
        yield from sorted(folder.glob("*.ipynb"))


def _source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def checks_of(label):
    """``(checks, notebook)``: the code of exercise ``label``'s solution cells without its solution regions.

    Raises ``LookupError`` when no notebook within reach has that exercise.
    """
    start = re.compile((_DIRECTIVE % "solution-start") + r"[ \t]+" + re.escape(label) + r"[ \t]*$", re.M)
    end = re.compile(_DIRECTIVE % "solution-end", re.M)
    for path in _notebooks():
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for index, cell in enumerate(cells):
            if cell.get("cell_type") == "markdown" and start.search(_source(cell)):
                break
        else:
            continue
        code = []
        for cell in cells[index + 1:]:
            if cell.get("cell_type") == "markdown" and end.search(_source(cell)):
                break
            if cell.get("cell_type") in ("code", "raw"):  # the student edition keeps its checks as raw
                source = _source(cell)
                if not code:  # what comes before the first region is the setup the learner's cell starts with
                    first = _FIRST_MARKER.search(source)
                    source = source[first.start():] if first else source
                code.append(_REGION.sub("", source))
        return "\n".join(code), path
    raise LookupError(f"no notebook in {Path.cwd()} has exercise {label!r}: run the self-check in the "
                      "chapter's notebook, from its folder")


def _ipython(source):
    """The checks as Python (a ``%magic`` line becomes its call), when IPython is there to say how."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return source
    return TransformerManager().transform_cell(source)


def _line_of(error, filename, statement):
    """The line of ``statement`` (in the checks) at which ``error`` was raised: its innermost frame there."""
    line = statement.lineno
    trace = error.__traceback__
    while trace is not None:
        if (trace.tb_frame.f_code.co_filename == filename
                and statement.lineno <= trace.tb_lineno <= statement.end_lineno):
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def _innermost(error):
    """The file of the innermost frame ``error`` went through."""
    trace = error.__traceback__
    while trace.tb_next is not None:
        trace = trace.tb_next
    return trace.tb_frame.f_code.co_filename


def _raised(label, error, filename, statement, checks):
    line = _line_of(error, filename, statement)
    return [f"\u2717 {label}: checking your answer raised {type(error).__name__}:",
            f"    {error}", f"    in: {checks.splitlines()[line - 1].strip()}"]


def _explain_assert(statement, line, namespace):
    """What the failing ``assert`` at ``line`` compared: each side's value, as the namespace holds it."""
    failing = next((node for node in ast.walk(statement)
                    if isinstance(node, ast.Assert) and node.lineno <= line <= node.end_lineno), None)
    if failing is None:
        return []
    said = [f"    assert {ast.unparse(failing.test)}"]
    test = failing.test
    sides = [test.left, *test.comparators] if isinstance(test, ast.Compare) else []
    for side in sides:
        try:
            ast.literal_eval(side)
            continue  # a value written in the check says itself
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        try:
            value = eval(compile(ast.Expression(side), "<check>", "eval"), namespace)
        except Exception as err:  # noqa: BLE001 - the value is only reported
            value = f"<{type(err).__name__}: {err}>"
        text = repr(value)
        said.append(f"    where {ast.unparse(side)} is {text if len(text) <= 300 else text[:300] + '...'}")
    return said


def _verdict(label, checks, namespace):
    """The lines that say how the checks went, running them on ``namespace``."""
    filename = f"<checks of {label}>"
    checks = _ipython(checks)
    tree = ast.parse(checks, filename)
    asserts = sum(isinstance(node, ast.Assert) for node in ast.walk(tree))
    if not asserts:
        return [f"\u2717 {label}: the notebook has no checks for this exercise"]
    for statement in tree.body:
        code = compile(ast.Module([statement], type_ignores=[]), filename, "exec")
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # what the checks print is not the verdict
                exec(code, namespace)
        except NameError as err:
            if _innermost(err) == filename:  # a name the checks read, not one the learner's code misses
                return [f"\u2717 {label}: `{err.name}` is not defined.",
                        "    The exercise asks your cell to define it: write it in the cell above,",
                        "    run that cell, then this one."]
            return _raised(label, err, filename, statement, checks)
        except AssertionError as err:
            if _innermost(err) == filename:
                line = _line_of(err, filename, statement)
                return [f"\u2717 {label}: this check fails on your answer:",
                        *_explain_assert(statement, line, namespace)]
            return _raised(label, err, filename, statement, checks)
        except Exception as err:  # noqa: BLE001 - whatever the answer raises is reported, not raised
            return _raised(label, err, filename, statement, checks)
    return [f"\u2713 {label}: your answer passes the exercise's checks."]


def verdict(label, namespace):
    """The lines ``check`` prints: the first starts with \u2713 when every check passes, else with \u2717.

    The checks run on a copy of ``namespace``, so they add no names of their own to it.
    """
    try:
        checks, _path = checks_of(label)
    except LookupError as err:
        return [f"\u2717 {err}"]
    return _verdict(label, checks, dict(namespace))


def check(label):
    """Run exercise ``label``'s checks on the learner's variables (the notebook's) and print what is wrong."""
    print("\n".join(verdict(label, sys._getframe(1).f_globals)))

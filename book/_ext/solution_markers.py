"""The book's side of the solution markers (see coursekit/markers.py and book/instructors.md).

* Code the book shows from nnref's files (``literalinclude``) and notebook
  code cells lose their ``### BEGIN/END SOLUTION`` and ``### BEGIN/END
  HIDDEN TESTS`` lines; a notebook cell holding only hidden tests is not shown
  at all.  Code blocks written in a page (the instructor guide's examples) are
  left as they are.  ``viewcode`` pages of nnref's modules lose the lines too,
  and so do the notebooks offered for download.
* With sphinx-exercise's ``hide_solutions`` (the student site's config sets
  it), a gated solution disappears together with everything up to its
  ``solution-end``, code cells included; sphinx-exercise alone would leave
  those on the page.  So does a stored listing of nnref source that shows
  a task's solution (the chapters list nnref with ``show_source``).  The
  notebooks offered for download are then the student edition's.
* ``{task-map}`` renders the course's task map from the markers.
* Each exercise's title shows its id (``walking-ex2``): the task id the
  student edition, the grader's feedback and the gradebook use.
"""
import sys
from pathlib import Path

import nbformat
from docutils import nodes
from docutils.statemachine import StringList
from sphinx.pycode import ModuleAnalyzer
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective
from sphinx_exercise.directive import SolutionStartDirective
from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node, solution_end_node

# coursekit is the course repository's own tooling, next to book/ (it is not installed).
COURSE_ROOT = Path(__file__).resolve().parents[2]
if str(COURSE_ROOT) not in sys.path:
    sys.path.insert(0, str(COURSE_ROOT))

from coursekit import notebooks, tasks  # noqa: E402
from coursekit.markers import REFERENCE_MARKER_LINE, strip_reference_markers  # noqa: E402
from coursekit.notebooks import only_hidden_tests, reference_notebook, student_notebook  # noqa: E402


def _notebook_cell(node):
    """The MyST-NB code cell a literal block is the source of, if it is one."""
    parent = node.parent
    if isinstance(parent, nodes.container) and parent.get("nb_element") == "cell_code_source":
        cell = parent.parent
        if isinstance(cell, nodes.container) and cell.get("nb_element") == "cell_code":
            return cell
    return None


def drop_markers(app, doctree):
    for block in list(doctree.findall(nodes.literal_block)):
        text = block.astext()
        if not REFERENCE_MARKER_LINE.search(text):
            continue
        cell = _notebook_cell(block)
        if cell is None and not str(block.get("source", "")).endswith(".py"):
            continue  # a code block written in the page itself
        if cell is not None and only_hidden_tests(text):
            cell.parent.remove(cell)
            continue
        shown = strip_reference_markers(text)
        # rawsource must change too: Sphinx highlights a block only while it equals the text.
        block.rawsource = shown
        block.children = [nodes.Text(shown)]


def _solved_lines(app):
    """The lines of nnref's task solutions (``coursekit.tasks.solved_lines``), read once per build."""
    if not hasattr(app.env, "nnref_solved_lines"):
        root = Path(app.srcdir)
        found, _problems = tasks.discover(root)  # the test suite reports the problems
        app.env.nnref_solved_lines = tasks.solved_lines(root, found)
    return app.env.nnref_solved_lines


def hide_solution_listings(app, doctree):
    """On the student site: a cell's stored listing of nnref source that shows a solution goes.

    The reader runs the cell in their edition to list their own code instead.
    """
    if not app.config.hide_solutions:
        return
    for output in list(doctree.findall(lambda n: isinstance(n, nodes.container)
                                      and n.get("nb_element") == "cell_code_output")):
        if notebooks.shows_a_solution(output.astext(), _solved_lines(app)):
            note = nodes.paragraph(text="This listing shows the solution of a task: run the cell in "
                                        "your edition to list your own code.")
            output.replace_self(nodes.container("", note, classes=["cell_output"]))


def downloadable_notebooks(app, exception):
    """The notebooks the site offers for download: without markers, or the students' version."""
    if exception is not None or app.builder.format != "html":
        return
    for path in Path(app.outdir, "_sources").rglob("*.ipynb"):
        notebook = nbformat.read(path, as_version=4)
        if app.config.hide_solutions:
            notebook = student_notebook(notebook, path.name, _solved_lines(app))
        else:
            notebook = reference_notebook(notebook)
        nbformat.write(notebook, path)


def viewcode_source(app, modname):
    """nnref's modules as viewcode shows them: without the marker lines."""
    if not modname.startswith("nnref"):
        return None
    try:
        analyzer = ModuleAnalyzer.for_module(modname)
    except Exception:
        return None
    code = analyzer.code
    if not REFERENCE_MARKER_LINE.search(code):
        return None
    # viewcode asks once per documented object (the API reference documents hundreds of one
    # module's): parse each module's shown code once.
    if _SHOWN.get(modname, (None,))[0] != code:
        shown = ModuleAnalyzer.for_string(strip_reference_markers(code), modname)
        _SHOWN[modname] = code, (shown.code, shown.find_tags())
    return _SHOWN[modname][1]


_SHOWN = {}  # module name: (its code, what viewcode_source returns for it)


class hidden_solution(nodes.Element):
    """Where a solution started that ``hide_solutions`` removes (gone before writing)."""


class SolutionStart(SolutionStartDirective):
    """sphinx-exercise's ``solution-start``, leaving a mark for RemoveHiddenSolutions."""

    def run(self):
        result = super().run()
        if self.env.app.config.hide_solutions:
            return [hidden_solution()]
        return result


class RemoveHiddenSolutions(SphinxTransform):
    """Remove each hidden solution's content, from its start to its ``solution-end``."""

    default_priority = 5  # before sphinx-exercise merges the gated directives (10)

    def apply(self):
        for start in list(self.document.findall(hidden_solution)):
            siblings = start.parent.children
            index = siblings.index(start)
            end = next((i for i in range(index + 1, len(siblings))
                        if isinstance(siblings[i], solution_end_node)), index)
            for node in siblings[index:end + 1]:
                start.parent.remove(node)


class TaskMap(SphinxDirective):
    """The table of every task of the course (``python -m coursekit tasks`` prints the same)."""

    def run(self):
        root = Path(self.env.srcdir)
        found, _problems = tasks.discover(root)  # the test suite reports the problems
        for path in [*tasks.nnref_sources(root), *tasks.chapter_paths(root)]:
            self.env.note_dependency(str(path))
        table = nodes.container(classes=["task-map"])
        self.state.nested_parse(StringList(tasks.task_map(found).splitlines(), source="task-map"),
                                self.content_offset, table)
        return [table]


class ExerciseIds(SphinxPostTransform):
    """After sphinx-exercise has made the titles (priority 20): the exercise's id, next to its number."""

    default_priority = 25

    def run(self):
        for node in [*self.document.findall(exercise_enumerable_node), *self.document.findall(exercise_node)]:
            label = node.get("label", "")
            if not label or "-exercise-" in label or not node.children:  # no :label: given: no task id
                continue
            title = node.children[0]
            if isinstance(title, nodes.title) and "exercise-id" not in title.astext():
                title += nodes.Text(" ")
                title += nodes.literal(label, label, classes=["exercise-id"])


def setup(app):
    app.connect("doctree-read", drop_markers)
    app.connect("doctree-read", hide_solution_listings)
    app.connect("build-finished", downloadable_notebooks)
    if "viewcode-find-source" in app.events.events:  # with sphinx.ext.viewcode
        app.connect("viewcode-find-source", viewcode_source)
    app.add_node(hidden_solution)
    app.add_directive("solution-start", SolutionStart, override=True)
    app.add_transform(RemoveHiddenSolutions)
    app.add_directive("task-map", TaskMap)
    app.add_post_transform(ExerciseIds)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

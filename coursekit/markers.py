"""Solution markers: one source for the reference book, the student edition and the grader.

A marked region is the run of lines between two marker comments, nbgrader's
markers with optional ``key=value`` metadata after them::

    ### BEGIN SOLUTION task=module.named_modules points=2 chapter=07_walking_the_tree
    ...the reference code...
    ### END SOLUTION

    ### BEGIN HIDDEN TESTS
    ...asserts that the student edition leaves out...
    ### END HIDDEN TESTS

The reference build ignores the markers (they are comments, and the book's
``solution_markers`` Sphinx extension drops them from the rendered pages).
The student edition replaces each solution region by a stub between
``YOUR CODE`` markers, which is where the grader later finds the student's
code::

    ### BEGIN YOUR CODE task=module.named_modules
    # YOUR CODE HERE
    raise NotImplementedError()
    ### END YOUR CODE

Shipped code that does a task's work (a *twin*, coursekit/twins.py) is marked
``### BEGIN SOLUTION twin=TASK``; the student edition replaces it by an error
naming the exercise (``twin_stub_lines``), and so does the grader while it
grades that task.

Regions do not nest; a region's body keeps the indentation of the code
around it, and a stub takes the indentation of the ``BEGIN`` line.
"""
import re
from dataclasses import dataclass, field

SOLUTION = "SOLUTION"
HIDDEN_TESTS = "HIDDEN TESTS"
YOUR_CODE = "YOUR CODE"

MARKER = re.compile(
    r"^(?P<indent>[ \t]*)###[ \t]+(?P<edge>BEGIN|END)[ \t]+(?P<kind>SOLUTION|HIDDEN TESTS|YOUR CODE)"
    r"(?P<meta>(?:[ \t]+\S+)*)[ \t]*$")
# The lines the reference book hides: every SOLUTION and HIDDEN TESTS marker, with its newline.
REFERENCE_MARKER_LINE = re.compile(
    r"^[ \t]*###[ \t]+(?:BEGIN|END)[ \t]+(?:SOLUTION|HIDDEN TESTS)\b[^\n]*(?:\n|$)", re.M)

STUB_BODY = ("# YOUR CODE HERE", "raise NotImplementedError()")


class MarkerError(ValueError):
    """Markers that do not pair up, nest, or carry malformed metadata."""


@dataclass
class Region:
    """Lines ``begin`` (the BEGIN marker) to ``end`` (the END marker), 0-based, of one text."""

    kind: str
    begin: int
    end: int
    indent: str
    meta: dict = field(default_factory=dict)

    def body(self, lines):
        """The lines strictly between the two markers."""
        return lines[self.begin + 1:self.end]


def parse_marker(line):
    """``(edge, kind, indent, meta)`` if ``line`` is a marker comment, else None."""
    match = MARKER.match(line.rstrip("\n"))
    if not match:
        return None
    meta = {}
    for item in match["meta"].split():
        key, sep, value = item.partition("=")
        if not sep or not key.isidentifier() or not value:
            raise MarkerError(f"marker metadata must be key=value, not {item!r}: {line.strip()!r}")
        meta[key] = value
    return match["edge"], match["kind"], match["indent"], meta


def find_regions(text, where="text"):
    """Every marked region of ``text``, in order; ``where`` names the text in errors."""
    regions, open_region = [], None
    for number, line in enumerate(text.splitlines()):
        marker = parse_marker(line)
        if marker is None:
            continue
        edge, kind, indent, meta = marker
        if edge == "BEGIN":
            if open_region is not None:
                raise MarkerError(f"{where}, line {number + 1}: BEGIN {kind} inside an open "
                                  f"{open_region.kind} region (line {open_region.begin + 1})")
            open_region = Region(kind, number, -1, indent, meta)
        else:
            if open_region is None or open_region.kind != kind:
                raise MarkerError(f"{where}, line {number + 1}: END {kind} without a matching BEGIN")
            if meta:
                raise MarkerError(f"{where}, line {number + 1}: END markers take no metadata")
            open_region.end = number
            regions.append(open_region)
            open_region = None
    if open_region is not None:
        raise MarkerError(f"{where}, line {open_region.begin + 1}: BEGIN {open_region.kind} is never closed")
    return regions


def strip_reference_markers(text):
    """``text`` without its SOLUTION and HIDDEN TESTS marker lines (what the book shows)."""
    return REFERENCE_MARKER_LINE.sub("", text)


def stub_lines(indent, task=None):
    """The student's starting point for one region, between YOUR CODE markers."""
    tag = f" task={task}" if task else ""
    return ([f"{indent}### BEGIN {YOUR_CODE}{tag}"]
            + [indent + line for line in STUB_BODY]
            + [f"{indent}### END {YOUR_CODE}"])


def twin_stub_lines(indent, name, task, home=""):
    """What stands for a twin's body (``### BEGIN SOLUTION twin=TASK``, coursekit/twins.py) in the student
    edition, and in the grader's copy of nnref while it grades ``task``: an error naming the exercise."""
    message = (f"{name} is part of exercise {task}{f' ({home})' if home else ''}: the student edition "
               "leaves it out, as it leaves out the exercise's code")
    return [f"{indent}raise NotImplementedError({message!r})"]


def replace_regions(text, replace, where="text"):
    """Rebuild ``text`` with each region (markers included) swapped for ``replace(region, lines)``.

    ``replace`` returns the list of lines to put in the region's place, or
    None to leave the region as it is.
    """
    lines = text.splitlines()
    out, position = [], 0
    for region in find_regions(text, where):
        new = replace(region, lines)
        if new is None:
            continue
        out += lines[position:region.begin] + list(new)
        position = region.end + 1
    out += lines[position:]
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def your_code(text, task=None, where="text"):
    """The bodies of the YOUR CODE regions of ``text`` (those of ``task`` if given), in order."""
    lines = text.splitlines()
    return ["\n".join(r.body(lines)) for r in find_regions(text, where)
            if r.kind == YOUR_CODE and (task is None or r.meta.get("task") == task)]


def fill_your_code(text, bodies, task=None, where="text"):
    """``text`` with the bodies of its YOUR CODE regions (those of ``task``) replaced, in order.

    The markers stay, so the result is still a student's file the grader can read.
    """
    bodies = list(bodies)

    def replace(region, lines):
        if region.kind != YOUR_CODE or (task is not None and region.meta.get("task") != task):
            return None
        body = bodies.pop(0).split("\n") if bodies else []
        return [lines[region.begin], *body, lines[region.end]]

    return replace_regions(text, replace, where)

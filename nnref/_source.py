"""The book's listings: ``show_source(nnref.nn.Module.__init__)`` shows nnref's own code.

Not a PyTorch name (hence the underscore): a reading aid of the course, kept in
the package so that it works wherever ``import nnref`` does (the site's
executed chapters, JupyterLab from the repository, Colab after ``pip install``).
A chapter shows the source that is installed, so a listing can never drift
from the package.  The output has an HTML form (highlighted with Pygments when
it is installed, links to nnref's file and to the PyTorch source the module
mirrors, as named in its docstring) and a plain-text form for terminals and
front ends without HTML.
"""
import html
import inspect
import posixpath
import re
import textwrap
from pathlib import Path

PYTORCH = "https://github.com/pytorch/pytorch"
PYTORCH_RELEASE = "v2.13.0"
# The study notes cite torch/nn/modules/module.py at this commit, so its links keep
# the line numbers they quote.
MODULE_PY = "torch/nn/modules/module.py"
MODULE_PY_COMMIT = "270111b7b611d174967ed204776985cefca9c144"

_FULL = r"(?:torch|aten|c10|tools)/[\w./-]*[\w/]"
_BARE = r"\w+(?:/\w+)*\.(?:py|pyi|cpp|h|cu|yaml)\b"
_MENTION = re.compile(rf"(?<![\w/.])(?:{_FULL}|{_BARE})")
_ROOTS = ("torch/", "aten/", "c10/", "tools/")
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def pytorch_files(doc):
    """PyTorch paths a docstring names, and the bare file names it names without a folder.

    A bare name after a full path lives in that path's folder
    ("``torch/csrc/autograd/function.h`` ... ``saved_variable.cpp``").
    """
    paths, unplaced, folder = [], [], None
    for match in _MENTION.finditer(doc or ""):
        name = match.group(0)
        if name.startswith("nnref/"):  # nnref's own files, named beside PyTorch's
            continue
        if name.startswith(_ROOTS):
            folder = name.rstrip("/") if name.endswith("/") else posixpath.dirname(name)
        elif folder is not None:
            name = posixpath.join(folder, name)
        else:
            unplaced.append(name)
            continue
        if name not in paths:
            paths.append(name)
    return paths, unplaced


def pytorch_url(path):
    """The GitHub address of a PyTorch source path at the release the course follows."""
    if path == MODULE_PY:
        return f"{PYTORCH}/blob/{MODULE_PY_COMMIT}/{path}"
    kind = "tree" if path.endswith("/") else "blob"
    return f"{PYTORCH}/{kind}/{PYTORCH_RELEASE}/{path.rstrip('/')}"


# The course tooling (coursekit) marks the exercises' solutions in nnref's source with "###"
# comment lines (BEGIN or END, then the region's kind and its task): instructions to it, not
# part of the code a reader reads.
_COURSE_MARKER = re.compile(r"^[ \t]*###[ \t]+(?:BEGIN|END)[ \t]+(?:SOLUTION|HIDDEN TESTS)\b")


def _unwrap(obj):
    if isinstance(obj, property):
        return obj.fget
    if isinstance(obj, (staticmethod, classmethod)):
        return obj.__func__
    return inspect.unwrap(obj)


def _select(lines, start_at, end_at, end_before):
    """Cut the listing like Sphinx's literalinclude options of the same names."""
    first, last = 0, len(lines)
    if start_at is not None:
        first = next((i for i, line in enumerate(lines) if start_at in line), None)
        if first is None:
            raise ValueError(f"show_source: no line contains start_at={start_at!r}")
    for marker, extra in ((end_at, 1), (end_before, 0)):
        if marker is not None:
            found = next((i for i in range(first, len(lines)) if marker in lines[i]), None)
            if found is None:
                raise ValueError(f"show_source: no line after the start contains {marker!r}")
            last = found + extra
    return first, last


class Source:
    """A listing of nnref's code; Jupyter shows it through ``_repr_html_``."""

    def __init__(self, code, file, first_line, last_line, pytorch):
        self.code, self.file = code, file
        self.first_line, self.last_line = first_line, last_line
        self.pytorch = pytorch

    def _where(self):
        return f"{self.file}, lines {self.first_line}\u2013{self.last_line}"

    def __repr__(self):
        mirrors = f" (PyTorch: {', '.join(self.pytorch)})" if self.pytorch else ""
        return f"# {self._where()}{mirrors}\n{self.code}"

    def _repr_html_(self):
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer
            body = highlight(self.code, PythonLexer(), HtmlFormatter(noclasses=True, style="default"))
        except ImportError:
            body = f"<pre>{html.escape(self.code)}</pre>"
        links = ", ".join(f'<a href="{pytorch_url(p)}">{html.escape(p)}</a>' for p in self.pytorch)
        mirrors = f" &middot; PyTorch: {links}" if links else ""
        return (f'<div class="nnref-source"><div style="font-size: 0.85em; opacity: 0.8;">'
                f"<code>{html.escape(self._where())}</code>{mirrors}</div>{body}</div>")


def show_source(obj, *, start_at=None, end_at=None, end_before=None):
    """The source of ``obj`` (a module, class, function, method or property) as installed.

    ``start_at``/``end_at``/``end_before`` keep part of it: from the first line that
    contains ``start_at`` to the next line that contains ``end_at`` (included) or
    ``end_before`` (left out).
    """
    target = _unwrap(obj)
    try:
        lines, first_line = inspect.getsourcelines(target)
        path = Path(inspect.getsourcefile(target)).resolve()
    except (TypeError, OSError) as err:
        raise TypeError(f"show_source: no Python source for {obj!r} ({err})") from None
    first_line = max(first_line, 1)  # a module starts at line 0 for inspect
    first, last = _select(lines, start_at, end_at, end_before)
    shown = [line for line in lines[first:last] if not _COURSE_MARKER.match(line)]
    code = textwrap.dedent("".join(shown)).rstrip("\n")
    try:
        file = path.relative_to(_PACKAGE_ROOT).as_posix()
    except ValueError:
        file = path.name
    module = inspect.getmodule(target)
    own, _ = pytorch_files(inspect.getdoc(target) if not inspect.ismodule(target) else "")
    pytorch = own or pytorch_files(getattr(module, "__doc__", ""))[0][:1]
    return Source(code, file, first_line + first, first_line + last - 1, pytorch)

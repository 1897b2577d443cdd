"""The chapters' listings: show_source prints nnref's live source, and no chapter includes
nnref's files any other way (a {literalinclude} shows as raw text in JupyterLab)."""
import inspect
import re
from pathlib import Path

import pytest

import nnref
from nnref._source import pytorch_files, pytorch_url, show_source

BOOK = Path(__file__).resolve().parents[2] / "book"


def test_listing_is_the_installed_source_with_its_file_and_lines():
    listing = show_source(nnref.nn.Module.__init__)
    lines, first = inspect.getsourcelines(nnref.nn.Module.__init__)
    assert listing.file == "nnref/core/nn/modules/module.py"
    assert (listing.first_line, listing.last_line) == (first, first + len(lines) - 1)
    assert listing.code.splitlines()[0] == "def __init__(self, *args, **kwargs):"  # dedented
    assert repr(listing).startswith(f"# nnref/core/nn/modules/module.py, lines {first}\u2013")


def test_html_links_the_pytorch_file_the_module_names():
    html = show_source(nnref.nn.Module.__init__)._repr_html_()
    assert pytorch_url("torch/nn/modules/module.py") in html
    assert "270111b7b611d174967ed204776985cefca9c144" in html  # the commit the notes cite
    assert "<span" in html  # highlighted (Pygments is a dependency of the book)


def test_nnref_paths_beside_pytorch_ones_are_not_linked_as_pytorch_files():
    """A docstring that names PyTorch's file, then nnref's own (``nnref/nn/parameter.py``), links
    only PyTorch's: the bare names after a full path are in its folder, nnref's paths are not."""
    doc = ("``torch/nn/parameter.py`` ... the mirror's (``nnref/nn/parameter.py``) ... "
           "``torch/csrc/autograd/function.h`` and ``saved_variable.cpp``")
    assert pytorch_files(doc) == (["torch/nn/parameter.py", "torch/csrc/autograd/function.h",
                                   "torch/csrc/autograd/saved_variable.cpp"], [])
    for module in (nnref.core.nn.parameter, nnref.serialization):
        assert not [p for p in pytorch_files(module.__doc__)[0] if "nnref" in p], module.__name__


def test_parts_are_cut_like_literalinclude():
    listing = show_source(nnref.Tensor, start_at="def requires_grad(self):",
                          end_at="return self._requires_grad")
    assert listing.code.splitlines()[0] == "def requires_grad(self):"
    assert listing.code.splitlines()[-1].strip().startswith("return self._requires_grad")
    assert listing.last_line - listing.first_line + 1 == len(listing.code.splitlines())
    with pytest.raises(ValueError, match="no_such_marker"):
        show_source(nnref.Tensor, start_at="no_such_marker")


def test_properties_and_errors():
    assert "def requires_grad(self)" in show_source(nnref.Tensor.requires_grad).code
    with pytest.raises(TypeError, match="no Python source"):
        show_source(len)


@pytest.mark.parametrize("path", sorted(BOOK.glob("*.ipynb")), ids=lambda p: p.stem)
def test_chapters_show_nnref_source_with_code_cells(path):
    assert not re.search(r"\{literalinclude\}[^\n]*nnref", path.read_text()), (
        "use a code cell show_source(...) (see book/AUTHORING.md)")

"""The first cell of every chapter: install nnref and what the chapter needs, outside the repository.

A chapter opened on Colab, or anywhere nnref is not installed, starts with a cell that
installs nnref from the repository (``pip install "nnref[viz] @ git+URL"``, which builds
and installs nnref's wheel), the Python packages the chapter imports, and Graphviz's
``dot`` when it can (as root with ``apt-get``, which is how Colab runs).  Inside the
repository (``./dev.sh lab``, ``./dev.sh test``, Binder) everything is installed already,
so the cell does nothing and prints nothing.  In a copy of the repository (or the student
edition) where nnref is present but not installed, it installs *that* nnref (editable),
never the published one.

The repository URL is the one setting ``repository.url`` of ``_config.yml``; the cell is
generated from it and from the chapter's own imports, so nothing here is written by hand::

    .venv/bin/python tools/install_cell.py          # insert or update the cell in book/*.ipynb
    .venv/bin/python tools/install_cell.py --check  # exit 1 if a chapter's cell is missing or stale

The cell is tagged ``remove-cell`` (Jupyter Book leaves it off the site) and ``nnref-only``
(the PyTorch parity check skips it).  ``tests/test_launch.py`` checks every chapter.
"""
import ast
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
CELL_ID = "install-nnref"
TAGS = ["remove-cell", "nnref-only"]
TITLE = "# @title Install nnref{} when this chapter runs outside the repository (e.g. on Colab)"

# Modules the chapters import (or use through nnref) -> the pip package that provides them.
PIP_NAMES = {"graphviz": "graphviz", "matplotlib": "matplotlib", "numpy": "numpy",
             "sklearn": "scikit-learn", "scipy": "scipy", "safetensors": "safetensors"}
# Not installed by this cell: the notebook's own kernel (IPython) and PyTorch, which the
# chapters only mention where it is installed.
NOT_INSTALLED = {"nnref", "torch", "IPython", "ipykernel"}
# nnref imports these lazily, only for the features named here.
USES = {"scipy": re.compile(r"\bgelu\b|\bGELU\b|\berfc?\b"),
        "safetensors": re.compile(r"\bsafetensors\b")}


def repository_url(root=ROOT):
    """``repository.url`` of ``_config.yml``: the one place the repository's address lives."""
    import yaml
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    return config["repository"]["url"].rstrip("/")


def chapters(root=ROOT):
    return sorted((root / "book").glob("*.ipynb"))


def is_install_cell(cell):
    return cell.get("id") == CELL_ID


def needed_packages(notebook):
    """The pip packages a chapter's code imports (besides nnref), sorted."""
    code = "\n".join(c.source for c in notebook.cells
                     if c.cell_type == "code" and not is_install_cell(c))
    modules = set()
    for line in code.splitlines():
        match = re.match(r"\s*(?:import|from)\s+([A-Za-z_]\w*)", line)
        if match:
            modules.add(match.group(1))
    modules |= {module for module, pattern in USES.items() if pattern.search(code)}
    unknown = {m for m in modules - NOT_INSTALLED - set(PIP_NAMES)
               if m not in sys.stdlib_module_names}
    if unknown:
        raise SystemExit(f"add the pip package of {sorted(unknown)} to PIP_NAMES in {__file__}")
    return sorted(PIP_NAMES[m] for m in modules if m in PIP_NAMES and m != "numpy")


def cell_source(url, packages, draws_graphs):
    """The install cell's code for one chapter."""
    modules = {pip: module for module, pip in PIP_NAMES.items()}
    wanted = ", ".join(f'"{modules[p]}": "{p}"' for p in packages)
    lines = [
        TITLE.format(" and Graphviz" if draws_graphs else ""),
        "# On the site this cell is hidden; in the repository (./dev.sh lab, Binder) it does nothing.",
        "import importlib, importlib.util, os, shutil, subprocess, sys",
        "",
        f'REPOSITORY = "{url}"  # repository.url in _config.yml',
        "if importlib.util.find_spec(\"nnref\") is None:",
        "    if os.path.isfile(os.path.join(\"..\", \"nnref\", \"__init__.py\")):",
        "        # a copy of the repository (or the student edition): install its own nnref, editable",
        "        here = os.path.abspath(\"..\")",
        "        subprocess.check_call([sys.executable, \"-m\", \"pip\", \"install\", \"-q\", \"-e\", here])",
        "        sys.path.insert(0, here)",
        "    else:",
        "        subprocess.check_call([sys.executable, \"-m\", \"pip\", \"install\", \"-q\",",
        "                               f\"nnref[viz] @ git+{REPOSITORY}\"])",
        "    importlib.invalidate_caches()",
    ]
    if packages:
        lines += [
            f"missing = [pip for module, pip in {{{wanted}}}.items()",
            "           if importlib.util.find_spec(module) is None]",
            "if missing:",
            "    subprocess.check_call([sys.executable, \"-m\", \"pip\", \"install\", \"-q\", *missing])",
            "    importlib.invalidate_caches()",
        ]
    if draws_graphs:
        lines += [
            "if shutil.which(\"dot\") is None:  # Graphviz draws the computation graphs",
            "    if shutil.which(\"apt-get\") and os.geteuid() == 0:",
            "        subprocess.check_call([\"apt-get\", \"install\", \"-y\", \"-qq\", \"graphviz\"])",
            "    else:",
            "        print(\"Install Graphviz (https://graphviz.org/download/) to see the graphs.\")",
        ]
    source = "\n".join(lines)
    ast.parse(source)
    return source


def install_cell(notebook, url):
    packages = needed_packages(notebook)
    source = cell_source(url, packages, draws_graphs="graphviz" in packages)
    cell = nbformat.v4.new_code_cell(source, id=CELL_ID)
    cell.metadata = {"tags": list(TAGS), "jupyter": {"source_hidden": True},
                     "colab": {"cellView": "form"}}
    return cell


def update(path, url, check=False):
    """Insert (or refresh) the chapter's install cell as its first cell; True if it changed."""
    raw = path.read_text(encoding="utf-8")
    notebook = nbformat.reads(raw, as_version=4)
    wanted = install_cell(notebook, url)
    cells = notebook.cells
    if cells and is_install_cell(cells[0]):
        if cells[0].source == wanted.source and cells[0].metadata == wanted.metadata:
            return False
        # keep what the last run left (execution_count, outputs: none)
        wanted.execution_count = cells[0].get("execution_count")
        wanted.outputs = cells[0].get("outputs", [])
        cells[0] = wanted
    else:
        cells[:] = [wanted] + [c for c in cells if not is_install_cell(c)]
    if not check:
        path.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
    return True


def main(arguments):
    check = "--check" in arguments
    url = repository_url()
    changed = [p for p in chapters() if update(p, url, check=check)]
    for path in changed:
        print(f"{path.relative_to(ROOT)}: {'install cell missing or stale' if check else 'updated'}")
    if check and changed:
        print("run: .venv/bin/python tools/install_cell.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

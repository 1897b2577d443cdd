"""Launching the chapters elsewhere: one repository URL, the Binder and Colab buttons, every
chapter's install cell, Binder's environment files and nnref's wheel.  All offline.

``repository.url`` in ``_config.yml`` is the repository's one address: the site's buttons are
built from it, the chapters' install cells are generated from it (``tools/install_cell.py``)
and nothing else in the repository writes it.  The install cell installs nnref with
``pip install "nnref[viz] @ git+URL"``, which builds nnref's wheel; the last tests build that
wheel here, check it holds nnref and nothing of the course, and install it into a clean venv.
"""
from __future__ import annotations

import builtins
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import install_cell  # noqa: E402  (tools/install_cell.py)

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
URL = CONFIG["repository"]["url"].rstrip("/")
CHAPTERS = install_cell.chapters()


def _requirement_lines(path):
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines


def _spec(line):
    match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)", line)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower(), match.group(2).replace(" ", "")


# ------------------------------------------------------------ one setting ---

def test_the_repository_url_is_one_setting_of_the_config():
    match = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+)", URL)
    assert match, f"repository.url must be a GitHub repository's address, not {URL!r}"
    assert CONFIG["repository"]["branch"] == "main"
    assert CONFIG["repository"]["path_to_book"] == ""
    assert CONFIG["html"]["use_repository_button"] is True
    assert CONFIG["launch_buttons"] == {"binderhub_url": "https://mybinder.org",
                                        "colab_url": "https://colab.research.google.com",
                                        "notebook_interface": "jupyterlab"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`repository.url`" in readme and "`_config.yml`" in readme


def test_no_other_file_writes_the_repository_url():
    """Only _config.yml holds the address; the chapters' copies are the generated install cells."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout")
    found = subprocess.run(["git", "grep", "-l", "-F", URL.split("://", 1)[1]], cwd=ROOT,
                           capture_output=True, text=True).stdout.split()
    assert set(found) - {"_config.yml"} <= {str(p.relative_to(ROOT)) for p in CHAPTERS}, found
    for path in CHAPTERS:
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells[1:]:
            assert URL not in cell.source, f"{path.name}: the URL belongs in the install cell only"


# --------------------------------------------------------- install cells ---

@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_chapter_starts_with_the_install_cell(path):
    notebook = nbformat.read(path, as_version=4)
    first = notebook.cells[0]
    expected = install_cell.install_cell(notebook, URL)
    assert first.cell_type == "code" and first.id == install_cell.CELL_ID, (
        f"{path.name}: run .venv/bin/python tools/install_cell.py")
    assert first.source == expected.source, f"{path.name}: stale; run tools/install_cell.py"
    # remove-cell: Jupyter Book leaves the cell off the page (myst-nb drops it, input and output)
    assert "remove-cell" in first.metadata["tags"]
    # nnref-only: the PyTorch parity check does not run it
    assert "nnref-only" in first.metadata["tags"]
    assert f'REPOSITORY = "{URL}"' in first.source
    assert first.outputs == [], f"{path.name}: in the repository the install cell prints nothing"
    assert sum(install_cell.is_install_cell(c) for c in notebook.cells) == 1


def test_the_install_cells_are_up_to_date():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "install_cell.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_install_cell_asks_pip_for_nnref_from_the_repository():
    from packaging.requirements import Requirement
    source = install_cell.cell_source(URL, [], draws_graphs=False)
    requirement = Requirement(f"nnref[viz] @ git+{URL}")
    assert requirement.name == "nnref" and requirement.extras == {"viz"}
    assert requirement.url == f"git+{URL}"
    assert 'f"nnref[viz] @ git+{REPOSITORY}"' in source


class _Calls(list):
    def __call__(self, command, *args, **kwargs):
        self.append(list(command))
        return 0


def _run_cell(monkeypatch, tmp_path, source, installed, dot=None, root=True, checkout=False):
    """Execute an install cell with nothing really installed: find_spec, which and
    check_call are stand-ins; returns the commands it would have run."""
    real_find_spec = importlib.util.find_spec
    calls = _Calls()
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: real_find_spec(name, *a) if name in installed else None)
    monkeypatch.setattr(subprocess, "check_call", calls)
    monkeypatch.setattr(shutil, "which", lambda name: {"dot": dot, "apt-get": "/usr/bin/apt-get"}.get(name))
    monkeypatch.setattr(os, "geteuid", lambda: 0 if root else 1000)
    monkeypatch.setattr(sys, "path", list(sys.path))
    chapter_dir = tmp_path / "course" / "book"
    chapter_dir.mkdir(parents=True)
    if checkout:
        (tmp_path / "course" / "nnref").mkdir()
        (tmp_path / "course" / "nnref" / "__init__.py").write_text("")
    monkeypatch.chdir(chapter_dir)
    printed = []
    monkeypatch.setattr(builtins, "print", lambda *a, **k: printed.append(" ".join(map(str, a))))
    exec(compile(source, "<install cell>", "exec"), {})
    monkeypatch.undo()
    return calls, printed


def test_the_install_cell_does_nothing_where_everything_is_installed(monkeypatch, tmp_path):
    source = install_cell.cell_source(URL, ["graphviz", "matplotlib"], draws_graphs=True)
    calls, printed = _run_cell(monkeypatch, tmp_path, source,
                               installed={"nnref", "graphviz", "matplotlib"}, dot="/usr/bin/dot")
    assert calls == [] and printed == []


def test_the_install_cell_on_colab(monkeypatch, tmp_path):
    """No nnref, no dot, root with apt-get: nnref from the repository, the chapter's packages
    and Graphviz."""
    source = install_cell.cell_source(URL, ["graphviz", "scikit-learn"], draws_graphs=True)
    calls, printed = _run_cell(monkeypatch, tmp_path, source, installed={"graphviz"})
    assert calls == [
        [sys.executable, "-m", "pip", "install", "-q", f"nnref[viz] @ git+{URL}"],
        [sys.executable, "-m", "pip", "install", "-q", "scikit-learn"],
        ["apt-get", "install", "-y", "-qq", "graphviz"],
    ]
    assert printed == []


def test_the_install_cell_without_root_says_how_to_get_graphviz(monkeypatch, tmp_path):
    source = install_cell.cell_source(URL, ["graphviz"], draws_graphs=True)
    calls, printed = _run_cell(monkeypatch, tmp_path, source, installed={"nnref", "graphviz"},
                               root=False)
    assert calls == [] and len(printed) == 1 and "graphviz.org" in printed[0]


def test_the_install_cell_installs_a_checkouts_own_nnref(monkeypatch, tmp_path):
    """In a copy of the repository (or the student edition) where nnref is not installed, the
    cell installs that copy's nnref, never the published one."""
    source = install_cell.cell_source(URL, [], draws_graphs=False)
    calls, _ = _run_cell(monkeypatch, tmp_path, source, installed=set(), checkout=True)
    assert calls == [[sys.executable, "-m", "pip", "install", "-q", "-e",
                      str(tmp_path / "course")]]


def test_every_import_of_the_chapters_is_installed_by_their_cells():
    """What the cells install covers what the chapters import (checked by needed_packages,
    which refuses a module it does not know)."""
    for path in CHAPTERS:
        notebook = nbformat.read(path, as_version=4)
        for package in install_cell.needed_packages(notebook):
            assert f'"{package}"' in notebook.cells[0].source, (path.name, package)


def test_the_authors_guide_says_chapters_start_with_the_install_cell():
    guide = (ROOT / "book" / "AUTHORING.md").read_text(encoding="utf-8")
    assert "tools/install_cell.py" in guide and "remove-cell" in guide


# ---------------------------------------------------------------- Binder ---

def test_binder_environment_files():
    apt = _requirement_lines(ROOT / "binder" / "apt.txt")
    assert "graphviz" in apt
    lines = _requirement_lines(ROOT / "binder" / "requirements.txt")
    assert "-e .[viz]" in lines, "Binder installs this repository's nnref (pip runs in the repo root)"
    assert "-r ../requirements-lab.txt" in lines and (ROOT / "requirements-lab.txt").is_file()
    ours = dict(_spec(line) for line in _requirement_lines(ROOT / "requirements.txt")
                if not line.startswith("-"))
    binder = dict(_spec(line) for line in lines if not line.startswith("-"))
    for name, spec in binder.items():
        assert ours.get(name) == spec, f"binder/requirements.txt: {name}{spec} differs from requirements.txt"
    for package in set(install_cell.PIP_NAMES.values()):
        assert re.sub(r"[-_.]+", "-", package).lower() in binder, package


def _site():
    """The site `./dev.sh book` / `./dev.sh test` built (tests/site/test_site.py's place for it)."""
    built = Path(os.environ.get("NNREF_SITE_DIR", ROOT / "_build" / "html"))
    if not (built / "index.html").exists():
        pytest.skip("no built site (./dev.sh book builds it)")
    return built


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_sites_launch_buttons_come_from_the_repository_url(path):
    page = _site() / "book" / f"{path.stem}.html"
    html = page.read_text(encoding="utf-8")
    owner_name = URL.split("github.com/", 1)[1]
    branch = CONFIG["repository"]["branch"]
    notebook = f"book/{path.name}"
    binder = (f'{CONFIG["launch_buttons"]["binderhub_url"]}/v2/gh/{owner_name}/{branch}'
              f'?urlpath=lab/tree/{notebook}')
    colab = f'{CONFIG["launch_buttons"]["colab_url"]}/github/{owner_name}/blob/{branch}/{notebook}'
    assert f'href="{binder}"' in html, f"{page.name}: no Binder button {binder} (site stale?)"
    assert f'href="{colab}"' in html, f"{page.name}: no Colab button {colab}"
    assert f'href="{URL}"' in html, f"{page.name}: no repository button"
    # the install cell is not on the page
    assert "REPOSITORY = " not in html and "find_spec" not in html, f"{page.name} shows the install cell"


# ----------------------------------------------------------------- wheel ---

COURSE_ONLY = ("coursekit", "tests", "book", "bench", "tools", "binder", "_static")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """nnref's wheel, built offline from a copy of the working tree (so the build cannot
    leave build/ or egg-info behind in the repository): with `python -m build --wheel
    --no-isolation` (build is in requirements.txt)."""
    if importlib.util.find_spec("build") is None:
        pytest.fail("the `build` package is missing: run ./dev.sh setup")
    source = tmp_path_factory.mktemp("source")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    for folder in COURSE_ONLY:  # present, so leaving them out is the configuration's doing
        assert (source / folder).is_dir(), folder
    out = tmp_path_factory.mktemp("dist")
    env = {**os.environ, "PIP_NO_INDEX": "1"}
    result = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation",
                             "--outdir", str(out), str(source)],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    wheels = list(out.glob("nnref-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_wheel_holds_nnref_and_nothing_of_the_course(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    top = {name.split("/", 1)[0] for name in names}
    assert top == {"nnref", next(t for t in top if t.endswith(".dist-info"))}, sorted(top)
    assert not [n for n in names if n.split("/", 1)[0] in COURSE_ONLY]
    package = {str(p.relative_to(ROOT)) for p in (ROOT / "nnref").rglob("*.py")}
    assert package <= set(names), sorted(package - set(names))[:10]
    assert "Requires-Dist: numpy" in metadata and "Requires-Dist: ml_dtypes" in metadata
    assert re.search(r"Requires-Dist: graphviz.*extra == .viz.", metadata)


def test_the_wheel_installs_into_a_clean_venv(wheel, tmp_path):
    """The wheel in a new venv that sees only numpy and ml_dtypes (nnref's dependencies, linked
    from .venv: there is no package index here): pip accepts the dependencies as installed,
    and `import nnref` works from outside the repository, from the venv's site-packages."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    deps = tmp_path / "deps"
    deps.mkdir()
    ours = Path(importlib.util.find_spec("numpy").origin).parents[1]
    for entry in ours.iterdir():
        if re.match(r"(numpy|ml_dtypes)([-.]|$)", entry.name, flags=re.I):
            (deps / entry.name).symlink_to(entry)
    (site / "nnref-deps.pth").write_text(f"{deps}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_NO_INDEX"] = "1"
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                                "--no-index", "--quiet", str(wheel)],
                               capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    run = subprocess.run(
        [str(python), "-c",
         "import importlib.util, nnref\n"
         "print(nnref.tensor([1., 2.]).sum())\n"
         "print(nnref.__file__)\n"
         "print([m for m in ('coursekit', 'tests', 'book', 'bench', 'tools') "
         "if importlib.util.find_spec(m)])"],
        capture_output=True, text=True, env=env, cwd=outside, timeout=120)
    assert run.returncode == 0, run.stderr
    total, origin, course = run.stdout.splitlines()
    assert total == "tensor(3.)"
    assert Path(origin).is_relative_to(site / "nnref") and not Path(origin).is_relative_to(ROOT)
    assert course == "[]"

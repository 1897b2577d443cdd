"""Checks on the repository's build and test plumbing (not on nnref itself).

These keep the README, dev.sh, .ci/run, requirements.txt, pyproject.toml and
the book configuration telling the same story.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _section(markdown: str, title: str) -> str:
    """Return the body of the '## title' section of a markdown document."""
    match = re.search(
        rf"^##\s+{re.escape(title)}\s*$(.*?)(?=^##\s|\Z)", markdown, flags=re.M | re.S
    )
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


def _readme_commands() -> list[str]:
    """Commands in the first code block of README's 'Two commands' section."""
    body = _section((ROOT / "README.md").read_text(encoding="utf-8"), "Two commands")
    block = re.search(r"```[a-z]*\n(.*?)```", body, flags=re.S)
    assert block, "the 'Two commands' section has no code block"
    commands = []
    for line in block.group(1).splitlines():
        command = line.split("#", 1)[0].strip()
        if command:
            commands.append(command)
    return commands


def _script_commands(path: Path) -> list[str]:
    """The lines of a shell script that do work (not comments, set or cd)."""
    commands = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith(("set ", "cd ")):
            continue
        commands.append(line)
    return commands


def _requirements(path: Path = ROOT / "requirements.txt") -> dict[str, str]:
    """Map of normalised project name -> version specifier from a requirements file and the
    files it includes with ``-r``."""
    reqs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r "):
            reqs.update(_requirements(path.parent / line[3:].strip()))
            continue
        match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)", line)
        assert match, f"cannot parse requirement line {line!r}"
        name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
        reqs[name] = match.group(2).replace(" ", "")
    return reqs


# ------------------------------------------------------------ README & CI ---

def test_readme_names_exactly_two_commands():
    assert _readme_commands() == ["./dev.sh book", "./dev.sh test"]


def test_ci_runs_the_readme_test_command():
    test_command = next(c for c in _readme_commands() if c.endswith(" test"))
    assert _script_commands(ROOT / ".ci" / "run") == [test_command]


def test_the_release_check_is_left_out_of_the_default_run_and_documented():
    """tests/release (the README's commands in a fresh Debian) runs only with -m release."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "-m 'not release'" in options["addopts"]
    assert any(m.startswith("release:") for m in options["markers"])
    command = ".venv/bin/python -m pytest -m release tests/release"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`{command}`" in " ".join(readme.split())
    help_text = subprocess.run(["bash", str(ROOT / "dev.sh"), "help"], capture_output=True,
                               text=True, check=True).stdout
    assert command in help_text
    assert (ROOT / "tests" / "release" / "test_fresh_debian.py").is_file()
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                                "-p", "no:cacheprovider", "tests/release"],
                               cwd=ROOT, capture_output=True, text=True)
    assert "1 deselected" in collected.stdout, collected.stdout


@pytest.mark.parametrize("script", ["dev.sh", ".ci/run"])
def test_scripts_are_executable_bash_with_strict_mode(script):
    path = ROOT / script
    assert os.access(path, os.X_OK), f"{script} is not executable (chmod +x {script})"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text
    subprocess.run(["bash", "-n", str(path)], check=True)


def test_dev_sh_help_lists_the_commands():
    result = subprocess.run(
        ["bash", str(ROOT / "dev.sh"), "help"], capture_output=True, text=True, check=True
    )
    for command in ("book", "test", "setup"):
        assert re.search(rf"^\s+{command}\s", result.stdout, flags=re.M), result.stdout


def test_dev_sh_rejects_unknown_commands():
    result = subprocess.run(
        ["bash", str(ROOT / "dev.sh"), "no-such-command"], capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "unknown command" in result.stderr


# -------------------------------------------------------------- packaging ---

def test_requirements_pin_jupyter_book_1x():
    assert _requirements()["jupyter-book"] == ">=1.0.4.post1,<2"


def test_requirements_leave_out_torch_and_cupy():
    names = _requirements()
    assert not [n for n in names if n == "torch" or n.startswith("cupy")], names


def test_installed_versions_satisfy_requirements():
    """After ./dev.sh setup, the environment running pytest matches requirements.txt."""
    from importlib.metadata import PackageNotFoundError, version

    specifiers = pytest.importorskip("packaging.specifiers")
    problems = []
    for name, spec in _requirements().items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            problems.append(f"{name}: not installed")
            continue
        if installed not in specifiers.SpecifierSet(spec):
            problems.append(f"{name}: {installed} does not satisfy {spec!r}")
    assert not problems, "run ./dev.sh setup:\n" + "\n".join(problems)


def test_pyproject_describes_nnref():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = data["project"]
    assert project["name"] == "nnref"
    assert project["requires-python"] == ">=3.10"
    assert sorted(project["dependencies"]) == ["ml_dtypes", "numpy"]
    assert project["optional-dependencies"] == {"gpu": ["cupy-cuda12x"], "viz": ["graphviz"],
                                                "safetensors": ["safetensors>=0.8"]}
    assert data["tool"]["setuptools"]["packages"]["find"]["include"] == ["nnref*"]
    assert data["tool"]["pytest"]["ini_options"]["testpaths"] == ["tests"]


def test_nnref_importable_from_anywhere():
    """`pip install -e .` (done by ./dev.sh setup) makes nnref importable outside the repo."""
    if not (ROOT / "nnref" / "__init__.py").exists():
        pytest.skip("nnref/ is not written yet")
    result = subprocess.run(
        [sys.executable, "-c", "import nnref, os; print(os.path.dirname(nnref.__file__))"],
        cwd=os.path.expanduser("~") if os.path.isdir(os.path.expanduser("~")) else "/",
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, "nnref is not installed; run ./dev.sh setup\n" + result.stderr
    assert Path(result.stdout.strip()) == ROOT / "nnref"


# ------------------------------------------------------------------- book ---

def test_intersphinx_inventories_are_local_and_up_to_date():
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    local = re.findall(r'^\s+(\w+):\s*\["https://[^"]+",\s*"([^"]+\.inv)"\]', config, flags=re.M)
    assert {name for name, _ in local} == {"python", "numpy", "torch"}
    for _, path in local:
        assert (ROOT / path).is_file(), f"{path} is missing"
    subprocess.run(
        [sys.executable, str(ROOT / "book" / "_inventories" / "build.py"), "--check"], check=True
    )


def test_book_setup_leaves_out_pytorch_and_cupy():
    """./dev.sh book installs the book's part only; torch and CuPy come with test/bench/gpu."""
    text = (ROOT / "dev.sh").read_text(encoding="utf-8")
    book = re.search(r"^cmd_book\(\) \{\n    setup(.*)$", text, flags=re.M).group(1)
    test = re.search(r"^cmd_test\(\) \{\n    setup(.*)$", text, flags=re.M).group(1)
    assert "oracle" not in book and "oracle" in test.split()

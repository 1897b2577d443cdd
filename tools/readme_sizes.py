"""Write the sizes of nnref's two halves into README.md, between its ``<!-- sizes`` markers.

``python tools/readme_sizes.py`` rewrites the block; ``tests/core/test_teaching_core.py``
fails when the block is not what this would write (a size changed and nobody re-ran it).  The
core's lines are given exactly (its budget is tested); the mirror's to the thousand, so that its
everyday changes leave README alone.
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE, README = ROOT / "nnref", ROOT / "README.md"
BLOCK = re.compile(r"(<!-- sizes:[^\n]*-->\n)(.*?)(<!-- /sizes -->)", re.S)


def sizes_text():
    core = sorted((PACKAGE / "core").rglob("*.py"))
    mirror = sorted(p for p in PACKAGE.rglob("*.py") if PACKAGE / "core" not in p.parents)
    count = lambda files: sum(len(p.read_text().splitlines()) for p in files)  # noqa: E731
    largest = max(core, key=lambda p: len(p.read_text().splitlines()))
    return (f"| half | files | lines |\n| --- | ---: | ---: |\n"
            f"| the core, `nnref/core/` | {len(core)} | {count(core):,} |\n"
            f"| the mirror, the rest of `nnref/` | {len(mirror)} | about {round(count(mirror), -3):,} |\n\n"
            f"The core's largest file is `{largest.relative_to(ROOT).as_posix()}` "
            f"({len(largest.read_text().splitlines())} lines).\n")


def written(text):
    return BLOCK.sub(lambda m: m.group(1) + sizes_text() + m.group(3), text)


if __name__ == "__main__":
    README.write_text(written(README.read_text()))

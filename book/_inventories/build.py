"""Compile the hand-written intersphinx inventories in this folder.

Why this exists
---------------
The book links to the Python, NumPy and PyTorch documentation through
``sphinx.ext.intersphinx``.  Normally intersphinx downloads each project's
``objects.inv`` at build time.  Our build machines have no general internet
access, and Sphinx 7.4 reports an unreachable inventory as a warning with no
type (so ``suppress_warnings`` cannot silence it); with ``-W`` that fails the
build.  Dropping intersphinx instead would break every ``{py:class}`torch.Tensor```
reference under ``-n`` (nitpicky).

So ``_config.yml`` points each intersphinx entry at a *local* inventory built
here.  The links in the rendered site still go to the real online docs (the
base URL in ``intersphinx_mapping``); only the list of names is local, which
also makes the build reproducible and independent of upstream docs moving.

Format of ``<name>.txt``
------------------------
``#`` starts a comment.  Two header lines are required::

    # project: PyTorch
    # version: stable

Every other non-blank line is ``NAME ROLE URI``, whitespace separated, e.g.::

    torch.Tensor   py:class   tensors.html#torch.Tensor

``URI`` is relative to the base URL in ``_config.yml``; a trailing ``$`` is
replaced by ``NAME`` (the Sphinx convention).  When a page references a name
that is missing here, ``jupyter-book build -n`` fails with "reference target
not found": add a line here and run ``python book/_inventories/build.py``
(``./dev.sh book`` does that for you).

Usage: ``python book/_inventories/build.py [--check]``.  ``--check`` only
verifies that every ``.inv`` is up to date and exits 1 if one is not.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def parse(text: str, source: str = "<text>") -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """Return (header, entries) from the text of one ``.txt`` inventory."""
    header: dict[str, str] = {}
    entries: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            key = key.strip().lower()
            if sep and key in ("project", "version"):
                header[key] = value.strip()
            continue
        parts = line.split()
        if len(parts) != 3 or ":" not in parts[1]:
            raise ValueError(f"{source}:{lineno}: expected 'NAME DOMAIN:ROLE URI', got {raw!r}")
        name, role, uri = parts
        if (name, role) in seen:
            raise ValueError(f"{source}:{lineno}: duplicate entry {name} {role}")
        seen.add((name, role))
        entries.append((name, role, uri))
    for key in ("project", "version"):
        if key not in header:
            raise ValueError(f"{source}: missing '# {key}: ...' header line")
    return header, entries


def compile_inventory(text: str, source: str = "<text>") -> bytes:
    """Return the bytes of a Sphinx version-2 ``objects.inv`` for ``text``."""
    header, entries = parse(text, source)
    head = (
        "# Sphinx inventory version 2\n"
        f"# Project: {header['project']}\n"
        f"# Version: {header['version']}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = "".join(
        # NAME DOMAIN:ROLE PRIORITY URI DISPNAME ("-" means: same as NAME)
        f"{name} {role} 1 {uri} -\n"
        for name, role, uri in sorted(entries)
    )
    return head.encode() + zlib.compress(body.encode(), 9)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for src in sorted(HERE.glob("*.txt")):
        out = src.with_suffix(".inv")
        data = compile_inventory(src.read_text(encoding="utf-8"), str(src))
        if out.exists() and out.read_bytes() == data:
            continue
        if check:
            stale.append(out.name)
        else:
            out.write_bytes(data)
            print(f"wrote {out.relative_to(HERE.parent.parent)}")
    if stale:
        print("out of date: " + ", ".join(stale) + " (run: python book/_inventories/build.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The site serves MathJax 3 itself, so its formulas render with no network.

Sphinx loads MathJax 3 from a CDN by default: offline (a classroom without
internet, a reader on a train) every formula stays raw TeX.  This extension
points ``mathjax_path`` at a copy inside the built site, taken from npm's
``mathjax@3`` package rather than vendored (``./dev.sh`` installs it into
``.venv/mathjax``; ``NNREF_MATHJAX_DIR`` names another copy of the package).
MathJax 3 is what the theme lays out (display formulas centred, their numbers
beside them) and what typesets ``\\text{...}`` with its escapes.  Only the
files the TeX-to-CommonHTML component loads are copied (about 2 MB).
"""
import os
import shutil
import sys
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

COMPONENT = "es5/tex-chtml.js"
# What tex-chtml.js fetches at run time: its fonts, the TeX packages it autoloads
# (textmacros, ams...), the context menu and the accessibility helpers the menu offers.
FILES = [COMPONENT, "es5/output/chtml/fonts/woff-v2", "es5/input/tex/extensions", "es5/ui", "es5/a11y",
         "es5/sre", "es5/adaptors"]


def source_dir():
    return Path(os.environ.get("NNREF_MATHJAX_DIR") or Path(sys.prefix) / "mathjax" / "node_modules" / "mathjax")


def configure(app, config):
    if (source_dir() / COMPONENT).is_file():
        config.mathjax_path = f"mathjax/{COMPONENT}"
    else:
        logger.warning(f"MathJax 3 not found in {source_dir()}, so the site would need the network for "
                       "its formulas: ./dev.sh book installs it (npm install --prefix .venv/mathjax "
                       "mathjax@3), or set NNREF_MATHJAX_DIR to a mathjax@3 package folder")


def text_escapes(app):
    # \text{in\_features}: MathJax 3 reads the inside of \text as plain text unless its
    # textmacros package is on, which gives \_, \$, accents... their TeX meaning there.
    # (myst-parser fills mathjax3_config; the keys it sets are kept.)
    config = app.config.mathjax3_config or {}
    tex = config.setdefault("tex", {})
    tex["packages"] = {"[+]": ["textmacros"]}
    loader = config.setdefault("loader", {})
    loader["load"] = sorted(set(loader.get("load", [])) | {"[tex]/textmacros"})
    app.config.mathjax3_config = config


def copy_mathjax(app, exception):
    if exception is not None or app.builder.format != "html" or not (source_dir() / COMPONENT).is_file():
        return
    target = Path(app.outdir) / "_static" / "mathjax"
    for name in FILES:
        source = source_dir() / name
        if source.is_dir():
            shutil.copytree(source, target / name, dirs_exist_ok=True)
        else:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / name)


def setup(app):
    app.connect("config-inited", configure)
    app.connect("builder-inited", text_escapes, priority=900)
    app.connect("build-finished", copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

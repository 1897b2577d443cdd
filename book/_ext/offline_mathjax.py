"""The site serves MathJax itself, so its formulas render with no network.

Sphinx loads MathJax 3 from a CDN by default: offline (a classroom without
internet, a reader on a train) every formula stays raw TeX.  This extension
points ``mathjax_path`` at a copy inside the built site, taken from a package
rather than vendored: Debian's ``libjs-mathjax`` (MathJax 2.7, in
``/usr/share/javascript/mathjax``; ``./dev.sh book`` installs it), or any
MathJax 2 folder named by ``NNREF_MATHJAX_DIR`` (e.g. npm's ``mathjax@2``).
Only the files the TeX-to-CommonHTML configuration loads are copied (under 2 MB).
"""
import os
import shutil
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

DEFAULT_DIR = "/usr/share/javascript/mathjax"
CONFIG = "TeX-AMS_CHTML"
# What MathJax.js?config=TeX-AMS_CHTML fetches at run time.
FILES = ["MathJax.js", f"config/{CONFIG}.js", "jax/input/TeX", "jax/output/CommonHTML", "jax/element",
         "extensions", "fonts/HTML-CSS/TeX/woff"]
# MyST marks the math it parsed with these classes and the rest of the page as ignored, so
# a "$" in prose or code is never taken for math (the MathJax 2 spelling of what myst-parser
# sets for MathJax 3).
MATHJAX2_CONFIG = {
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                "processEscapes": True, "processClass": "tex2jax_process|mathjax_process|math|output_area",
                "ignoreClass": "tex2jax_ignore|mathjax_ignore|document"},
    "CommonHTML": {"linebreaks": {"automatic": True}},
    "messageStyle": "none",
}


def source_dir():
    return Path(os.environ.get("NNREF_MATHJAX_DIR") or DEFAULT_DIR)


def configure(app, config):
    if (source_dir() / "MathJax.js").is_file():
        config.mathjax_path = f"mathjax/MathJax.js?config={CONFIG}"
        config.mathjax2_config = MATHJAX2_CONFIG
    else:
        logger.warning(f"MathJax not found in {source_dir()}, so the site would need the network for "
                       "its formulas: install Debian's libjs-mathjax (./dev.sh book does) or set "
                       "NNREF_MATHJAX_DIR to a MathJax 2 folder (npm install mathjax@2)")


def drop_mathjax3_config(app):
    # myst-parser fills mathjax3_config; with MathJax 2 it would only add a second,
    # ignored configuration to every page.
    app.config.mathjax3_config = None


def copy_mathjax(app, exception):
    if exception is not None or app.builder.format != "html" or not (source_dir() / "MathJax.js").is_file():
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
    app.connect("builder-inited", drop_mathjax3_config, priority=900)
    app.connect("build-finished", copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The site's copyright line carries the year the site was built.

The year comes from the build date (``SOURCE_DATE_EPOCH`` when set, for a
reproducible build), so the footer never shows a stale year.  The licenses
are named next to it by ``html.extra_footer`` in _config.yml.
"""
import datetime
import os
import time

AUTHOR = "The Inside nn.Module team"


def build_year():
    seconds = int(os.environ.get("SOURCE_DATE_EPOCH") or time.time())
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc).year


def set_copyright(app, config):
    config.copyright = f"{build_year()}, {AUTHOR}"


def setup(app):
    app.connect("config-inited", set_copyright)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

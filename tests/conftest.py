"""Settings shared by the whole suite."""
import os

from hypothesis import settings

# In CI (CI=true) Hypothesis draws the same examples on every run, so a run's result depends
# only on the code, not on which random examples it happened to try; locally each run explores
# new examples.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

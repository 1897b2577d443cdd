"""The device tests reuse the op cases of tests/core and the layer table of tests/nn."""
import pathlib
import sys

HERE = pathlib.Path(__file__).parent
for folder in ("core", "nn"):
    path = str(HERE.parent / folder)
    if path not in sys.path:
        sys.path.append(path)

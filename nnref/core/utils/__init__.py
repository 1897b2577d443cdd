"""The core's utilities: the handle every hook registration returns."""

"""Benchmarks for ``nnref``: ``python -m bench.run [--quick] [--threads N] [--out DIR]``.

What is measured, and why, is described in :mod:`bench.run`.  This package
deliberately imports nothing here, so that ``bench.run`` can fix the BLAS
thread count before numpy (or torch) is first imported.
"""

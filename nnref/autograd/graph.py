"""``nnref.autograd.graph`` (``torch/autograd/graph.py``): the graph's node types, as PyTorch
names them.  They live in the teaching core, ``nnref/core/autograd/graph.py``."""
from ..core.autograd.graph import AccumulateGrad, Node, gradient_edge

__all__ = ["Node", "AccumulateGrad", "gradient_edge"]

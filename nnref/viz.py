"""Draw a tensor's backward graph with Graphviz, for nnref and real PyTorch tensors alike.

The walk uses only what both libraries expose: ``tensor.grad_fn``,
``node.next_functions`` (pairs of ``(node, input_nr)``), ``node.name()``, and
``AccumulateGrad.variable`` for leaves.  So the same call draws PyTorch's graph
beside nnref's, and the book can show that the two are the same graph.

* :func:`draw_graph` - the structure: leaves, backward nodes, retained
  gradients and hooks, optionally the tensors each node saved for backward.
* :func:`draw_grad_flow` - the same graph after ``backward()``, with the
  forward value and the gradient of every tensor it knows about.

The result is a ``graphviz.Digraph``: Jupyter shows it as SVG, ``.source`` is
the DOT text, ``.render()`` writes a file.  Rendering needs Graphviz's ``dot``
program; without it you get an error that says how to install it.
"""
import numpy as np

__all__ = ["draw_graph", "draw_grad_flow", "GraphvizMissingError"]

INSTALL_HINT = ("Graphviz's `dot` program is needed to render graphs. Install it with "
                "`sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) "
                "or `conda install -c conda-forge graphviz`. The DOT text is still available as "
                "`graph.source`.")

LEAF_STYLE = {"shape": "box", "style": "filled,rounded", "fillcolor": "#cfe8fc"}
NODE_STYLE = {"shape": "box", "style": "filled,rounded", "fillcolor": "#eeeeee"}
ACCUMULATE_STYLE = {"shape": "box", "style": "filled,rounded", "fillcolor": "#fdf1c7"}
OUTPUT_STYLE = {"shape": "box", "style": "filled,rounded", "fillcolor": "#c9f0c9"}
SAVED_STYLE = {"shape": "box", "style": "filled,dashed", "fillcolor": "#ffe4d6", "fontsize": "10"}


class GraphvizMissingError(RuntimeError):
    """Raised when a graph is rendered on a machine without Graphviz's ``dot``."""


def _graphviz():
    try:
        import graphviz
    except ImportError:
        raise ImportError("nnref.viz needs the `graphviz` Python package: `pip install graphviz` "
                          "(and the Graphviz programs: " + INSTALL_HINT + ")") from None
    return graphviz


def _digraph_class():
    graphviz = _graphviz()

    class ComputationGraph(graphviz.Digraph):
        """A ``graphviz.Digraph`` whose rendering failures name the install command."""

        def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
            try:
                return super()._repr_mimebundle_(include=include, exclude=exclude, **kwargs)
            except graphviz.ExecutableNotFound:
                raise GraphvizMissingError(INSTALL_HINT) from None

        def pipe(self, *args, **kwargs):
            try:
                return super().pipe(*args, **kwargs)
            except graphviz.ExecutableNotFound:
                raise GraphvizMissingError(INSTALL_HINT) from None

        def render(self, *args, **kwargs):
            try:
                return super().render(*args, **kwargs)
            except graphviz.ExecutableNotFound:
                raise GraphvizMissingError(INSTALL_HINT) from None

    return ComputationGraph


def _shape(t):
    return "shape [" + ", ".join(str(s) for s in t.shape) + "]"


def _values(t, limit=6):
    """A short text of a tensor's values, or its shape when it is too big to list."""
    array = np.asarray(t.detach().cpu().numpy(), dtype=np.float64)
    if array.size > limit:
        return _shape(t)
    text = np.array2string(array, precision=4, separator=", ", suppress_small=True)
    return text if array.ndim else text.strip("[]")


def _output_nr(t):
    return getattr(t, "output_nr", getattr(t, "_output_nr", 0))


def _tensor_hooks(t):
    """The user hooks registered on a tensor (PyTorch keeps them in ``_backward_hooks``)."""
    hooks = getattr(t, "_backward_hooks", None) or {}
    node = getattr(t, "grad_fn", None)
    per_output = getattr(node, "_tensor_pre_hooks", None)  # nnref keeps non-leaf hooks on the node
    if per_output:
        hooks = dict(hooks, **{f"n{k}": v for k, v in per_output.get(_output_nr(t), {}).items()})
    return len(hooks)


def _saved_tensors(node):
    """``(label, tensor or None)`` for each tensor the node saved; None means already freed."""
    from .core.autograd.graph import Node
    if isinstance(node, Node):
        if node._saved is None:
            return [("freed", None)]
        return [("result" if s.is_output else "saved", s.tensor) for s in node._saved if s is not None]
    found = []
    for attribute in dir(node):  # PyTorch exposes what it saved as _saved_<name>
        if not attribute.startswith("_saved_"):
            continue
        try:
            value = getattr(node, attribute)
        except RuntimeError:  # freed by backward()
            return [("freed", None)]
        if hasattr(value, "grad_fn"):
            found.append(("result" if attribute == "_saved_result" else "saved", value))
    return found


class _Drawing:
    """Walks the graph once and emits Graphviz nodes and edges."""

    def __init__(self, root, params, tensors, show_saved, show_values):
        self.graph = _digraph_class()(graph_attr={"rankdir": "TB", "fontname": "Helvetica"},
                                      node_attr={"fontname": "Helvetica", "fontsize": "11"})
        self.names = {id(p): name for name, p in (params or {}).items()}
        self.names.update({id(t): name for name, t in (tensors or {}).items()})
        self.by_node = {(id(t.grad_fn), _output_nr(t)): (name, t)
                        for name, t in (tensors or {}).items() if t.grad_fn is not None}
        self.show_saved, self.show_values = show_saved, show_values
        self.root = root
        self.keys = {}  # object id -> DOT name in walk order, so the DOT text is the same every run

    def key(self, obj):
        return self.keys.setdefault(id(obj), f"node{len(self.keys)}")

    def label(self, title, tensor=None, extra=()):
        lines = [title]
        if tensor is not None:
            lines.append(_shape(tensor))
            if self.show_values:
                lines.append("value " + _values(tensor))
                grad = tensor.grad if (tensor.grad_fn is None or tensor.retains_grad) else None
                lines.append("grad " + (_values(grad) if grad is not None else "None"))
            if tensor.grad_fn is not None and tensor.retains_grad:
                lines.append("retains grad")
            hooks = _tensor_hooks(tensor)
            if hooks:
                lines.append(f"{hooks} hook{'s' if hooks > 1 else ''}")
        lines.extend(extra)
        return "\n".join(lines)

    def draw(self):
        root = self.root
        root_name = self.names.get(id(root), "output")
        if root.grad_fn is None:
            self.graph.node(self.key(root), self.label(root_name, root), **LEAF_STYLE)
            return self.graph
        self.graph.node("output", self.label(root_name, root), **OUTPUT_STYLE)
        self.graph.edge("output", self.key(root.grad_fn))
        seen, stack = set(), [root.grad_fn]
        while stack:  # iterative, so very deep graphs draw too
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            self.node(node)
            for child, input_nr in node.next_functions:
                if child is None:
                    continue
                self.graph.edge(self.key(node), self.key(child),
                                label=str(input_nr) if input_nr else None)
                stack.append(child)
        return self.graph

    def node(self, node):
        key = self.key(node)
        variable = getattr(node, "variable", None)
        if variable is not None:
            name = self.names.get(id(variable), "leaf")
            self.graph.node(key, self.label(f"{name}\n{type(node).__name__}", variable),
                            **ACCUMULATE_STYLE)
            return
        named = self.by_node.get((id(node), 0))
        title = node.name() if named is None else f"{named[0]} = {node.name()}"
        extra = []
        hooks = len(getattr(node, "_post_hooks", None) or {}) + len(getattr(node, "_pre_hooks", None) or {})
        if hooks:
            extra.append(f"{hooks} node hook{'s' if hooks > 1 else ''}")
        self.graph.node(key, self.label(title, named[1] if named else None, extra), **NODE_STYLE)
        if self.show_saved:
            for index, (name, tensor) in enumerate(_saved_tensors(node)):
                saved_key = f"{key}-saved{index}"
                text = "freed" if tensor is None else f"{name}\n{_shape(tensor)}"
                self.graph.node(saved_key, text, **SAVED_STYLE)
                self.graph.edge(saved_key, key, style="dashed", arrowhead="none")


def draw_graph(tensor, params=None, tensors=None, show_saved=False):
    """The backward graph that ``tensor.backward()`` would walk, as a ``graphviz.Digraph``.

    ``params`` maps names to leaf tensors (pass ``dict(model.named_parameters())``)
    and ``tensors`` names intermediate tensors, so boxes carry those names.
    With ``show_saved=True`` each node also shows what it saved for backward.
    """
    return _Drawing(tensor, params, tensors, show_saved, show_values=False).draw()


def draw_grad_flow(tensor, params=None, tensors=None):
    """Like :func:`draw_graph`, with each known tensor's value and ``.grad`` (call after backward)."""
    return _Drawing(tensor, params, tensors, show_saved=False, show_values=True).draw()

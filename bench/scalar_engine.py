"""A micrograd-style scalar autograd engine: the reference point many learners start from.

Every number is a :class:`Value` that remembers its parents and how to push
a gradient back to them; a network is lists of Values.  It is the same idea as
``nnref``'s engine with one scalar per node instead of one array per node, so
timing both on the same small network shows what working on whole tensors buys.
"""
import math


class Value:
    """One number in the graph: its value, its gradient, its parents and d(self)/d(parent).

    micrograd keeps a closure per node; storing the local derivatives instead
    does the same chain rule without reference cycles, so finished graphs are
    freed at once rather than by the garbage collector (and the engine is a
    little faster: a conservative reference point).
    """

    __slots__ = ("data", "grad", "_parents", "_local")

    def __init__(self, data, parents=(), local=()):
        self.data, self.grad, self._parents, self._local = data, 0.0, parents, local

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    __radd__, __rmul__ = __add__, __mul__

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-other)

    def relu(self):
        return Value(self.data if self.data > 0 else 0.0, (self,), (1.0 if self.data > 0 else 0.0,))

    def exp(self):
        e = math.exp(self.data)
        return Value(e, (self,), (e,))

    def log(self):
        return Value(math.log(self.data), (self,), (1.0 / self.data,))

    def backward(self):
        """Topological order (iteratively: no recursion limit), then the chain rule node by node."""
        order, seen, stack = [], {id(self)}, [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            stack.append((node, True))
            for p in node._parents:
                if id(p) not in seen:
                    seen.add(id(p))
                    stack.append((p, False))
        self.grad = 1.0
        for node in reversed(order):
            for parent, local in zip(node._parents, node._local):
                parent.grad += local * node.grad


class Linear:
    def __init__(self, w, b):  # w: rows of weights (out x in), b: out
        self.w = [[Value(float(v)) for v in row] for row in w]
        self.b = [Value(float(v)) for v in b]

    def __call__(self, x):
        return [sum((wi * xi for wi, xi in zip(row, x)), bias) for row, bias in zip(self.w, self.b)]

    def parameters(self):
        return [v for row in self.w for v in row] + self.b


class MLP:
    """Linear, ReLU, ..., Linear from ``[(W, b), ...]``, with SGD on mean cross-entropy."""

    def __init__(self, weights, lr=0.01):
        self.layers = [Linear(w, b) for w, b in weights]
        self.params = [p for layer in self.layers for p in layer.parameters()]
        self.lr = lr

    def __call__(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = [v.relu() for v in x]
        return x

    def step(self, xs, ys):
        """Forward, cross-entropy (log-sum-exp with a constant shift), backward, SGD, zero grad."""
        total = 0.0
        for x, y in zip(xs, ys):
            logits = self([float(v) for v in x])
            shift = max(v.data for v in logits)
            log_sum = sum((v - shift).exp() for v in logits).log()
            total = total + (log_sum - (logits[y] - shift))
        loss = total * (1.0 / len(xs))
        loss.backward()
        for p in self.params:
            p.data -= self.lr * p.grad
            p.grad = 0.0
        return loss.data

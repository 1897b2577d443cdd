"""One SGD training step of the course's MNIST-sized MLP, three ways.

The network is ``Flatten, Linear(784, 512), ReLU, Linear(512, 512), ReLU,
Linear(512, 10)`` with ``CrossEntropyLoss`` and ``SGD(lr=0.01)``; a step is
forward, loss, backward, ``step()``, ``zero_grad()``.

* :class:`FrameworkMLP` runs it with ``nnref`` or ``torch`` (the code is the
  same for both: that is the point of ``nnref``).
* :class:`NumpyMLP` is the same step written by hand in numpy, the way a
  skilled numpy programmer would: every buffer allocated once, matmuls with
  ``out=``, ReLU, masks, softmax and the SGD update in place.  It does only the
  arithmetic the step needs, so it is the limit any numpy-based framework can
  approach.

All three start from the same weights (:func:`make_weights`, copied in through
numpy) and train on the same seeded data (:func:`make_data`).
"""
import importlib

import numpy as np

SIZES = (784, 512, 512, 10)
INPUT_SHAPE = (1, 28, 28)
LR = 0.01


def make_weights(sizes=SIZES, seed=0):
    """``[(W, b), ...]`` float32, drawn like ``nn.Linear``: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        w = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        b = rng.uniform(-bound, bound, fan_out).astype(np.float32)
        layers.append((w, b))
    return layers


def make_data(batch, input_shape=INPUT_SHAPE, classes=SIZES[-1], seed=1):
    """Seeded inputs ``x`` (float32, ``(batch, *input_shape)``) and int64 labels ``y``."""
    rng = np.random.default_rng([seed, batch])
    x = rng.standard_normal((batch, *input_shape), dtype=np.float32)
    y = rng.integers(0, classes, batch).astype(np.int64)
    return x, y


class FrameworkMLP:
    """The step written against the PyTorch API; ``fw`` is ``nnref`` or ``torch``."""

    def __init__(self, fw, weights, x, y, lr=LR):
        nn = importlib.import_module(fw.__name__ + ".nn")
        optim = importlib.import_module(fw.__name__ + ".optim")
        self.fw = fw
        layers = [nn.Flatten()]
        for i, (w, b) in enumerate(weights):
            linear = nn.Linear(w.shape[1], w.shape[0])
            with fw.no_grad():
                linear.weight.copy_(fw.from_numpy(np.array(w)))
                linear.bias.copy_(fw.from_numpy(np.array(b)))
            layers.append(linear)
            if i < len(weights) - 1:
                layers.append(nn.ReLU())
        self.model = nn.Sequential(*layers)
        self.loss_fn = nn.CrossEntropyLoss()
        self.optimizer = optim.SGD(self.model.parameters(), lr=lr)
        self.x = fw.from_numpy(np.array(x))
        self.y = fw.from_numpy(np.array(y))

    def step(self):
        """One training step; returns the loss tensor (of the weights before the update)."""
        loss = self.loss_fn(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss

    def loss(self):
        return float(self.step().item())

    def weights(self):
        """Current weights as numpy arrays, ``[(W, b), ...]``."""
        linears = [m for m in self.model if hasattr(m, "weight")]
        return [(np.array(m.weight.detach().numpy()), np.array(m.bias.detach().numpy()))
                for m in linears]


class NumpyMLP:
    """The same step by hand: preallocated buffers, in-place updates ("the limit").

    Forward ``z = h @ W.T + b`` and ReLU in place; softmax cross-entropy with
    the log-sum-exp shift; backward ``dh = (dz @ W) * (h > 0)``,
    ``dW = dz.T @ h``, ``db = dz.sum(0)`` with the learning rate folded into
    ``dz``, so ``W -= lr * dW`` is a single in-place subtraction.  The gradient
    buffers are overwritten every step, so ``zero_grad`` costs nothing.
    """

    def __init__(self, weights, x, y, lr=LR):
        self.params = [(np.array(w), np.array(b)) for w, b in weights]
        self.x = np.array(x).reshape(len(x), -1)  # Flatten: a view of our own copy
        self.y = np.array(y)
        self.lr = np.float32(lr)
        self._buffers = False

    def _allocate(self):
        # Allocated on the first step, like a framework's activations and .grad,
        # so the peak-memory measure counts them for both.
        batch = self.x.shape[0]
        f32 = np.float32
        self.out = [np.empty((batch, w.shape[0]), f32) for w, _ in self.params]   # post-ReLU
        self.dout = [np.empty((batch, w.shape[0]), f32) for w, _ in self.params]  # dL/d(pre-act)
        self.masks = [np.empty((batch, w.shape[0]), bool) for w, _ in self.params[:-1]]
        self.grads = [(np.empty_like(w), np.empty_like(b)) for w, b in self.params]
        self.rowmax = np.empty((batch, 1), f32)
        self.rowsum = np.empty((batch, 1), f32)
        self.picked = np.empty(batch, f32)
        self.rows = np.arange(batch)
        self._buffers = True

    def workspace_bytes(self):
        """Bytes of the buffers a step allocates (the least extra memory a step can need)."""
        if not self._buffers:
            self._allocate()
        arrays = [*self.out, *self.dout, *self.masks, *(a for g in self.grads for a in g),
                  self.rowmax, self.rowsum, self.picked, self.rows]
        return int(sum(a.nbytes for a in arrays))

    def step(self):
        """One training step; returns the loss (of the weights before the update)."""
        if not self._buffers:
            self._allocate()
        params, out, dout, masks, grads = self.params, self.out, self.dout, self.masks, self.grads
        last = len(params) - 1

        # forward
        h = self.x
        for i, (w, b) in enumerate(params):
            np.matmul(h, w.T, out=out[i])
            out[i] += b
            if i < last:
                np.maximum(out[i], 0, out=out[i])
            h = out[i]

        # softmax cross-entropy (mean over the batch), its gradient into dz
        logits, dz = out[last], dout[last]
        batch = logits.shape[0]
        np.max(logits, axis=1, keepdims=True, out=self.rowmax)
        np.subtract(logits, self.rowmax, out=dz)                # shifted logits
        self.picked[:] = dz[self.rows, self.y]                 # shifted logit of the label
        np.exp(dz, out=dz)
        np.sum(dz, axis=1, keepdims=True, out=self.rowsum)
        loss = float(np.log(self.rowsum).mean() - self.picked.mean())
        np.divide(dz, self.rowsum, out=dz)                      # softmax
        dz[self.rows, self.y] -= 1
        dz *= np.float32(1.0 / batch)

        # backward and SGD, layer by layer from the top.  dh needs W before its
        # update, so it comes first; then dz is scaled by lr in place, so the
        # matmul writes lr * dL/dW straight into dw and the update is one
        # subtraction (no separate "dw *= lr" pass over every weight).
        for i in range(last, -1, -1):
            w, b = params[i]
            dw, db = grads[i]
            h_in = self.x if i == 0 else out[i - 1]
            if i > 0:  # no gradient for the input
                dh = dout[i - 1]
                np.matmul(dz, w, out=dh)
            dz *= self.lr
            np.matmul(dz.T, h_in, out=dw)
            np.sum(dz, axis=0, out=db)
            w -= dw
            b -= db
            if i > 0:
                np.greater(h_in, 0, out=masks[i - 1])  # ReLU's derivative, from its output
                np.multiply(dh, masks[i - 1], out=dh)
                dz = dh
        return loss

    def loss(self):
        return self.step()

    def weights(self):
        return [(w.copy(), b.copy()) for w, b in self.params]


def contenders(weights, x, y, frameworks):
    """``{"nnref": ..., "numpy": ..., "torch": ...}`` step objects on identical weights and data."""
    out = {}
    for name, fw in frameworks.items():
        if name == "numpy":
            out[name] = NumpyMLP(weights, x, y)
        else:
            out[name] = FrameworkMLP(fw, weights, x, y)
    return out


def check_agreement(frameworks, batches, rtol=1e-4, steps=2):
    """Run ``steps`` steps of each contender from the same start; compare losses and weights.

    Returns a dict with every loss and the largest relative differences, and
    ``passed``: every loss within ``rtol`` (relative) of the numpy one, and the
    updated weights within ``rtol`` relative to their scale.
    """
    weights = make_weights()
    report = {"rtol": rtol, "steps": steps, "batches": {}, "passed": True}
    for batch in batches:
        x, y = make_data(batch)
        objs = contenders(weights, x, y, frameworks)
        losses = {name: [obj.loss() for _ in range(steps)] for name, obj in objs.items()}
        ref_losses = losses["numpy"]
        ref_weights = objs["numpy"].weights()
        entry = {"losses": losses, "max_rel_loss_diff": {}, "max_rel_weight_diff": {}}
        for name, obj in objs.items():
            if name == "numpy":
                continue
            loss_diff = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(losses[name], ref_losses))
            weight_diff = max(float(np.max(np.abs(a - b))) / float(np.max(np.abs(b)))
                              for pair, ref in zip(obj.weights(), ref_weights)
                              for a, b in zip(pair, ref))
            entry["max_rel_loss_diff"][name] = loss_diff
            entry["max_rel_weight_diff"][name] = weight_diff
            if not (loss_diff <= rtol and weight_diff <= rtol):
                report["passed"] = False
        report["batches"][str(batch)] = entry
    return report

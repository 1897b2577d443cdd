"""The convolutional workloads, written once against the PyTorch API (``fw`` is ``nnref`` or ``torch``).

* :class:`FrameworkCNN`: one SGD training step of seed note 002's network,
  ``Conv2d(1, 20, 5), ReLU, Conv2d(20, 20, 5), ReLU, Flatten, Linear(8000, 10)``
  on ``1x28x28`` inputs, with ``CrossEntropyLoss`` and ``SGD(lr=0.01)``; a step
  is ``zero_grad()``, forward, loss, ``backward()``, ``step()``.
* :class:`ConvLayer`: one ``Conv2d(3, 64, 3, padding=1)`` on ``3x32x32``
  inputs: its forward alone, and forward + backward (weight and bias gradients,
  the input being data that needs none).

Both libraries start from the same weights, drawn once with numpy and copied in.
"""
import importlib

import numpy as np

CNN_INPUT = (1, 28, 28)
CNN_CLASSES = 10
LR = 0.01
LAYER_INPUT = (3, 32, 32)
LAYER_OUT_CHANNELS = 64


def _modules(fw):
    return importlib.import_module(fw.__name__ + ".nn"), importlib.import_module(fw.__name__ + ".optim")


def _copy_weights(fw, module, seed):
    """Every parameter from one seeded numpy draw, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) like PyTorch's."""
    rng = np.random.default_rng(seed)
    with fw.no_grad():
        for p in module.parameters():
            fan_in = int(np.prod(p.shape[1:])) if len(p.shape) > 1 else p.shape[0]
            bound = 1.0 / np.sqrt(fan_in)
            p.copy_(fw.from_numpy(rng.uniform(-bound, bound, tuple(p.shape)).astype(np.float32)))


def make_data(batch, input_shape=CNN_INPUT, classes=CNN_CLASSES, seed=2):
    rng = np.random.default_rng([seed, batch])
    x = rng.standard_normal((batch, *input_shape), dtype=np.float32)
    return x, rng.integers(0, classes, batch).astype(np.int64)


class FrameworkCNN:
    """Seed note 002's CNN and its SGD step."""

    def __init__(self, fw, batch, seed=0):
        nn, optim = _modules(fw)
        self.model = nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.Conv2d(20, 20, 5), nn.ReLU(),
                                   nn.Flatten(), nn.Linear(8000, 10))
        _copy_weights(fw, self.model, seed)
        self.loss_fn = nn.CrossEntropyLoss()
        self.optimizer = optim.SGD(self.model.parameters(), lr=LR)
        x, y = make_data(batch)
        self.x, self.y = fw.from_numpy(x), fw.from_numpy(y)

    def step(self):
        self.optimizer.zero_grad()
        loss = self.loss_fn(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        return loss

    def loss(self):
        return float(self.step().item())


class ConvLayer:
    """``Conv2d(3, 64, 3, padding=1)`` on a batch of ``3x32x32`` inputs."""

    def __init__(self, fw, batch, seed=0):
        nn, _ = _modules(fw)
        self.layer = nn.Conv2d(LAYER_INPUT[0], LAYER_OUT_CHANNELS, 3, padding=1)
        _copy_weights(fw, self.layer, seed)
        x, _ = make_data(batch, LAYER_INPUT)
        self.x = fw.from_numpy(x)

    def forward(self):
        return self.layer(self.x)

    def forward_backward(self):
        self.layer.weight.grad = self.layer.bias.grad = None
        out = self.layer(self.x)
        out.sum().backward()
        return out

    def result(self):
        """Output and weight gradient of one forward + backward, as numpy arrays."""
        out = self.forward_backward()
        return np.array(out.detach().numpy()), np.array(self.layer.weight.grad.numpy())


def check_agreement(frameworks, batches, rtol=1e-4, steps=2):
    """nnref and PyTorch compute the same CNN losses over ``steps`` steps, and the same conv layer."""
    report = {"rtol": rtol, "cnn": {}, "passed": True}
    names = [n for n in frameworks if n != "numpy"]
    for batch in batches:
        objs = {n: FrameworkCNN(frameworks[n], batch) for n in names}
        losses = {n: [obj.loss() for _ in range(steps)] for n, obj in objs.items()}
        entry = {"losses": losses}
        if "torch" in losses:
            diff = max(abs(a - b) / abs(b) for a, b in zip(losses["nnref"], losses["torch"]))
            entry["max_rel_loss_diff"] = diff
            report["passed"] &= diff <= rtol
        report["cnn"][str(batch)] = entry
    if "torch" in names:
        ours, theirs = (ConvLayer(frameworks[n], 4).result() for n in ("nnref", "torch"))
        diff = max(float(np.max(np.abs(a - b)) / np.max(np.abs(b))) for a, b in zip(ours, theirs))
        report["conv_layer_max_rel_diff"] = diff
        report["passed"] &= diff <= rtol
    report["passed"] = bool(report["passed"])
    return report

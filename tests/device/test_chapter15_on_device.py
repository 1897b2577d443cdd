"""Chapter 15's training run (book/15_training.ipynb), rebuilt on the device under test and
compared with the same code on the CPU: its model, numpy initialisation, shuffled mini-batches
(CPU index tensors picking rows of device tensors, as PyTorch allows), SGD with momentum,
evaluation, the checkpoint at the middle epoch and the resumed run."""
import io

import numpy as np
import pytest

import nnref as torch
from nnref import nn, optim

datasets = pytest.importorskip("sklearn.datasets")

SEED, LR, MOMENTUM, BATCH_SIZE = 0, 0.05, 0.9, 64
EPOCHS, CHECKPOINT_EPOCH = 2, 1  # the chapter runs 10 and 5: fewer keep CI quick


class NeuralNetwork(nn.Module):
    def __init__(self, in_features=8 * 8):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(in_features, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


def make_model(device):
    """PyTorch's default distribution for every Linear, drawn by numpy, then moved."""
    model = NeuralNetwork()
    rng = np.random.default_rng(SEED)
    with torch.no_grad():
        for layer in model.modules():
            if isinstance(layer, nn.Linear):
                bound = 1 / np.sqrt(layer.in_features)
                for p in (layer.weight, layer.bias):
                    values = rng.uniform(-bound, bound, size=tuple(p.shape))
                    p.copy_(torch.from_numpy(values.astype(np.float32)))
    return model.to(device)


def batches(n, epoch):
    order = np.random.default_rng([SEED, epoch]).permutation(n)
    for start in range(0, n, BATCH_SIZE):
        yield torch.from_numpy(order[start:start + BATCH_SIZE])


def chapter_15(device):
    """The chapter's loop on ``device``: per-batch losses, accuracies, and the resumed run."""
    digits = datasets.load_digits()
    images = (digits.images / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(SEED).permutation(len(images))
    test_index, train_index = order[:360], order[360:]
    X_train = torch.tensor(images[train_index]).to(device)
    y_train = torch.tensor(labels[train_index]).to(device)
    X_test = torch.tensor(images[test_index]).to(device)
    y_test = torch.tensor(labels[test_index]).to(device)
    loss_fn = nn.CrossEntropyLoss()

    def evaluate(model, X, y):
        model.eval()
        with torch.no_grad():
            logits = model(X)
            return loss_fn(logits, y).item(), (logits.argmax(dim=1) == y).float().mean().item()

    def run_epoch(model, optimizer, epoch):
        model.train()
        losses = []
        for index in batches(len(X_train), epoch):
            loss = loss_fn(model(X_train[index]), y_train[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses + list(evaluate(model, X_train, y_train)) + list(evaluate(model, X_test, y_test))

    model = make_model(device)
    optimizer = optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    history, checkpoint = [], io.BytesIO()
    for epoch in range(1, EPOCHS + 1):
        history.append(run_epoch(model, optimizer, epoch))
        if epoch == CHECKPOINT_EPOCH:
            torch.save({"model_state_dict": model.state_dict(),
                        "optimizer_state_dict": optimizer.state_dict()}, checkpoint)
    checkpoint.seek(0)
    saved = torch.load(checkpoint)
    resumed_model = NeuralNetwork().to(device)
    resumed_model.load_state_dict(saved["model_state_dict"])
    resumed_optimizer = optim.SGD(resumed_model.parameters(), lr=LR, momentum=MOMENTUM)
    resumed_optimizer.load_state_dict(saved["optimizer_state_dict"])
    resumed = [run_epoch(resumed_model, resumed_optimizer, epoch)
               for epoch in range(CHECKPOINT_EPOCH + 1, EPOCHS + 1)]

    with torch.no_grad():
        probabilities = nn.Softmax(dim=1)(model.eval()(X_test))
    buffers = [s["momentum_buffer"] for s in optimizer.state.values()]
    return dict(history=history, resumed=resumed, model=model, resumed_model=resumed_model,
                probabilities=probabilities, buffers=buffers)


def test_chapter_15_trains_on_the_device_as_on_the_cpu(second_device):
    cpu, there = chapter_15(torch.device("cpu")), chapter_15(second_device)
    # the loss curve, accuracies and the resumed run, step by step
    np.testing.assert_allclose(np.concatenate(there["history"]), np.concatenate(cpu["history"]), rtol=1e-4)
    np.testing.assert_allclose(np.concatenate(there["resumed"]), np.concatenate(cpu["resumed"]), rtol=1e-4)
    assert there["history"][-1][-1] > 0.85  # test accuracy: it learned
    # resuming from the checkpoint on the device continues the uninterrupted run exactly
    assert there["resumed"] == there["history"][CHECKPOINT_EPOCH:]
    for name in ("model", "resumed_model"):
        for p, q in zip(there[name].parameters(), cpu[name].parameters()):
            assert p.device == second_device
            np.testing.assert_allclose(p.detach().cpu().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert there["probabilities"].device == second_device
    np.testing.assert_allclose(there["probabilities"].cpu().numpy(), cpu["probabilities"].numpy(), atol=1e-5)
    assert all(b.device == second_device for b in there["buffers"])

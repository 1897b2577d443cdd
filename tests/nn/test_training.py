"""The acceptance test: the same training code, run with ``import nnref as torch`` and with PyTorch
from the same initial weights, follows the same loss curve."""
import numpy as np
import pytest

import nnref
import nnref.nn
import nnref.optim  # so that ``nnref.optim`` resolves like ``torch.optim``
from nn_compare import copy_parameters, numpy_of

torch = pytest.importorskip("torch")


def digits_like_dataset(n=256, seed=0):
    """8x8 "images" from a seeded generator; the label is the best of 10 fixed linear scores."""
    rng = np.random.default_rng(seed)
    images = rng.standard_normal((n, 1, 8, 8)).astype(np.float32)
    rule = rng.standard_normal((64, 10))
    labels = np.argmax(images.reshape(n, 64) @ rule, axis=1).astype(np.int64)
    return images, labels


def mlp(nn):
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))


def cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(8, 16, 3), nn.ReLU(), nn.Flatten(),
                         nn.Linear(16 * 2 * 2, 10))


def train(torch, model, make_optimizer, images, labels, steps=20, batch=64, scheduler=None):
    """Plain PyTorch training code; ``torch`` is either nnref or PyTorch."""
    nn = torch.nn
    optimizer = make_optimizer(torch, model.parameters())
    lr_scheduler = scheduler(torch, optimizer) if scheduler else None
    loss_fn = nn.CrossEntropyLoss()
    x_all, y_all = torch.tensor(images), torch.tensor(labels)
    losses = []
    model.train()
    for step in range(steps):
        start = (step * batch) % len(images)
        x, y = x_all[start:start + batch], y_all[start:start + batch]
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        if lr_scheduler is not None:
            lr_scheduler.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        accuracy = (model(x_all).argmax(1) == y_all).float().mean().item()
    return losses, accuracy


def run_both(build, make_optimizer, steps=20, scheduler=None):
    images, labels = digits_like_dataset()
    theirs = build(torch.nn)
    ours = build(nnref.nn)
    copy_parameters(ours, theirs)
    ours_result = train(nnref, ours, make_optimizer, images, labels, steps, scheduler=scheduler)
    theirs_result = train(torch, theirs, make_optimizer, images, labels, steps, scheduler=scheduler)
    return ours_result, theirs_result, ours, theirs


OPTIMIZERS = {
    "SGD": lambda torch, params: torch.optim.SGD(params, lr=0.1),
    "SGD momentum": lambda torch, params: torch.optim.SGD(params, lr=0.05, momentum=0.9,
                                                          weight_decay=1e-4),
    "Adam": lambda torch, params: torch.optim.Adam(params, lr=0.01),
    "AdamW": lambda torch, params: torch.optim.AdamW(params, lr=0.01),
}


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_mlp_loss_curve_matches_pytorch(optimizer):
    (losses, accuracy), (losses_t, accuracy_t), ours, theirs = run_both(mlp, OPTIMIZERS[optimizer])
    np.testing.assert_allclose(losses, losses_t, rtol=1e-4)
    assert losses[-1] < losses[0]
    assert abs(accuracy - accuracy_t) <= 1 / 256
    for (name, p), p_t in zip(ours.named_parameters(), theirs.parameters()):
        if optimizer.startswith("Adam"):
            assert_adam_weights_close(numpy_of(p), numpy_of(p_t), name)
        else:
            np.testing.assert_allclose(numpy_of(p), numpy_of(p_t), rtol=1e-4, atol=1e-5, err_msg=name)


def assert_adam_weights_close(ours, theirs, name):
    """Adam divides by sqrt(v): where a gradient is ~0, float32 round-off (BLAS summation order
    differs between nnref's numpy and PyTorch, and between thread counts) can flip a step of
    size lr. So nearly every weight must match tightly, and none may be far off."""
    close = np.isclose(ours, theirs, rtol=1e-4, atol=1e-5)
    assert close.mean() >= 0.995, f"{name}: {np.count_nonzero(~close)} of {close.size} differ"
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-3, err_msg=name)


def test_cnn_with_batch_norm_and_step_lr_matches_pytorch():
    def scheduler(torch, optimizer):
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)

    (losses, accuracy), (losses_t, accuracy_t), ours, theirs = run_both(
        cnn, OPTIMIZERS["SGD momentum"], steps=12, scheduler=scheduler)
    np.testing.assert_allclose(losses, losses_t, rtol=1e-4)
    assert losses[-1] < losses[0]
    for (name, b), b_t in zip(ours.named_buffers(), theirs.buffers()):
        np.testing.assert_allclose(numpy_of(b), numpy_of(b_t), rtol=1e-4, atol=1e-5, err_msg=name)

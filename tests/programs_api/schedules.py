"""Learning-rate schedules and the RMSprop/Adagrad optimizers on a tiny regression."""
import torch
from torch import nn, optim
from torch.optim import lr_scheduler


def model_and_data():
    model = nn.Linear(4, 2)
    with torch.no_grad():
        model.weight.copy_(torch.sin(torch.arange(8, dtype=torch.float64)).float().reshape(2, 4))
        model.bias.copy_(torch.tensor([0.1, -0.2]))
    x = torch.cos(torch.arange(40, dtype=torch.float64) * 0.5).float().reshape(10, 4)
    y = torch.sin(torch.arange(20, dtype=torch.float64) * 0.25).float().reshape(10, 2)
    return model, x, y


def train(make_optimizer, make_scheduler, epochs, plateau=False):
    model, x, y = model_and_data()
    optimizer = make_optimizer(model.parameters())
    scheduler = make_scheduler(optimizer)
    lrs = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step(loss.item()) if plateau else scheduler.step()
        lrs.append(f"{scheduler.get_last_lr()[0]:.6f}")
    print(type(optimizer).__name__, type(scheduler).__name__, f"loss {loss.item():.6f}")
    print("  lr:", " ".join(lrs))


train(lambda p: optim.SGD(p, lr=0.1), lambda o: lr_scheduler.StepLR(o, step_size=2, gamma=0.5), 6)
train(lambda p: optim.SGD(p, lr=0.1, momentum=0.9), lambda o: lr_scheduler.MultiStepLR(o, [2, 4]), 6)
train(lambda p: optim.RMSprop(p, lr=0.01), lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9), 6)
train(lambda p: optim.Adagrad(p, lr=0.1), lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=5), 8)
train(lambda p: optim.Adam(p, lr=0.01), lambda o: lr_scheduler.LambdaLR(o, lambda e: 1 / (1 + e)), 5)
train(lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
      lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=10), 10)
train(lambda p: optim.RMSprop(p, lr=0.05, momentum=0.5, centered=True),
      lambda o: lr_scheduler.ReduceLROnPlateau(o, factor=0.5, patience=0), 8, plateau=True)

model, x, y = model_and_data()
optimizer = optim.SGD(model.parameters(), lr=0.1)
scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
for _ in range(2):
    optimizer.step()
    scheduler.step()
state = scheduler.state_dict()
print(sorted(state), state["last_epoch"], [round(v, 6) for v in state["_last_lr"]])

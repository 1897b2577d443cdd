"""A convolutional autoencoder: Conv2d down, ConvTranspose2d up, trained with L1 and Huber losses."""
import torch
from torch import nn


def deterministic_(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_((torch.cos(torch.arange(p.numel(), dtype=torch.float64) * 0.9 + i) * 0.25).float().reshape(p.shape))


encoder = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ELU(),
                        nn.Conv2d(4, 8, 3, stride=2, padding=1), nn.Softplus())
decoder = nn.Sequential(nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1), nn.Hardtanh(),
                        nn.ConvTranspose2d(4, 1, 2, stride=2), nn.Sigmoid())
model = nn.Sequential(encoder, decoder)
deterministic_(model)
print(model)

images = ((torch.sin(torch.arange(4 * 16 * 16, dtype=torch.float64) * 0.05) + 1) / 2).float().reshape(4, 1, 16, 16)
code = encoder(images)
print("code:", tuple(code.shape), "reconstruction:", tuple(model(images).shape))
print(nn.ConvTranspose2d(8, 4, 3, stride=2)(code, output_size=[10, 10]).shape)

optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(6):
    optimizer.zero_grad()
    reconstruction = model(images)
    loss = nn.L1Loss()(reconstruction, images) + nn.HuberLoss(delta=0.5)(reconstruction, images)
    loss.backward()
    optimizer.step()
    print(f"step {step}: {loss.item():.6f}")

with torch.no_grad():
    p = model(images[:1]).clamp(1e-4, 1 - 1e-4)
    print("bce:", round(nn.BCELoss()(p, images[:1]).item(), 5))
    log_p = torch.log_softmax(p.flatten(1), dim=1)
    q = torch.softmax(images[:1].flatten(1), dim=1)
    print("kl:", round(nn.KLDivLoss(reduction="batchmean")(log_p, q).item(), 5))

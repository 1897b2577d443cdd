"""The core's optimizers: ``Optimizer``, ``SGD`` and ``Adam``, written with tensor methods."""

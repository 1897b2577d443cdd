"""The core's ``nn.modules``: ``Module`` and the module containers (``torch/nn/modules``)."""

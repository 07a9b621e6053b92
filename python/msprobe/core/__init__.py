"""Framework-neutral helpers shared by the PyTorch and MindSpore adapters."""

"""grad_probe for PyTorch: debugger.monitor(model) (1.2.1's grad_probe, docs 17)."""

"""grad_probe for MindSpore: debugger.monitor(optimizer) (1.2.1's grad_probe, docs 17)."""

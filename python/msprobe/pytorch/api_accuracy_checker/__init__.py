"""PyTorch accuracy pre-check (精度预检): run_ut, multi_run_ut and api_precision_compare."""

"""Comparison of run_ut results (api_precision_compare)."""

"""merge_result: gather chosen metrics of chosen APIs across the per-rank compare results."""

"""MindSpore compare API (1.2.1): ms_compare.ms_compare() for one rank,
distributed_compare.ms_compare_distributed() for step folders."""

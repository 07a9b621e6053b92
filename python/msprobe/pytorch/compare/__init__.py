"""PyTorch compare API (1.2.1): compare() for one rank, compare_distributed() for step folders."""

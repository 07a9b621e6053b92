"""grad_probe's framework-independent part: GradComparator (1.2.1's import path)."""

"""The msprobe 1.2.1 paths of the PyTorch accuracy pre-check, kept so that users' scripts and
`python -m msprobe.pytorch.api_accuracy_checker.run_ut.run_ut ...` keep working. The code lives
in msprobe.pytorch.run_ut; each module here is that module under its old name."""

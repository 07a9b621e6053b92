"""The hook state of the PyTorch adapter (see msprobe/core/hook_state.py)."""
from msprobe.core.hook_state import HookState

STATE = HookState()

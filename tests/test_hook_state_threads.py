"""The hook state's `busy` flag is each thread's own (msprobe/core/hook_state.py): probe code or a
wrapped API running on one thread does not stop another thread's calls from being recorded, and
code that sets the flag puts back the value it found."""
import threading

import torch
from conftest import load_dump

from msprobe.core.hook_guard import guarded
from msprobe.core.hook_state import HookState


def test_one_threads_busy_flag_does_not_suppress_another_threads_recording(fresh_debugger,
                                                                            tmp_path):
    from msprobe.pytorch.hook_state import STATE
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    x = torch.tensor([1.0, -2.0, 3.0])
    inside, recorded = threading.Event(), threading.Event()
    errors = []

    def probe_thread():
        try:
            with STATE.suppressed():          # as inside a wrapped API or a probe hook
                inside.set()
                recorded.wait(timeout=60)
                torch.sigmoid(x)               # this thread is busy: not recorded
        except BaseException as e:  # noqa: BLE001  reported by the assertion below
            errors.append(e)

    dbg.start()
    other = threading.Thread(target=probe_thread)
    other.start()
    assert inside.wait(timeout=60)
    assert STATE.busy is False
    torch.relu(x)                              # recorded while the other thread is busy
    recorded.set()
    other.join(timeout=60)
    torch.tanh(x)
    dbg.stop()
    dbg.step()
    assert not errors and not other.is_alive()
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert "Torch.relu.0.forward" in data
    assert "Torch.tanh.0.forward" in data
    assert not any(name.startswith("Torch.sigmoid") for name in data), sorted(data)


def test_hooks_put_back_the_busy_flag_they_found():
    state = HookState()
    state.session = "session"
    state.on_error = lambda e: None
    seen = []
    hook = guarded(state, lambda session: seen.append(state.busy))
    skipping = guarded(state, lambda session: seen.append("ran"), skip_when_busy=True)
    hook()
    assert state.busy is False and seen == [True]
    with state.suppressed():
        hook()
        skipping()
        assert state.busy is True             # not forced to False by the nested hook
    assert state.busy is False and seen == [True, True]

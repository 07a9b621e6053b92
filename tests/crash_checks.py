"""kill -9 in the middle of a dump, shared by the PyTorch and MindSpore crash-safety tests: the
target script appends "index time" to a progress file after each completed call of one API."""
import signal
import subprocess
import time

from dump_files import load_json


def kill_9_after_progress(cmd, progress, at_least, cwd, env, timeout):
    """Starts `cmd`, SIGKILLs it 1.5 s after `at_least` calls are done (or at `timeout`), and
    returns the indices of the calls completed more than a second before the kill."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stderr=subprocess.DEVNULL)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if progress.exists() and len(progress.read_text().splitlines()) >= at_least:
            break
        time.sleep(0.1)
    time.sleep(1.5)
    kill_time = time.time()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = [line.split() for line in progress.read_text().splitlines()]
    return [int(i) for i, t in done if float(t) < kill_time - 1.0]


def assert_dump_holds_calls(rank_dir, api, indices):
    """dump.json and stack.json, parseable as the kill left them, hold every call in `indices`."""
    data = load_json(rank_dir / "dump.json")["data"]
    for i in indices:
        assert f"{api}.{i}.forward" in data, i
        assert f"{api}.{i}.backward" in data, i
    assert f"{api}.{indices[-1]}.forward" in load_json(rank_dir / "stack.json")

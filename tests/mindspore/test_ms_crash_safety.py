"""Nothing lost: after kill -9 the dump.json on disk is parseable and holds every entry completed
at least a second before the kill."""
import os
import signal
import subprocess
import time

from ms_helpers import HERE, MS_PYTHON, load_json


def test_kill_9_keeps_parseable_dump(tmp_path):
    progress = tmp_path / "progress.txt"
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([MS_PYTHON, os.path.join(HERE, "kill_target.py"), str(progress)],
                            cwd=tmp_path, env=env, stderr=subprocess.DEVNULL)
    deadline = time.time() + 180
    while time.time() < deadline:
        if progress.exists() and len(progress.read_text().splitlines()) >= 30:
            break
        time.sleep(0.1)
    time.sleep(1.5)
    kill_time = time.time()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = [line.split() for line in progress.read_text().splitlines()]
    must_have = [int(i) for i, t in done if float(t) < kill_time - 1.0]
    assert len(must_have) >= 30
    dump = load_json(tmp_path / "dump" / "step0" / "rank" / "dump.json")  # parseable as is
    data = dump["data"]
    for i in must_have:
        assert f"Functional.matmul.{i}.forward" in data, i
        assert f"Functional.matmul.{i}.backward" in data, i
    stack = load_json(tmp_path / "dump" / "step0" / "rank" / "stack.json")
    assert f"Functional.matmul.{must_have[-1]}.forward" in stack

"""Nothing lost: after kill -9 the dump.json on disk is parseable and holds every entry completed
at least a second before the kill."""
import os

from crash_checks import assert_dump_holds_calls, kill_9_after_progress
from ms_helpers import HERE, MS_PYTHON, ms_env


def test_kill_9_keeps_parseable_dump(tmp_path):
    progress = tmp_path / "progress.txt"
    env = ms_env()
    must_have = kill_9_after_progress([MS_PYTHON, os.path.join(HERE, "kill_target.py"), str(progress)],
                                      progress, 30, tmp_path, env, timeout=180)
    assert len(must_have) >= 30
    assert_dump_holds_calls(tmp_path / "dump" / "step0" / "rank", "Functional.matmul", must_have)

"""Resume (-csv_path) after a real kill -9: the resumed run ends with exactly one result row per API
and the same files as an uninterrupted run (run_ut and multi_run_ut)."""
import glob
import os
import signal
import subprocess
import sys
import time

import pytest
from test_run_ut import outputs, read_csv, run_ok, syn

N_APIS = 400


def _dump(tmp_path):
    return syn.write_dump(str(tmp_path / "d" / "dump.json"), syn.mixed_entries(N_APIS, size=32))


def _rows(path):
    return read_csv(path)


def _start(command, dump, out, extra=()):
    cmd = [sys.executable, "-m", "msprobe.cli", "-f", "pytorch", command, "-api_info", str(dump), "-o", str(out),
           *extra]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _kill_after_rows(proc, out, rows, timeout=300):
    deadline = time.time() + timeout
    while time.time() < deadline:
        files = glob.glob(os.path.join(str(out), "accuracy_checking_result_*.csv"))
        if files:
            with open(files[0], "rb") as f:
                n = f.read().count(b"\n") - 1
            if n >= rows:
                os.killpg(proc.pid, signal.SIGKILL)  # the whole process group: parent and workers
                proc.wait()
                return n
        if proc.poll() is not None:
            pytest.fail("the run finished before it could be killed")
        time.sleep(0.02)
    pytest.fail("no progress")


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clean")
    dump = _dump(tmp)
    run_ok("-api_info", dump, "-o", tmp / "out")
    result, details = outputs(tmp / "out")
    return dump, _rows(result), _rows(details)


def _check_complete(out, clean):
    _, clean_result, clean_details = clean
    result, details = outputs(out)
    res = _rows(result)
    names = [r[0] for r in res[1:]]
    assert len(names) == N_APIS and len(set(names)) == N_APIS       # exactly one row per API
    assert res == clean_result                                      # same rows as an uninterrupted run
    assert _rows(details) == clean_details


@pytest.mark.parametrize("command,extra", [("run_ut", ()), ("multi_run_ut", ("-n", "3"))])
def test_kill_9_then_resume(tmp_path, clean_run, command, extra):
    dump = clean_run[0]
    out = tmp_path / "out"
    proc = _start(command, dump, out, extra)
    killed_at = _kill_after_rows(proc, out, rows=40)
    assert killed_at < N_APIS
    result, _ = outputs(out)
    # resume with the same command; multi_run_ut resumes with multi_run_ut
    run_ok("-csv_path", result, "-api_info", dump, *extra, command=command)
    _check_complete(out, clean_run)


def test_kill_twice_and_resume_with_the_other_command(tmp_path, clean_run):
    dump = clean_run[0]
    out = tmp_path / "out"
    _kill_after_rows(_start("multi_run_ut", dump, out, ("-n", "2")), out, rows=30)
    result, _ = outputs(out)
    proc = subprocess.Popen([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "run_ut", "-api_info", str(dump),
                             "-csv_path", result], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    _kill_after_rows(proc, out, rows=80)
    run_ok("-csv_path", result, "-api_info", dump, "-n", "2", command="multi_run_ut")
    _check_complete(out, clean_run)


def test_crash_between_details_and_result_row(tmp_path, clean_run):
    """A run that died after writing an API's details rows but before its result row re-runs that
    API on resume, without duplicating its details rows."""
    dump = clean_run[0]
    out = tmp_path / "out"
    run_ok("-api_info", dump, "-o", out)
    result, details = outputs(out)
    with open(result, "rb") as f:
        lines = f.read().split(b"\r\n")
    with open(result, "wb") as f:  # drop the last 5 result rows
        f.write(b"\r\n".join(lines[:-6]) + b"\r\n")
    run_ok("-csv_path", result, "-api_info", dump)
    _check_complete(out, clean_run)


def test_resume_of_a_finished_run_adds_nothing(tmp_path, clean_run):
    dump = clean_run[0]
    out = tmp_path / "out"
    run_ok("-api_info", dump, "-o", out)
    result, details = outputs(out)
    before = (open(result, "rb").read(), open(details, "rb").read())
    run_ok("-csv_path", result, "-api_info", dump)
    assert (open(result, "rb").read(), open(details, "rb").read()) == before

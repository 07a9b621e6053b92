"""multi_run_ut: N workers, rows merged without duplicates or losses, dump order, progress bar,
worker crashes recorded as SKIP rows."""
import os
import shutil

from test_run_ut import REAL_DUMP, outputs, read_csv, run_ok, syn


def test_same_files_as_a_single_run(tmp_path):
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), syn.mixed_entries(60))
    run_ok("-api_info", dump, "-o", tmp_path / "single")
    r = run_ok("-api_info", dump, "-o", tmp_path / "multi", "-n", "4", "-d", "0", "1", command="multi_run_ut")
    assert "Total items: 100%" in r.stderr and "60/60" in r.stderr                    # progress bar
    single = [read_csv(p) for p in outputs(tmp_path / "single")]
    multi = [read_csv(p) for p in outputs(tmp_path / "multi")]
    assert multi == single
    assert len({row[0] for row in multi[0][1:]}) == 60


def test_real_data_and_more_workers_than_apis(tmp_path):
    dump_dir = tmp_path / "dump"
    shutil.copytree(REAL_DUMP, dump_dir)
    run_ok("-api_info", dump_dir / "dump.json", "-o", tmp_path / "single")
    run_ok("-api_info", dump_dir / "dump.json", "-o", tmp_path / "multi", "-n", "3", "-f", command="multi_run_ut")
    single = [read_csv(p) for p in outputs(tmp_path / "single")]
    multi = [read_csv(p) for p in outputs(tmp_path / "multi")]
    # -f may drop calls in multi; every kept row is identical to the single run's
    srows = {r[0]: r for r in single[0]}
    assert all(srows[r[0]] == r for r in multi[0])
    tiny = syn.write_dump(str(tmp_path / "t" / "dump.json"), syn.mixed_entries(2))
    run_ok("-api_info", tiny, "-o", tmp_path / "tiny", "-n", "8", command="multi_run_ut")
    assert len(read_csv(outputs(tmp_path / "tiny")[0])) == 3
    empty = syn.write_dump(str(tmp_path / "e" / "dump.json"), {})
    run_ok("-api_info", empty, "-o", tmp_path / "empty", "-n", "2", command="multi_run_ut")
    assert read_csv(outputs(tmp_path / "empty")[0]) == [["API name", "Forward Test Success",
                                                          "Backward Test Success", "Message"]]


def test_worker_crash_becomes_a_skip_row(tmp_path):
    """An API that kills its worker process (here: os.abort through a patched torch function in a
    sitecustomize) is recorded as SKIP and the other APIs are still checked."""
    entries = syn.mixed_entries(12)
    entries["Torch.erfinv.0"] = syn.api([syn.tensor([4], lo=-0.5, hi=0.5)])
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), entries)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import os, torch\n"
        "_orig = torch.erfinv\n"
        "def _boom(*a, **k):\n"
        "    if os.environ.get('RUN_UT_CRASH_TEST'):\n"
        "        os.abort()\n"
        "    return _orig(*a, **k)\n"
        "torch.erfinv = _boom\n")
    env = {"PYTHONPATH": f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "RUN_UT_CRASH_TEST": "1"}
    from test_run_ut import run_cli
    r = run_cli("-api_info", dump, "-o", tmp_path / "o", "-n", "2", command="multi_run_ut", env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    res = read_csv(outputs(tmp_path / "o")[0])
    rows = {row[0]: row for row in res[1:]}
    assert len(rows) == 13 and len(res) == 14
    assert rows["Torch.erfinv.0"][1:3] == ["SKIP", "SKIP"]
    assert "worker process died (signal SIGABRT)" in rows["Torch.erfinv.0"][3]
    assert all(row[1] != "SKIP" for name, row in rows.items() if name != "Torch.erfinv.0")

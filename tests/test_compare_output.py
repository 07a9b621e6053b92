"""compare's outputs, CLI and API around the engine: xlsx content and styling read back with
openpyxl against what msprobe 1.2.1 wrote (tests/fixtures/compare_1.2.1 and
compare_output_1.2.1), file names, the
advisor, compare.json and folder errors, multi-rank compare on thread pools, process pools and a
real Dask LocalCluster, partial results, merge_result. Dumps are made by our PyTorch dumper."""
import concurrent.futures
import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys

import openpyxl
import pytest
from compare_deviations import paired_beyond_original
from conftest import TESTS_DIR, run_python

GOLDEN = os.path.join(TESTS_DIR, "fixtures", "compare_output_1.2.1")
ORIG_DUMPS = os.path.join(TESTS_DIR, "fixtures", "original_1.2.1")
TS = r"\d{14}"


def msprobe(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "msprobe.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env=env)


def assert_one_line_error(r, *parts):
    assert r.returncode != 0, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    errors = [line for line in r.stderr.splitlines() if "ERROR" in line]
    assert errors, r.stderr
    for part in parts:
        assert any(part in e for e in errors), (part, r.stderr)


# Files and advisor lines we write beyond 1.2.1 (docs/compatibility.md): first divergence, the
# suspects' next steps and the HTML report. Compared against the original's outputs without them.
OURS_ONLY = re.compile(r"^((divergence|compare_report)(_.*)?\.(json|html)|next_steps(_.*)?)$")


def files_of_1_2_1(names):
    return [f for f in names if not OURS_ONLY.match(f)]


def advisor_of_1_2_1(text):
    return "".join(l for l in text.splitlines(keepends=True) if not l.startswith("First Divergence: "))


def advisor_against_original(advisor_path, golden):
    """1.2.1's advisor text, unless first divergence found a suspect: the advisor then names the
    first suspect's row (docs/compatibility.md). The suspects are in the divergence file of the
    same rank and time."""
    ours = open(advisor_path).read()
    div = os.path.join(os.path.dirname(advisor_path),
                       os.path.basename(advisor_path).replace("advisor", "divergence", 1)[:-4] + ".json")
    suspects = json.load(open(div))["suspects"]
    if not suspects or suspects[0]["confidence"] == "low":
        assert advisor_of_1_2_1(ours) == golden
        return
    first = suspects[0]
    row = first["source_row"] if first["kind"] == "source" else first["name"]
    node = re.search(r"^Suspect Nodes: (.*)$", ours, re.M).group(1)
    assert node == row or node.startswith(row + "."), (node, row)
    assert f"First Divergence: {first['name']}: " in ours


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)
    return str(path)


def cells(path):
    """Every cell of every sheet as (value, kind, fill rgb without alpha, fill type)."""
    wb = openpyxl.load_workbook(path)
    out = {}
    for ws in wb:
        rows = []
        for row in ws.iter_rows():
            rows.append([(c.value, "n" if isinstance(c.value, (int, float)) else "s" if c.value is not None else "",
                          (c.fill.fgColor.rgb or "")[2:] if c.fill.fill_type else "", c.fill.fill_type)
                         for c in row])
        out[ws.title] = rows
    return out


MARK = re.compile(r"(First divergence|Source) \((high|medium|low)\): ")


def same_as_original(ours_path, golden_path):
    """Our workbook is 1.2.1's but for the rows first divergence marked (a suspect's outputs, a
    source's input: docs/compatibility.md): there only Result / Accuracy Reached or Not /
    Err_message and the fill may differ, and Err_message is 1.2.1's followed by our verdict.
    Returns how many rows were marked."""
    ours, gold = cells(ours_path), cells(golden_path)
    assert ours.keys() == gold.keys()
    marked = 0
    for sheet in ours:
        o, g = ours[sheet], gold[sheet]
        assert len(o) == len(g) and o[0] == g[0], sheet
        header = [c[0] for c in o[0]]
        verdict = {header.index(h) for h in ("Result", "Accuracy Reached or Not", "Err_message") if h in header}
        message = header.index("Err_message") if "Err_message" in header else None
        for orow, grow in zip(o[1:], g[1:]):
            if orow == grow or paired_beyond_original(grow[1][0], orow[1][0], orow[2][0], orow[3][0]):
                continue
            assert [c[:2] for i, c in enumerate(orow) if i not in verdict] == \
                [c[:2] for i, c in enumerate(grow) if i not in verdict], (orow, grow)
            if message is not None:
                text, original = str(orow[message][0] or ""), str(grow[message][0] or "")
                assert MARK.search(text) and text.startswith(original), (text, original)
            marked += 1
    return marked


def golden_rows(path):
    """A golden workbook's cells as the Python values write_compare_xlsx_rows takes."""
    ws = openpyxl.load_workbook(path).active
    rows = [[c.value if c.value is not None else "" for c in r] for r in ws.iter_rows()]
    fills = [{"FFFF0000": "red", "00FFFF00": "yellow"}.get(r[0].fill.fgColor.rgb, "none")
             for r in ws.iter_rows(min_row=2)]
    return rows[0], rows[1:], fills


# ---------------------------------------------------------------- xlsx writer and merge_result


def one_workbook_per_case():
    """The first golden workbook of every case folder (statistics, md5, tensor, mix, MindSpore,
    cross-framework, per rank): what 1.2.1 writes in each mode."""
    paths = sorted(glob.glob(os.path.join(GOLDEN, "*", "compare_result*.xlsx")) +
                   glob.glob(os.path.join(TESTS_DIR, "fixtures", "compare_1.2.1", "*", "*", "compare_result*.xlsx")))
    first = {}
    for p in paths:
        first.setdefault(p.split(os.sep)[-3], p)
    return sorted(first.values())


@pytest.mark.parametrize("golden", one_workbook_per_case(),
                         ids=lambda p: os.path.relpath(p, os.path.join(TESTS_DIR, "fixtures")))
def test_xlsx_writer_reproduces_original_workbook(golden, tmp_path):
    from msprobe import _core
    header, rows, fills = golden_rows(golden)
    out = tmp_path / "compare_result.xlsx"
    _core.write_compare_xlsx_rows(header, rows, fills, str(out))
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    assert openpyxl.load_workbook(out).sheetnames == ["Sheet"]
    assert cells(out) == cells(golden)
    ws = openpyxl.load_workbook(out).active
    assert not ws["A1"].font.b and ws.freeze_panes is None      # plain header, as openpyxl's append
    red = [r[0] for r in ws.iter_rows(min_row=2) if r[0].fill.fgColor.rgb == "FFFF0000"]
    assert len(red) == fills.count("red")


def test_xlsx_writer_special_values(tmp_path):
    from msprobe import _core
    out = tmp_path / "x.xlsx"
    _core.write_compare_xlsx_rows(["a", "b", "c", "d", "e", "f", "g"],
                                  [[float("nan"), float("inf"), None, True, "nan", "", "=1+1"]], ["none"], str(out))
    ws = openpyxl.load_workbook(out).active
    assert [c.value for c in ws[2]] == ["nan\t", "inf\t", "None", "True", "nan\t", None, "=1+1"]
    assert ws["G2"].data_type == "s"                              # never a formula


def merge_inputs(tmp_path, names=("compare_result_rank0-rank0", "compare_result_rank1-rank1")):
    src = [os.path.join(GOLDEN, "distributed", "compare_result_rank0-rank0.xlsx"),
           os.path.join(GOLDEN, "distributed", "compare_result_rank1-rank1.xlsx")]
    d = tmp_path / "results"
    d.mkdir()
    for s, n in zip(src, names):
        shutil.copy(s, d / f"{n}_20250101000000.xlsx")
    return d


def test_merge_result_matches_original(tmp_path):
    inp = merge_inputs(tmp_path)
    r = msprobe("-f", "pytorch", "merge_result", "-i", str(inp), "-o", str(tmp_path / "merged"), "-config",
                os.path.join(GOLDEN, "distributed", "merge.yaml"))
    assert r.returncode == 0, r.stderr
    out = glob.glob(str(tmp_path / "merged" / "multi_ranks_compare_merge_*.xlsx"))
    assert len(out) == 1 and re.fullmatch(rf"multi_ranks_compare_merge_{TS}\.xlsx", os.path.basename(out[0]))
    assert cells(out[0]) == cells(os.path.join(GOLDEN, "distributed", "multi_ranks_compare_merge.xlsx"))
    h = openpyxl.load_workbook(out[0]).active["A1"]
    assert h.font.b and h.border.left.style == "thin" and h.alignment.horizontal == "center"


def test_merge_result_all_indexes_and_errors(tmp_path):
    inp = merge_inputs(tmp_path)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("api:\n- Functional.linear\n")
    r = msprobe("merge_result", "-i", str(inp), "-o", str(tmp_path / "m1"), "-config", str(cfg))
    assert r.returncode == 0, r.stderr
    wb = openpyxl.load_workbook(glob.glob(str(tmp_path / "m1" / "*.xlsx"))[0])
    assert wb.sheetnames == ["Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr",
                             "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"]
    cfg.write_text("")
    assert_one_line_error(msprobe("merge_result", "-i", str(inp), "-o", str(tmp_path / "m2"), "-config", str(cfg)),
                          "config.yaml is empty")
    cfg.write_text("api: [Functional.linear]\ncompare_index: [Cosine]\n")   # a tensor index for statistics
    assert_one_line_error(msprobe("merge_result", "-i", str(inp), "-o", str(tmp_path / "m3"), "-config", str(cfg)),
                          "Nothing to merge")
    (inp / "notes.xlsx").write_text("x")
    cfg.write_text("api: [Functional.linear]\n")
    assert_one_line_error(msprobe("merge_result", "-i", str(inp), "-o", str(tmp_path / "m4"), "-config", str(cfg)),
                          "Wrong compare result name: notes.xlsx")
    (tmp_path / "single").mkdir()
    one = merge_inputs(tmp_path / "single", names=("compare_result_rank0-rank0", "compare_result_rank-rank"))
    assert_one_line_error(msprobe("merge_result", "-i", str(one), "-o", str(tmp_path / "m5"), "-config", str(cfg)),
                          "no more than 1")


# ---------------------------------------------------------------- compare.json and folder errors


@pytest.fixture
def orig_single(tmp_path):
    d = os.path.join(ORIG_DUMPS, "L1_statistics")
    return {"npu_path": os.path.join(d, "step0", "rank", "dump.json"),
            "bench_path": os.path.join(d, "step1", "rank", "dump.json"),
            "stack_path": os.path.join(d, "step0", "rank", "stack.json"),
            "is_print_compare_log": True}


@pytest.mark.parametrize("change, message", [
    ({"npu_pth": "x"}, 'unknown key "npu_pth"'),
    ({"is_print_compare_log": "yes"}, '"is_print_compare_log" must be true or false'),
    ({"bench_path": 5}, '"bench_path" must be a string'),
    ({"npu_path": ""}, "Missing npu_path in configuration file"),
    ({"bench_path": "/nonexistent/dump.json"}, "no such file or folder"),
    ({"bench_path": ORIG_DUMPS}, "need to be of the same type"),
])
def test_compare_json_errors(tmp_path, orig_single, change, message):
    cfg = write_json(tmp_path / "compare.json", dict(orig_single, **change))
    r = msprobe("-f", "pytorch", "compare", "-i", cfg, "-o", str(tmp_path / "out"))
    assert_one_line_error(r, message)
    assert not os.path.exists(tmp_path / "out") or not os.listdir(tmp_path / "out")


def test_compare_json_malformed_and_flags(tmp_path, orig_single):
    bad = tmp_path / "bad.json"
    bad.write_text('{"npu_path": "a",')
    assert_one_line_error(msprobe("-f", "pytorch", "compare", "-i", str(bad)), str(bad))
    assert_one_line_error(msprobe("-f", "pytorch", "compare", "-i", str(tmp_path / "none.json")), "no such file")
    cfg = write_json(tmp_path / "c.json", orig_single)
    assert_one_line_error(msprobe("-f", "pytorch", "compare", "-i", cfg, "-cm"),
                          "-cm or -am is not supported in PyTorch")
    assert_one_line_error(msprobe("-f", "pytorch", "compare", "-o", "x"), "-i/--input_path")


def step_dirs(root, n_npu=2, n_bench=2, case="L1_statistics"):
    """Step folders rank0..: NPU rank i = the original's step (i % 2), bench rank i = step (i+1) % 2."""
    npu, bench = root / "npu_step", root / "bench_step"
    for side, n, shift in ((npu, n_npu, 0), (bench, n_bench, 1)):
        for i in range(n):
            shutil.copytree(os.path.join(ORIG_DUMPS, case, f"step{(i + shift) % 2}", "rank"), side / f"rank{i}")
    return npu, bench


def test_mismatched_rank_counts_and_stray_entries(tmp_path):
    npu, bench = step_dirs(tmp_path, 2, 3)
    cfg = write_json(tmp_path / "c.json", {"npu_path": str(npu), "bench_path": str(bench)})
    assert_one_line_error(msprobe("-f", "pytorch", "compare", "-i", cfg, "-o", str(tmp_path / "out")),
                          "The number of ranks in the two runs are different")
    shutil.rmtree(bench / "rank2")
    (npu / "notes.txt").write_text("x")
    assert_one_line_error(msprobe("-f", "pytorch", "compare", "-i", cfg, "-o", str(tmp_path / "out")),
                          "dump_dir contains 'notes.txt'")


def test_api_argument_errors(tmp_path, orig_single):
    from msprobe.core.errors import MsprobeException
    from msprobe.pytorch.compare.distributed_compare import compare_distributed
    from msprobe.pytorch.compare.pt_compare import compare
    with pytest.raises(MsprobeException, match="bool"):
        compare({"npu_json_path": orig_single["npu_path"], "bench_json_path": orig_single["bench_path"]},
                str(tmp_path), stack_mode="yes")
    with pytest.raises(MsprobeException, match="suffix"):
        compare_distributed(str(tmp_path), str(tmp_path), str(tmp_path), suffix="_x")
    with pytest.raises(MsprobeException, match="Executor"):
        npu, bench = step_dirs(tmp_path)
        compare_distributed(str(npu), str(bench), str(tmp_path / "o"), executor=object())
    with pytest.raises(ValueError, match="Please check the json path is valid"):
        compare({"npu_json_path": orig_single["stack_path"], "bench_json_path": orig_single["bench_path"]},
                str(tmp_path / "o2"))


def test_dask_missing_is_one_line(tmp_path):
    """Without the optional dask extra, --dask fails with one line (the package is hidden)."""
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "distributed.py").write_text("raise ImportError('hidden for this test')\n")
    npu, bench = step_dirs(tmp_path)
    cfg = write_json(tmp_path / "c.json", {"npu_path": str(npu), "bench_path": str(bench)})
    env = dict(os.environ, PYTHONPATH=str(hide) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = msprobe("-f", "pytorch", "compare", "-i", cfg, "-o", str(tmp_path / "out"), "--dask", "tcp://127.0.0.1:1",
                env=env)
    assert_one_line_error(r, 'pip install "msprobe[dask]"')


# ---------------------------------------------------------------- end to end (needs the engine)


def run_compare(tmp_path, cfg_dict, *flags, framework="pytorch"):
    cfg = write_json(tmp_path / "compare.json", cfg_dict)
    out = tmp_path / "out"
    return msprobe("-f", framework, "compare", "-i", cfg, "-o", str(out), *flags), out


def test_cli_distributed_matches_original_and_merges(tmp_path):
    npu, bench = step_dirs(tmp_path)
    r, out = run_compare(tmp_path, {"npu_path": str(npu), "bench_path": str(bench)})
    assert r.returncode == 0, r.stderr
    assert "Compare ranks: 100%|" in r.stderr and "2/2" in r.stderr      # the progress bar
    files = sorted(files_of_1_2_1(os.listdir(out)))
    assert [re.sub(TS, "{ts}", f) for f in files] == \
        json.load(open(os.path.join(GOLDEN, "distributed", "run.json")))["files"]
    for rank in (0, 1):
        got = [f for f in files if f.startswith(f"compare_result_rank{rank}-rank{rank}_")][0]
        golden = os.path.join(GOLDEN, "distributed", f"compare_result_rank{rank}-rank{rank}.xlsx")
        same_as_original(out / got, golden)
    m = msprobe("-f", "pytorch", "merge_result", "-i", str(out), "-o", str(tmp_path / "merged"), "-config",
                os.path.join(GOLDEN, "distributed", "merge.yaml"))
    assert m.returncode == 0, m.stderr


ENGINE_FIXTURES = os.path.join(TESTS_DIR, "fixtures", "compare_1.2.1")
FIXTURE_VARIANTS = sorted(os.path.relpath(os.path.dirname(p), ENGINE_FIXTURES)
                          for p in glob.glob(os.path.join(ENGINE_FIXTURES, "*", "*", "args.txt")))


@pytest.mark.parametrize("variant", FIXTURE_VARIANTS)
def test_cli_matches_original_fixture(tmp_path, variant):
    """Every recorded 1.2.1 command line of tests/fixtures/compare_1.2.1, run through our CLI
    from its case folder: the same output files, cells, fills and advisor text."""
    case, name = variant.split(os.sep)
    case_dir = os.path.join(ENGINE_FIXTURES, case)
    args = open(os.path.join(case_dir, name, "args.txt")).read().split()
    assert args[0] == "msprobe"
    out = tmp_path / "out"
    r = msprobe(*[str(out) if a == "OUT" else a for a in args[1:]], cwd=case_dir)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    golden_dir = os.path.join(case_dir, name)
    same_as = os.path.join(golden_dir, "same_as.txt")
    if os.path.exists(same_as):
        golden_dir = os.path.join(case_dir, open(same_as).read().strip())
    files = sorted(re.sub(rf"_{TS}(?=\.)", "", f) for f in files_of_1_2_1(os.listdir(out)))
    assert files == sorted(open(os.path.join(case_dir, name, "outputs.txt")).read().split())
    for f in files_of_1_2_1(os.listdir(out)):
        golden = os.path.join(golden_dir, re.sub(rf"_{TS}(?=\.)", "", f))
        if f.endswith(".xlsx"):
            same_as_original(out / f, golden)
        elif f.startswith("advisor"):
            advisor_against_original(str(out / f), open(golden).read())
        else:   # data_mapping_*.yaml (-lm)
            assert (out / f).read_text() == open(golden).read(), f
        assert stat.S_IMODE(os.stat(out / f).st_mode) == 0o640


OUR_DUMP = r"""
import sys, torch, torch.nn.functional as F
from msprobe.pytorch import PrecisionDebugger
from dump_models import ProbeTestNet, make_inputs
torch.manual_seed(1)
model = ProbeTestNet()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
dbg = PrecisionDebugger(task=sys.argv[1], dump_path="./dump", level="L1")
x, y = make_inputs(seed=0)
for step in range(2):   # the same inputs, weights changed by one SGD step
    dbg.start()
    F.cross_entropy(model(x), y).backward()
    opt.step()
    opt.zero_grad()
    dbg.stop()
    dbg.step()
"""


@pytest.fixture(scope="module")
def our_dumps(tmp_path_factory):
    """Our PyTorch dumper, two steps of one run per task: {task: (step0 rank dir, step1 rank dir)}."""
    root = tmp_path_factory.mktemp("our_dumps")
    out = {}
    for task in ("statistics", "tensor"):
        work = root / task
        work.mkdir()
        run_python(OUR_DUMP, task, cwd=work)
        out[task] = (work / "dump" / "step0" / "rank", work / "dump" / "step1" / "rank")
    return out


def our_step_dirs(root, rank_pair, n=3):
    npu, bench = root / "npu", root / "bench"
    for i in range(n):
        shutil.copytree(rank_pair[0], npu / f"rank{i}")
        shutil.copytree(rank_pair[1], bench / f"rank{i}")
    return npu, bench


def test_api_compare_on_our_dumps(tmp_path, our_dumps):
    from msprobe.pytorch import compare
    npu, bench = our_dumps["tensor"]
    report = compare({"npu_json_path": str(npu / "dump.json"), "bench_json_path": str(bench / "dump.json"),
                      "is_print_compare_log": False}, str(tmp_path / "api"), auto_analyze=False)
    assert re.fullmatch(rf"compare_result_{TS}\.xlsx", os.path.basename(report.xlsx_path))
    assert report.advisor_path == ""
    ws = openpyxl.load_workbook(report.xlsx_path).active
    header = [c.value for c in ws[1]]
    assert header[6] == "Cosine" and header[-1] == "Data_name" and "NPU_Stack_Info" in header  # auto-detected
    assert ws.max_row == report.rows + 1 > 10


def test_distributed_thread_and_process_pools(tmp_path, our_dumps):
    from msprobe.pytorch import compare_distributed
    npu, bench = our_step_dirs(tmp_path, our_dumps["statistics"])
    reports = compare_distributed(str(npu), str(bench), str(tmp_path / "threads"), progress=False,
                                  parallel_ranks=3, threads_per_rank=1)
    for i, r in enumerate(reports):
        assert re.fullmatch(rf"compare_result_rank{i}-rank{i}_{TS}\.xlsx", os.path.basename(r.xlsx_path))
        assert re.fullmatch(rf"advisor_rank{i}-rank{i}_{TS}\.txt", os.path.basename(r.advisor_path))
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        reports2 = compare_distributed(str(npu), str(bench), str(tmp_path / "procs"), executor=pool)
    for a, b in zip(reports, reports2):
        assert cells(a.xlsx_path) == cells(b.xlsx_path)
        assert open(a.advisor_path).read() == open(b.advisor_path).read()


def test_dask_local_cluster(tmp_path, our_dumps):
    distributed = pytest.importorskip("distributed")
    npu, bench = our_step_dirs(tmp_path, our_dumps["statistics"], n=3)
    cfg = write_json(tmp_path / "c.json", {"npu_path": str(npu), "bench_path": str(bench)})
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        r = msprobe("-f", "pytorch", "compare", "-i", cfg, "-o", str(tmp_path / "out"), "--dask",
                    cl.scheduler_address)
        assert r.returncode == 0, r.stderr
        # The three rank pairs ran as tasks on the cluster's worker processes (the scheduler lives
        # in this process).
        assert cl.scheduler.task_prefixes["rank_job"].state_counts["memory"] == 3
    files = sorted(os.listdir(tmp_path / "out"))
    assert len([f for f in files if f.endswith(".xlsx")]) == 3
    assert len([f for f in files if f.startswith("advisor_rank")]) == 3
    ref = tmp_path / "ref"
    from msprobe.pytorch import compare_distributed
    for a, b in zip(sorted(glob.glob(str(tmp_path / "out" / "*.xlsx"))),
                    sorted(r.xlsx_path for r in compare_distributed(str(npu), str(bench), str(ref),
                                                                       progress=False))):
        assert cells(a) == cells(b)


def test_partial_results_when_one_rank_is_bad(tmp_path, our_dumps):
    npu, bench = our_step_dirs(tmp_path, our_dumps["statistics"])
    (npu / "rank1" / "dump.json").write_text("not json at all")
    os.remove(bench / "rank2" / "dump.json")
    r, out = run_compare(tmp_path, {"npu_path": str(npu), "bench_path": str(bench)})
    assert_one_line_error(r, "rank1-rank1", "dump.json is not found in dump dir", "compare failed for 2 of 3")
    files = os.listdir(out)
    assert any(f.startswith("compare_result_rank0-rank0_") for f in files)
    assert not any("rank1-rank1" in f or "rank2-rank2" in f for f in files)


def test_tensor_path_escaping_dump_folder(tmp_path, our_dumps):
    """A data_name leading out of dump_tensor_data is not followed: the row is not compared (the
    file outside, a valid tensor on both sides, would compare as equal), the rest is."""
    npu, bench = tmp_path / "npu", tmp_path / "bench"
    shutil.copytree(our_dumps["tensor"][0], npu)
    shutil.copytree(our_dumps["tensor"][1], bench)
    shutil.copy(next((npu / "dump_tensor_data").iterdir()), tmp_path / "secret.pt")
    for side in (npu, bench):
        data = json.load(open(side / "dump.json"))
        leaf = next(iter(data["data"].values()))["input_args"][0]
        # The name part stays valid (1.2.1 derives the row name from data_name); the path leads out.
        leaf["data_name"] = leaf["data_name"][:-3] + "/../../../secret.pt"
        write_json(side / "dump.json", data)
    (tmp_path / "run").mkdir()
    r, out = run_compare(tmp_path / "run", {"npu_path": str(npu / "dump.json"), "bench_path": str(bench / "dump.json")})
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    ws = openpyxl.load_workbook(glob.glob(str(out / "compare_result_*.xlsx"))[0]).active
    header = [c.value for c in ws[1]]
    rows = list(ws.iter_rows(min_row=2, values_only=True))
    assert rows[0][0].endswith("/../../../secret") and rows[0][header.index("Cosine")] == "unsupported"
    assert isinstance(rows[1][header.index("Cosine")], float)   # the next tensor is compared


def test_malformed_dump_and_missing_stack_are_one_line(tmp_path, orig_single):
    bad = tmp_path / "npu"
    bad.mkdir()
    text = open(orig_single["npu_path"]).read()
    (bad / "dump.json").write_text(text.replace('"Max"', '"Max" "oops"', 1))
    r, out = run_compare(tmp_path, {"npu_path": str(bad / "dump.json"), "bench_path": orig_single["bench_path"]})
    assert_one_line_error(r, str(bad / "dump.json"), "line 16")
    assert not out.exists() or not os.listdir(out)
    r, out = run_compare(tmp_path, dict(orig_single, stack_path=str(tmp_path / "none" / "stack.json")), "-s")
    assert_one_line_error(r, "stack_path", "no such file")


def test_missing_tensor_file_is_a_row_message(tmp_path, our_dumps):
    npu = tmp_path / "npu"
    shutil.copytree(our_dumps["tensor"][0], npu)
    missing = sorted((npu / "dump_tensor_data").iterdir())[0]
    os.remove(missing)
    (tmp_path / "run").mkdir()
    r, out = run_compare(tmp_path / "run", {"npu_path": str(npu / "dump.json"),
                                           "bench_path": str(our_dumps["tensor"][1] / "dump.json")})
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    ws = openpyxl.load_workbook(glob.glob(str(out / "compare_result_*.xlsx"))[0]).active
    header = [c.value for c in ws[1]]
    row = next(r for r in ws.iter_rows(min_row=2, values_only=True) if r[0] == missing.name[:-3])
    assert row[header.index("Cosine")] in ("N/A", "unsupported") and row[header.index("Err_message")]


def test_progress_callback_error_stops_the_job(tmp_path):
    """Ctrl-C while C++ compares: it surfaces in the progress callback and ends the job."""
    from msprobe import _core
    d = os.path.join(ORIG_DUMPS, "mix_statistics")
    calls = []

    def progress(stage, done, total):
        calls.append((stage, done, total))   # the read stage reports every 256 entries and at its end
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _core.compare_job("pytorch", os.path.join(d, "step0", "rank", "dump.json"),
                          os.path.join(d, "step1", "rank", "dump.json"), str(tmp_path / "out"), progress=progress)
    assert len(calls) == 1 and calls[0][0] == "read"
    assert os.listdir(tmp_path / "out") == []


def test_data_mapping_yaml_text_is_pyyaml_dump():
    """The -lm data_mapping yaml: our C++ emitter against PyYAML (what 1.2.1 uses) on awkward
    names and on random printable ASCII."""
    import random

    import yaml

    from msprobe import _core
    names = ["Cell.fc1.Dense.forward.0.input.0", "N/A", "", "true", "Off", "null", "~", "12", "0x1F", "1_000",
             "1.5", ".5", "1e3", "-x", "- x", "?x", "? x", ":x", "a: b", "a:b", "a #b", "a#b", "#a", "'q'",
             '"d"', "it's", " lead", "trail ", "---x", "...", "2002-12-14", "<<", "=", "*", "&a", "!t", "@a",
             "%a", "`a", "[a]", "{a}", "a,b", "x" * 122, "y" * 123, "z" * 200, "'" + "q" * 120, "ü" * 122,
             "Ünïcode", "tab\there", "é" * 3]
    pairs = [(n, n[::-1]) for n in names]
    rng = random.Random(7)
    alphabet = [chr(c) for c in range(32, 127)]
    for _ in range(400):
        pairs.append(("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))),
                      "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))))
    wide = alphabet + [" "] * 20 + ["'", "é", "中", "\t"]   # folding of long scalars at width 80
    for _ in range(300):
        pairs.append(("".join(rng.choice(wide) for _ in range(rng.randint(1, 140))),
                      "".join(rng.choice(wide) for _ in range(rng.randint(0, 240)))))
    expected = yaml.dump(dict(pairs), sort_keys=False)
    assert _core.mapping_yaml_text(pairs) == expected

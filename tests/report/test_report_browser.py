"""The HTML report in a real browser: Debian's headless chromium opens reports of real PyTorch
dumps (fault-injected pairs from tests/compare/fault_net.py) and the statistics view of one dump,
driven through the DevTools protocol. Screenshots go to MSPROBE_REPORT_SCREENSHOTS when set
(docs/images is made that way)."""
import json
import os
import subprocess
import sys

import cdp  # tests/report/cdp.py: a broken helper must fail, not skip
import pytest
from conftest import TESTS_DIR, load_json, run_python
from fresh_python import msprobe_overlay

if cdp.chromium_path() is None:
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)

from summary_table import summary_table  # noqa: E402

FAULT_NET = os.path.join(TESTS_DIR, "compare", "fault_net.py")


def _dump(path, *args):
    run_python(FAULT_NET, str(path), "--task", "statistics", "--level", "mix", "--steps", "1", *args)
    return os.path.join(str(path), "step0", "rank")


def _part(npu_dir, bench_dir, rank):
    header, rows, fills = summary_table(os.path.join(npu_dir, "dump.json"),
                                        os.path.join(bench_dir, "dump.json"))
    return dict(header=header, rows=rows, fills=fills, mode="statistics", rank=rank, step=0,
                construct=load_json(os.path.join(npu_dir, "construct.json")),
                stacks=load_json(os.path.join(npu_dir, "stack.json")))


RUNS = [dict(label="NPU", path="npu", framework="pytorch", level="mix", task="statistics"),
        dict(label="Bench", path="bench", framework="pytorch", level="mix", task="statistics")]


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    bench = _dump(root / "bench")
    gelu = _dump(root / "npu_gelu", "--fault", "gelu_tanh", "--fault-call", "2", "--noise", "1e-6")
    norm = _dump(root / "npu_norm", "--fault", "layernorm_eps", "--fault-call", "1", "--noise", "1e-6")
    return root, bench, gelu, norm


@pytest.fixture(scope="module")
def pair_report(dumps):
    from msprobe import _core
    root, bench, gelu, _ = dumps
    part = _part(gelu, bench, -1)
    html = _core.report.render_compare_report([part], RUNS, "fault_net: gelu swapped")
    path = root / "compare_report.html"
    _core.report.write_report_file(str(path), html)
    return path, part


@pytest.fixture
def browser():
    with cdp.Browser() as b:
        yield b


def _entry(row_name):
    for marker in (".parameters_grad",):
        if marker in row_name:
            return row_name[:row_name.index(marker) + len(marker)]
    parts = row_name.split(".")
    for i in range(1, len(parts) - 1):
        if parts[i] in ("forward", "backward"):
            end = i + 2 if parts[i + 1].isdigit() else i + 1
            return ".".join(parts[:end])
    return row_name


def _roots(part):
    return _roots_of(part["construct"], [_entry(r[0]) for r in part["rows"]])


def _roots_of(construct, entries):
    """Top-level nodes: construct.json roots (and pseudo-parents such as "optimizer"), and
    entries that it does not place, but for parameters_grad (under their module's backward)."""
    names = set(entries) | set(construct) | {p for p in construct.values() if p}
    placed = {c for c, p in construct.items() if p}
    modules_with_backward = {n.split(".backward.")[0] for n in names if n.startswith("Module.") and ".backward." in n}
    placed |= {n for n in names
               if n.endswith(".parameters_grad") and n[:-len(".parameters_grad")] in modules_with_backward}
    return names - placed, names


def _state(b):
    return b.eval("JSON.stringify(window.msprobeReport)") and json.loads(b.eval("JSON.stringify(window.msprobeReport)"))


def test_compare_report_shows_summary_plot_tree_and_suspect(pair_report, browser, tmp_path):
    path, part = pair_report
    browser.open(path.as_uri())
    st = _state(browser)
    assert browser.problems() == []
    assert st["errors"] == []
    # Counts agree with the Suspects box: the output rows of the high and medium suspects are the
    # errors, what 1.2.1's rules flag besides (fills, Result) is a warning, the rest pass.
    yellow = part["fills"].count("yellow")
    counts = browser.eval("""Object.fromEntries([...document.querySelectorAll('#counts-table tr[data-verdict]')]
        .map(tr => [tr.dataset.verdict, +tr.cells[2].textContent]))""")
    page = json.loads(browser.eval("document.getElementById('msprobe-data').textContent"))
    strong = [s["name"] for s in page["suspects"] if s["tier"] < 2 and not s["source"]]
    outputs = [r[0] for r in part["rows"] if any(r[0].startswith(n + ".output") for n in strong)]
    assert strong and counts["error"] == len(outputs)
    assert yellow > 0 and counts["warning"] >= len([i for i, r in enumerate(part["rows"])
                                                    if part["fills"][i] == "yellow" and r[0] not in outputs])
    assert counts["pass"] == len(part["rows"]) - counts["error"] - counts["warning"]
    # One point per entry with output statistics, and the canvas is drawn.
    entries_with_outputs = {_entry(r[0]) for r in part["rows"]
                            if (".output" in r[0] or "parameters_grad" in r[0]) and isinstance(r[17], float)}
    assert st["plotPoints"] == len(entries_with_outputs)
    assert browser.eval("document.querySelectorAll('#plot canvas').length") >= 2
    # The injected fault is the first suspect, marked on the plot.
    first = browser.eval("document.querySelector('#suspect-list li a').textContent")
    assert first == "Functional.gelu.2.forward"
    assert browser.eval("document.querySelectorAll('.dygraph-annotation').length") >= 1
    # Hovering the plot names the entry under the mouse, with its numbers.
    left, top, width, height = browser.box("#plot canvas")
    assert _state(browser)["xRange"][1] > 100
    browser.mouse("mouseMoved", left + width * 0.5, top + height * 0.4)
    legend = browser.eval("document.getElementById('plot-legend').innerText")
    assert any(part in legend for part in (".forward", ".backward")) and "output" in legend
    # The tree starts collapsed: one row per top-level node.
    roots, _ = _roots(part)
    assert st["visibleRows"] == len(roots)
    # Opening the suspect reveals it in the tree, with both runs side by side and its stack.
    browser.click("#suspect-list li a")
    assert browser.eval("document.querySelector('#tree .row.selected .name').textContent") == first
    details = browser.eval("document.getElementById('details').innerText")
    assert "Inputs" in details and "Outputs" in details and "Stack" in details
    assert "fault_net.py" in details
    assert browser.eval("document.querySelectorAll('#details .side-b').length") > 2
    browser.keep_screenshot(tmp_path, "report_compare.png")
    assert browser.problems() == []


def test_search_and_expand(pair_report, browser, tmp_path):
    path, part = pair_report
    browser.open(path.as_uri())
    _, names = _roots(part)
    expected = sorted(n for n in names if "layer_norm" in n.lower())
    browser.type_text("#search", "LAYER_NORM")
    browser.wait_for("window.msprobeReport.matches > 0")
    assert _state(browser)["matches"] == len(expected)
    assert browser.eval("document.getElementById('search-count').textContent") == f"1 of {len(expected)}"
    shown = browser.eval("[...document.querySelectorAll('#tree .row.match .name')].map(e => e.textContent)")
    assert shown and set(shown) <= set(expected)
    browser.press_enter()  # next match
    assert browser.eval("document.getElementById('search-count').textContent") == f"2 of {len(expected)}"
    selected = browser.eval("document.querySelector('#details h3').textContent")
    assert selected in expected

    browser.click("#collapse-all")
    before = _state(browser)["visibleRows"]
    block = "Module.blocks.0.Block.forward.0"
    children = [c for c, p in part["construct"].items() if p == block]
    browser.click(f"#tree .row[data-entry='{browser.eval(_index_js(block))}'] .toggle")
    assert _state(browser)["visibleRows"] == before + len(children)
    browser.click(f"#tree .row[data-entry='{browser.eval(_index_js(block))}'] .toggle")
    assert _state(browser)["visibleRows"] == before
    browser.click("#expand-all")
    assert _state(browser)["visibleRows"] == len(names)
    browser.keep_screenshot(tmp_path, "report_search.png")
    assert browser.problems() == []


def _index_js(name):
    return f"(() => {{ const rows = [...document.querySelectorAll('#tree .row')]; " \
           f"const r = rows.find(r => r.querySelector('.name').textContent === {json.dumps(name)}); " \
           f"return r ? r.dataset.entry : -1; }})()"


def test_several_ranks_selector_and_heat_map(dumps, browser, tmp_path):
    from msprobe import _core
    root, bench, gelu, norm = dumps
    parts = [_part(gelu, bench, 0), _part(norm, bench, 1)]
    html = _core.report.render_compare_report(parts, RUNS, "two ranks")
    path = root / "ranks.html"
    _core.report.write_report_file(str(path), html)
    browser.open(path.as_uri())
    assert browser.eval("document.getElementById('heat-section').hidden") is False
    assert browser.eval("document.getElementById('heatmap').height") == 2 * 14
    assert browser.eval("document.querySelectorAll('#part-select option').length") == 2
    names = browser.eval("[...document.querySelectorAll('#suspect-list li a')].map(a => a.textContent)")
    assert "Functional.gelu.2.forward" in names and "Functional.layer_norm.1.forward" in names
    # Opening rank 1's suspect switches the selector to rank 1.
    browser.click("#suspect-list li a[data-part='1']")
    assert _state(browser)["part"] == 1
    assert browser.eval("document.getElementById('part-select').value") == "1"
    assert "layer_norm" in browser.eval("document.querySelector('#details h3').textContent")
    browser.keep_screenshot(tmp_path, "report_ranks.png")
    assert browser.problems() == []


def test_dump_statistics_view_from_the_cli(dumps, browser, tmp_path):
    root, _, gelu, _ = dumps
    out = tmp_path / "dump.html"
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "report", os.path.dirname(gelu), "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert oct(os.stat(out).st_mode & 0o777) == "0o640"
    browser.open(out.as_uri())
    st = _state(browser)
    construct = load_json(os.path.join(gelu, "construct.json"))
    roots, _ = _roots_of(construct, list(load_json(os.path.join(gelu, "dump.json"))["data"]))
    assert "optimizer" in roots
    assert st["visibleRows"] == len(roots)
    assert "No inf or nan" in browser.eval("document.getElementById('suspects').innerText")
    assert st["plotPoints"] > 100
    browser.keep_screenshot(tmp_path, "report_dump.png")
    assert browser.problems() == []


def test_cli_errors_are_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "report", str(tmp_path / "missing")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and "missing" in r.stderr
    (tmp_path / "empty").mkdir()
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "report", str(tmp_path / "empty"),
                        "-o", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "no dump.json" in r.stderr


def test_pair_report_from_the_cli_runs_the_compare_engine(dumps, browser, tmp_path):
    root, bench, gelu, _ = dumps
    out = tmp_path / "pair.html"
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "report", os.path.dirname(gelu),
                        os.path.dirname(bench), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    browser.open(out.as_uri())
    assert browser.eval("document.querySelector('#suspect-list li a').textContent") == \
        "Functional.gelu.2.forward"
    rows = browser.eval("""[...document.querySelectorAll('#counts-table tr[data-verdict]')]
        .reduce((s, tr) => s + Number(tr.cells[2].textContent), 0)""")
    _, table_rows, _ = summary_table(os.path.join(gelu, "dump.json"), os.path.join(bench, "dump.json"))
    assert rows > 0 and abs(rows - len(table_rows)) <= len(table_rows) // 10
    runs = browser.eval("document.getElementById('runs').innerText")
    assert "pytorch" in runs and "mix" in runs
    browser.keep_screenshot(tmp_path, "report_pair_cli.png")
    assert browser.problems() == []


@pytest.fixture(scope="module")
def ms_dump(tmp_path_factory):
    """A MindSpore (CPU) statistics dump of the twin net at level mix, made once for the module."""
    ms_python = os.environ.get("MSPROBE_MS_PYTHON")
    if not ms_python:
        pytest.skip("MSPROBE_MS_PYTHON (a Python with MindSpore) is not set")
    dump = tmp_path_factory.mktemp("ms_dump") / "ms"
    # The msprobe under test first (fresh_python.msprobe_overlay), whatever ms_python has installed.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([TESTS_DIR, msprobe_overlay(),
                                                       os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([ms_python, os.path.join(TESTS_DIR, "compare", "fault_net_ms.py"), str(dump),
                        "--task", "statistics", "--level", "mix"], capture_output=True, text=True,
                       env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return dump


def test_mindspore_dump_statistics_view(ms_dump, browser, tmp_path):
    """A MindSpore (CPU) dump of the twin net: Cell modules, Mint APIs, the tree from its
    construct.json."""
    dump = ms_dump
    out = tmp_path / "ms.html"
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "mindspore", "report", str(dump),
                        "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    browser.open(out.as_uri())
    rank = os.path.join(str(dump), "step0", "rank")
    roots, names = _roots_of(load_json(os.path.join(rank, "construct.json")),
                             list(load_json(os.path.join(rank, "dump.json"))["data"]))
    assert _state(browser)["visibleRows"] == len(roots)
    assert "mindspore" in browser.eval("document.getElementById('runs').innerText")
    browser.type_text("#search", "Cell.blocks.0.Block.forward")
    browser.wait_for("window.msprobeReport.matches > 0")
    assert _state(browser)["matches"] == sum("cell.blocks.0.block.forward" in n.lower() for n in names)
    browser.keep_screenshot(tmp_path, "report_mindspore_dump.png")
    assert browser.problems() == []


def test_mindspore_vs_pytorch_compare_writes_the_report(dumps, ms_dump, browser, tmp_path):
    """`msprobe -f mindspore compare -am -cm` of a MindSpore dump against a PyTorch one writes
    compare_report_*.html beside the xlsx: both frameworks in the summary, the MindSpore tree,
    the plot and the counts of the compared rows."""
    _, bench, _, _ = dumps
    ms = ms_dump
    rank = os.path.join(str(ms), "step0", "rank")
    cfg = tmp_path / "compare.json"
    cfg.write_text(json.dumps({"npu_path": os.path.join(rank, "dump.json"),
                               "bench_path": os.path.join(bench, "dump.json")}))
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "mindspore", "compare", "-i", str(cfg),
                        "-o", str(tmp_path / "out"), "-am", "-cm"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    (page,) = [f for f in os.listdir(tmp_path / "out") if f.startswith("compare_report_")]
    browser.open((tmp_path / "out" / page).as_uri())
    runs = browser.eval("document.getElementById('runs').innerText")
    assert "mindspore" in runs and "pytorch" in runs
    roots, _ = _roots_of(load_json(os.path.join(rank, "construct.json")),
                         list(load_json(os.path.join(rank, "dump.json"))["data"]))
    st = _state(browser)
    assert st["visibleRows"] == len(roots) and st["plotPoints"] > 10
    counts = browser.eval("""Object.fromEntries([...document.querySelectorAll('#counts-table tr[data-verdict]')]
        .map(tr => [tr.dataset.verdict, Number(tr.cells[2].textContent)]))""")
    # Mapped rows got a verdict; the ops only one net has are unmatched.
    assert counts.get("unmatched", 0) > 0 and sum(v for k, v in counts.items() if k != "unmatched") > 10
    browser.keep_screenshot(tmp_path, "report_mindspore_vs_pytorch.png")
    assert browser.problems() == []


def test_empty_table_and_hostile_names(browser, tmp_path):
    """No rows at all (1.2.1's "Can`t match any op"), and names that are markup: the page still
    opens without errors and shows the names as text."""
    from msprobe import _core
    hostile = 'Torch.x<img src=x onerror="window.pwned=1">.0.forward'
    header = ["NPU Name", "Bench Name", "NPU max", "Bench max", "NPU l2norm", "Bench l2norm", "Result"]
    parts = [dict(header=header, rows=[], mode="statistics", rank=0, step=0),
             dict(header=header, rows=[[hostile + ".output.0", "N/A", 1.0, None, 1.0, None, ""]],
                  mode="statistics", rank=1, step=0,
                  construct={hostile: "</script><script>window.pwned=2</script>"},
                  stacks={hostile: ["File a.py, line 1, in <module>"]})]
    html = _core.report.render_compare_report(parts, RUNS, "<b>title</b>")
    path = tmp_path / "hostile.html"
    _core.report.write_report_file(str(path), html)
    browser.open(path.as_uri())
    assert _state(browser)["visibleRows"] == 0  # rank 0 has nothing
    assert "Nothing to plot" in browser.eval("document.getElementById('plot').innerText")
    browser.eval("document.getElementById('part-select').value = '1'")
    browser.eval("document.getElementById('part-select').dispatchEvent(new Event('change'))")
    assert _state(browser)["visibleRows"] == 1  # the construct parent, holding the entry
    browser.click("#expand-all")
    names = browser.eval("[...document.querySelectorAll('#tree .row .name')].map(e => e.textContent)")
    assert hostile in names
    browser.click("#tree .row:nth-child(2) .name")
    assert "<module>" in browser.eval("document.getElementById('details').innerText")
    assert browser.eval("window.pwned === undefined && document.querySelectorAll('img').length === 0")
    assert browser.eval("document.title") == "<b>title</b>"
    assert browser.problems() == []
